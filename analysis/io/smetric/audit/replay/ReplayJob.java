package io.smetric.audit.replay;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.AuditPlan;
import io.smetric.audit.replay.sweep.Conditions;
import io.smetric.audit.replay.sweep.RunResult;
import io.smetric.audit.replay.sweep.SameSimulations;
import io.smetric.audit.replay.sweep.Schedule;
import io.smetric.audit.replay.sweep.SimSpec;
import io.smetric.audit.replay.sweep.Sweep;
import io.smetric.audit.replay.sweep.SweepProgress;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.TraceCache;
import io.smetric.audit.replay.trace.TraceFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.CompletableFuture;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The replay stage as one job (docs/architecture.md, "Stage jobs"; Iceberg's Spark actions are
 * the model): a loaded trace and one immutable {@link Options} record in; {@link #run} runs the
 * sweep (its batches under the job group {@link #SWEEP_GROUP}) and writes the stage's output into
 * the folder it is given, under the job group {@link #WRITE_GROUP}: replay.json and the Parquet
 * tables named in the contract's {@link AuditLayout} ({@link AuditLayout#REPLAY_TABLES}); an
 * immutable {@link Result} out. The folder is not committed: the caller owns it. Policies whose
 * needs the trace cannot meet are skipped with the reason (docs/replay.md). The job runs the sweep
 * on its engine (Spark tasks or the driver); what it simulates, round by round, is {@link
 * ReplayPlanning}, and what it writes once the sweep is done, and how, is {@link ReplayWriter}.
 *
 * <p>A job runs once: to keep nothing trace-sized in the driver it lets its trace go as soon as the
 * sweep's tasks can read it from the output folder.
 */
public final class ReplayJob {
  /**
   * What the stage wrote.
   *
   * @param runs how many simulations ran
   * @param skipped the policies not replayed, each with why
   * @param results their {@link RunResult#summary()}s: the window series are only in the tables
   * @param wallSeconds the sweep's wall time
   * @param json replay.json as written
   */
  public record Result(int runs, List<String> skipped, List<RunResult> results, double wallSeconds, ObjectNode json) {
    public Result {
      skipped = List.copyOf(skipped);
      results = List.copyOf(results);
    }
  }

  /** What replay.json says about the trace (kept after the driver lets the trace itself go). */
  public record TraceSummary(int requests, int sessions, int sessionTrees, int blockSize, int segments,
      long blocksReferenced, int blockCountMismatches, boolean hasBlocks, boolean hasSessions, boolean hasTurns) {
    static TraceSummary of(ReplayTrace t) {
      return new TraceSummary(t.n, t.sessions, t.sessionTreeCount(), t.blockSize, t.segments, t.totalBlocks(),
          t.blockCountMismatches, t.hasBlocks, t.hasSessions, t.hasTurns);
    }
  }

  /** Which simulations a replay runs. */
  public enum Plan {
    /** The product of the axes (policies x global ratios x offered rates x OVERLOAD x HIT_RATIO), as given. */
    GRID,
    /**
     * The audit sweep (docs/replay.md, "The audit sweep"): production policies, SMetric, its 2x2
     * guard ablation at the paper's five global ratios, OVERLOAD and HIT_RATIO sensitivity at 1.6,
     * offered rates found per curve from the trace to bracket saturation ({@link AuditPlan#of}).
     */
    AUDIT,
    /** The audit sweep's curves for the given policies and global ratios only, rates found per curve ({@link AuditPlan#custom}). */
    CUSTOM
  }

  /**
   * Everything a replay is asked to do, immutable; built by {@link #grid}, {@link #audit} or
   * {@link #custom} and the {@code with...} methods (the commands build it from the
   * {@code ReplayOptions} mixin); its settings are an immutable value, kept as given.
   *
   * @param settings the base settings of every simulation (a sweep varies some of their fields)
   * @param plan which simulations run
   * @param rateGrid how the audit and custom plans find each curve's offered rates; null for a grid
   * @param policies the policies asked for (those the trace cannot serve are skipped with the reason)
   * @param globalRatios the global-tier capacities: the grid's axis, or the custom plan's ratios
   *     (the audit plan's are {@link AuditPlan#GLOBAL_RATIOS})
   * @param rates the grid's offered-rate multipliers; empty for the audit and custom plans (found per curve)
   * @param overloads the OVERLOAD values swept (the first is the comparison's reference unless the base's is among them)
   * @param hitRatios the HIT_RATIO values swept (the same)
   * @param traceLabel the trace as replay.json names it
   * @param currentRouter the router the verdict judges SMetric against (--current-router); null =
   *     the best paper baseline per ratio
   * @param bootstrap bootstrap replicates for the gains' intervals (0 = none)
   * @param conditions the conditions sweep's parameters (empty = none); run only with the audit or custom plan
   * @param useSpark simulations as Spark tasks (false: one after another in the driver)
   * @param capacity the capacity search (docs/replay.md, "Capacity"); run only with the audit or custom plan
   */
  public record Options(ReplaySettings settings, Plan plan, AuditPlan.RateGrid rateGrid, List<Policies> policies,
      List<Double> globalRatios, List<Double> rates, List<Double> overloads, List<Double> hitRatios, String traceLabel,
      String currentRouter, int bootstrap, List<Conditions.Param> conditions, boolean useSpark,
      io.smetric.audit.replay.sweep.Capacity.Options capacity) {
    public Options {
      capacity = capacity == null ? io.smetric.audit.replay.sweep.Capacity.Options.OFF : capacity;
      Objects.requireNonNull(settings, "settings");
      Objects.requireNonNull(plan, "plan");
      if ((rateGrid == null) != (plan == Plan.GRID)) throw new IllegalArgumentException("a rate grid goes with the audit and custom plans only");
      policies = List.copyOf(policies);
      globalRatios = List.copyOf(globalRatios);
      rates = List.copyOf(rates);
      overloads = List.copyOf(overloads);
      hitRatios = List.copyOf(hitRatios);
      if (policies.isEmpty() || overloads.isEmpty() || hitRatios.isEmpty()) {
        throw new IllegalArgumentException("policies, overloads and hit ratios must not be empty");
      }
      if (plan != Plan.AUDIT && globalRatios.isEmpty()) throw new IllegalArgumentException("no global ratio");
      if (plan == Plan.GRID && rates.isEmpty()) throw new IllegalArgumentException("no offered rate");
      traceLabel = traceLabel == null ? "" : traceLabel;
      if (bootstrap < 0) throw new IllegalArgumentException("bootstrap must be >= 0, got " + bootstrap);
      conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }

    /**
     * The product of the given axes; a null axis is the base settings' single value (global
     * ratio, rate scale, OVERLOAD, HIT_RATIO) and null policies are all of them.
     */
    public static Options grid(ReplaySettings s, List<Policies> policies, List<Double> globalRatios, List<Double> rates,
        List<Double> overloads, List<Double> hitRatios) {
      return new Options(s, Plan.GRID, null, policies != null ? policies : Policies.defaults(),
          globalRatios != null ? globalRatios : List.of(s.globalRatio), rates != null ? rates : List.of(s.rateScale),
          overloads != null ? overloads : List.of(s.overload), hitRatios != null ? hitRatios : List.of(s.hitRatio),
          "", null, 0, null, true, null);
    }

    /** The audit sweep ({@link Plan#AUDIT}). */
    public static Options audit(ReplaySettings s, AuditPlan.RateGrid grid) {
      List<Policies> pol = new ArrayList<>(AuditPlan.POLICIES);
      pol.addAll(AuditPlan.ABLATION);
      if (s.recordedRouting != null) pol.add(Policies.AS_RECORDED); // the trace's own router, judged by default
      List<Double> os = new ArrayList<>(AuditPlan.OVERLOADS);
      os.add(0, s.overload);
      List<Double> hs = new ArrayList<>(AuditPlan.HIT_RATIOS);
      hs.add(0, s.hitRatio);
      return new Options(s, Plan.AUDIT, grid, pol, AuditPlan.GLOBAL_RATIOS, List.of(), os, hs, "", null, 0, null, true, null);
    }

    /** The audit sweep's curves for {@code policies} x {@code globalRatios} ({@link Plan#CUSTOM}). */
    public static Options custom(ReplaySettings s, AuditPlan.RateGrid grid, List<Policies> policies, List<Double> globalRatios) {
      return new Options(s, Plan.CUSTOM, grid, policies, globalRatios, List.of(), List.of(s.overload), List.of(s.hitRatio),
          "", null, 0, null, true, null);
    }

    public Options withTraceLabel(String label) {
      return new Options(settings, plan, rateGrid, policies, globalRatios, rates, overloads, hitRatios, label, currentRouter,
          bootstrap, conditions, useSpark, capacity);
    }

    public Options withCurrentRouter(String router) {
      return new Options(settings, plan, rateGrid, policies, globalRatios, rates, overloads, hitRatios, traceLabel, router,
          bootstrap, conditions, useSpark, capacity);
    }

    public Options withBootstrap(int replicates) {
      return new Options(settings, plan, rateGrid, policies, globalRatios, rates, overloads, hitRatios, traceLabel,
          currentRouter, replicates, conditions, useSpark, capacity);
    }

    /** The conditions sweep's parameters (null or empty = no conditions sweep). */
    public Options withConditions(List<Conditions.Param> params) {
      return new Options(settings, plan, rateGrid, policies, globalRatios, rates, overloads, hitRatios, traceLabel,
          currentRouter, bootstrap, params, useSpark, capacity);
    }

    /** The capacity search's options (null = none). */
    public Options withCapacity(io.smetric.audit.replay.sweep.Capacity.Options c) {
      return new Options(settings, plan, rateGrid, policies, globalRatios, rates, overloads, hitRatios, traceLabel,
          currentRouter, bootstrap, conditions, useSpark, c);
    }

    public Options withUseSpark(boolean spark) {
      return new Options(settings, plan, rateGrid, policies, globalRatios, rates, overloads, hitRatios, traceLabel,
          currentRouter, bootstrap, conditions, spark, capacity);
    }
  }

  /** The Spark job group of the sweep's simulations (cancelled as a whole if one batch fails). */
  public static final String SWEEP_GROUP = "smetric-replay-sweep";
  /** The Spark job group of the jobs that write the stage's tables once the sweep has run. */
  public static final String WRITE_GROUP = "smetric-replay-write";

  private final SparkSession spark;
  /** Dropped (null) once written to the sweep's Arrow folder, so the driver holds nothing trace-sized. */
  private ReplayTrace trace;
  private final TraceSummary summary;
  private final Options options;
  /** The options' settings (a value). */
  private final ReplaySettings base;
  /**
   * Simulation wall time a sweep job should carry, against the fixed cost of a Spark job (task
   * set, closure, persisted block, collect: a fraction of a CPU-second in local mode). An
   * engineering setting, not a model parameter: it moves no result (run ids and outputs do not
   * depend on how simulations are grouped into jobs, ScheduleTest), only how many jobs a sweep
   * sends and how soon a track moves on.
   */
  static final double JOB_SECONDS = 10;
  private boolean ran;
  /** What the sweep simulates, round by round. */
  private final ReplayPlanning planning;
  private SweepProgress.Listener progressListener;
  /** The running sweep's progress estimate (null outside {@link #run}). */
  private SweepProgress progress;

  /** Builds the plan the options ask for (the audit and custom plans derive their rates from the trace). */
  public ReplayJob(SparkSession spark, ReplayTrace trace, Options options) {
    this.spark = spark;
    this.trace = trace;
    this.summary = TraceSummary.of(trace);
    this.options = options;
    this.base = options.settings();
    this.planning = new ReplayPlanning(trace, options, base, summary);
  }

  public Options options() {
    return options;
  }

  public TraceSummary traceSummary() {
    return summary;
  }

  /**
   * Receives the sweep's progress (simulations done of the expected total, time left) after each
   * batch of results, from the thread that completed it; set before {@link #run}.
   */
  public ReplayJob onProgress(SweepProgress.Listener listener) {
    this.progressListener = listener;
    return this;
  }

  /**
   * Runs batches of simulations: as Spark tasks reading the trace from an Arrow folder written
   * once (the driver then drops its copy), or one after another in the driver. Keeps every full
   * result where the series tables can be written from (executor disks or the driver), and
   * returns the summaries of each batch.
   */
  private final class Runner implements AutoCloseable {
    private final OutputDir out;
    final boolean spark;
    private String traceDir;
    private final List<JavaRDD<RunResult>> rdds = new ArrayList<>();
    /** The batches with main-sweep runs: the only ones the series tables read. */
    private final List<JavaRDD<RunResult>> mainRdds = new ArrayList<>();
    private final List<RunResult> local = new ArrayList<>();
    private java.util.concurrent.ExecutorService pool;
    private Sweep.Shared shared;

    Runner(OutputDir out, boolean useSpark) {
      this.out = out;
      this.spark = useSpark;
    }

    /**
     * Runs specs already numbered (by the {@link Schedule}); completes with their summaries. In
     * the driver: at once, one simulation after another. As Spark: a job of its own submitted
     * from a pool thread, so that several batches (tracks of the sweep) queue at once and no core
     * waits for another batch's last simulation.
     */
    CompletableFuture<List<RunResult>> submit(List<SimSpec> numbered) {
      for (SimSpec s : numbered) s.apply(base).validate(Policies::checkConfigs);
      if (!spark) {
        List<RunResult> full = Sweep.runLocal(trace, base, numbered);
        List<RunResult> sums = new ArrayList<>();
        for (RunResult r : full) {
          if (r.spec().isMain()) local.add(r);
          sums.add(r.summary());
        }
        return CompletableFuture.completedFuture(sums);
      }
      if (traceDir == null) {
        traceDir = out.child("_replay_trace");
        TraceFile.write(trace, traceDir, ReplayJob.this.spark.sparkContext().hadoopConfiguration());
        trace = null;
        shared = Sweep.Shared.of(ReplayJob.this.spark, traceDir, base);
        // Spark's scheduler serves concurrent jobs first come, first served; a few more batches
        // queued than there are cores keep every core busy
        int cores = JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext()).defaultParallelism();
        pool = java.util.concurrent.Executors.newFixedThreadPool(Math.max(4, 4 * cores), r -> {
          Thread t = new Thread(r, "replay-sweep-submit");
          t.setDaemon(true);
          return t;
        });
      }
      return CompletableFuture.supplyAsync(() -> {
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext());
        jsc.setJobGroup(SWEEP_GROUP, "replay: " + numbered.size() + " simulation(s)", true);
        JavaRDD<RunResult> full = Sweep.runSpark(ReplayJob.this.spark, shared, numbered);
        synchronized (rdds) {
          rdds.add(full);
          if (numbered.stream().anyMatch(SimSpec::isMain)) mainRdds.add(full);
        }
        return Sweep.summaries(full);
      }, pool);
    }

    /** Cancels the sweep's batches still queued or running. */
    void cancel() {
      if (spark && pool != null) JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext()).cancelJobGroup(SWEEP_GROUP);
    }

    /** Writes the series tables of the main sweep's runs, under their final run ids ({@code finalIds}[provisional]). */
    void writeSeries(int[] finalIds, SameSimulations same) {
      // main-sweep runs that took another main run's simulation, by the provisional id they took
      Map<Integer, List<SimSpec>> copiesOf = new HashMap<>();
      Map<Integer, Integer> copyOf = same.copyOf();
      same.copies().forEach((id, spec) -> {
        if (spec.isMain()) copiesOf.computeIfAbsent(copyOf.get(id), k -> new ArrayList<>()).add(spec);
      });
      if (!spark) {
        List<RunResult> fulls = new ArrayList<>(local);
        for (RunResult full : local) {
          for (SimSpec c : copiesOf.getOrDefault(full.spec().runId(), List.of())) fulls.add(full.copyAs(c));
        }
        List<RunResult> finals = new ArrayList<>(fulls.size());
        for (RunResult full : fulls) finals.add(full.withRunId(finalIds[full.spec().runId()]));
        writer().writeSeries(out, finals);
        return;
      }
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext());
      if (mainRdds.isEmpty()) {
        writer().writeSeries(out, (JavaRDD<RunResult>) null);
        return;
      }
      JavaRDD<RunResult> all = mainRdds.size() == 1 ? mainRdds.get(0) : jsc.union(mainRdds.toArray(new JavaRDD[0]));
      if (!copiesOf.isEmpty()) {
        HashMap<Integer, List<SimSpec>> c = new HashMap<>(copiesOf);
        all = all.union(all.filter(r -> c.containsKey(r.spec().runId()))
            .flatMap(r -> c.get(r.spec().runId()).stream().map(r::copyAs).iterator()));
      }
      // a batch per track makes hundreds of one-partition RDDs: a task per partition would write a
      // file each and deserialize the whole union's lineage each; a few tasks per core read them all
      int parts = Math.min(all.getNumPartitions(), 8 * jsc.defaultParallelism());
      JavaRDD<RunResult> main = all.coalesce(parts).filter(r -> r.spec().isMain())
          .map(r -> r.withRunId(finalIds[r.spec().runId()]));
      writer().writeSeries(out, main);
    }

    @Override
    public void close() {
      if (!spark) return;
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext());
      if (pool != null) pool.shutdownNow();
      for (JavaRDD<RunResult> r : rdds) r.unpersist(false);
      if (shared != null) shared.destroy();
      jsc.clearJobGroup();
      if (traceDir != null) {
        TraceCache.evict(traceDir);
        Sweep.deleteQuietly(ReplayJob.this.spark, traceDir);
      }
    }
  }

  /**
   * Runs the sweep and writes the stage's output into {@code out} (not committed): replay.json and
   * the tables of {@link AuditLayout#REPLAY_TABLES}. The sweep's scratch copy of the trace is
   * deleted again.
   *
   * @throws UsageException when no asked-for policy can run on the trace, or the current router is not replayed
   */
  public Result run(OutputDir out) {
    if (ran) throw new IllegalStateException("a ReplayJob runs once: it has let its trace go");
    ran = true;
    base.validate(Policies::checkConfigs);
    planning.choosePolicies(trace);
    List<String> skipped = planning.skipped();
    long t0 = System.nanoTime();
    try (Runner runner = new Runner(out, options.useSpark() && !planning.singleSimulation())) {
      int cores = JavaSparkContext.fromSparkContext(spark.sparkContext()).defaultParallelism();
      SameSimulations same = new SameSimulations(runner::submit, base);
      progress = new SweepProgress(cores, progressListener);
      SweepProgress counted = progress;
      Schedule.Engine engine = specs -> same.submit(specs).thenApply(r -> {
        counted.back(r);
        return r;
      });
      Schedule schedule = runner.spark ? new Schedule(engine, cores, JOB_SECONDS) : new Schedule(engine);
      Schedule.Group first = planning.first(progress);
      progress.announce();
      List<RunResult> results;
      try {
        results = new ArrayList<>(schedule.run(List.of(first)));
      } catch (RuntimeException | Error e) {
        runner.cancel(); // the other batches of a failed sweep stop too
        throw e;
      }
      progress.announce(); // every part finished or dropped: the exact count
      Map<Integer, Integer> sameAs = SameSimulations.sameAs(results, base);
      results = new ArrayList<>(SameSimulations.creditLowest(results, sameAs));
      planning.finish(results, schedule.rounds(0));
      double wall = (System.nanoTime() - t0) / 1e9;
      spark.sparkContext().setJobGroup(WRITE_GROUP, "replay: writing the tables of " + results.size() + " simulations", false);
      try {
        runner.writeSeries(schedule.finalIds(), same);
        return new Result(results.size(), skipped, results, wall, writer().write(out, planning.swept(results, wall, sameAs)));
      } finally {
        spark.sparkContext().clearJobGroup();
      }
    }
  }

  /** The stage's writer: the series tables, then the runs and headline tables and replay.json. */
  private ReplayWriter writer() {
    return new ReplayWriter(spark, options, base, summary, planning.plan(), planning.referenceOverload(),
        planning.referenceHitRatio());
  }
}
