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
import io.smetric.audit.replay.sweep.SweepSummary;
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
 * needs the trace cannot meet are skipped with the reason (docs/replay.md). The job plans and runs
 * the sweep; what it writes once the sweep is done, and how, is {@link ReplayWriter}.
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
   * {@code ReplayOptions} mixin). {@link #settings()} is a copy: the record keeps its own.
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
      settings = Objects.requireNonNull(settings, "settings").copy();
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

    /** A copy of the base settings (the record's own cannot be changed through it). */
    @Override
    public ReplaySettings settings() {
      return settings.copy();
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
  /** The job's own copy of the options' settings. */
  private final ReplaySettings base;
  /** The audit or custom plan (run in rounds); null for a grid. */
  private final AuditPlan plan;
  /**
   * Simulation wall time a sweep job should carry, against the fixed cost of a Spark job (task
   * set, closure, persisted block, collect: a fraction of a CPU-second in local mode). An
   * engineering setting, not a model parameter: it moves no result (run ids and outputs do not
   * depend on how simulations are grouped into jobs, ScheduleTest), only how many jobs a sweep
   * sends and how soon a track moves on.
   */
  static final double JOB_SECONDS = 10;
  private boolean ran;
  private int conditionRuns;
  private int bootstrapRuns;
  private String bootstrapSkipped;
  private ObjectNode conditionsJson;
  private Conditions conditionsPlan;
  private io.smetric.audit.replay.sweep.EqualLoad equalLoad;
  private int refinedCurves;
  private int equalLoadRuns;
  /** The capacity search (null: not run). */
  private io.smetric.audit.replay.sweep.Capacity capacity;
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
    this.plan = switch (options.plan()) {
      case AUDIT -> AuditPlan.of(trace, base, options.rateGrid());
      case CUSTOM -> AuditPlan.custom(trace, base, options.rateGrid(), options.policies(), options.globalRatios());
      case GRID -> null;
    };
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
    List<Policies> policies = options.policies();
    String currentRouter = options.currentRouter();
    List<Policies> runnable = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (Policies p : policies) {
      List<String> why = p.unmet(trace, base);
      if (why.isEmpty()) runnable.add(p);
      else skipped.add(p.cliName() + ": not applicable: " + String.join("; ", why));
    }
    if (runnable.isEmpty()) throw new UsageException("no requested policy can run on this trace: " + skipped);
    if (currentRouter != null) {
      Policies cr = Policies.byName(currentRouter);
      if (SweepSummary.isSmetricFamily(cr.cliName())) {
        throw new UsageException("--current-router: " + currentRouter + " is SMetric itself or one of its variants; name the router you run today");
      }
      if (!runnable.contains(cr)) {
        throw new UsageException("--current-router " + currentRouter + " is not replayed"
            + (policies.contains(cr) ? " (not applicable to this trace: " + String.join("; ", cr.unmet(trace, base)) + ")" : "; add it to --policies"));
      }
    }
    java.util.Set<String> ok = new java.util.HashSet<>();
    for (Policies p : runnable) ok.add(p.cliName());
    List<SimSpec> grid = plan == null
        ? Sweep.grid(runnable, options.globalRatios(), options.rates(), options.overloads(), options.hitRatios()) : null;
    long t0 = System.nanoTime();
    try (Runner runner = new Runner(out, options.useSpark() && (plan != null || grid.size() > 1))) {
      int cores = JavaSparkContext.fromSparkContext(spark.sparkContext()).defaultParallelism();
      SameSimulations same = new SameSimulations(runner::submit, base);
      progress = new SweepProgress(cores, progressListener);
      SweepProgress counted = progress;
      Schedule.Engine engine = specs -> same.submit(specs).thenApply(r -> {
        counted.back(r);
        return r;
      });
      Schedule schedule = runner.spark ? new Schedule(engine, cores, JOB_SECONDS) : new Schedule(engine);
      Schedule.Group first;
      if (plan == null) {
        progress.expectExactly("grid", grid.size());
        first = new Schedule.Group(0, List.of(counted("grid", once(grid))), this::afterMainSweep);
      } else {
        // every curve's knee search is a track of its own: the anchors (SMetric at each global
        // ratio) and the cold curves first, then the curves warm-started from their anchor's knee;
        // the replicates and the conditions sweep need the whole main sweep, then run beside each other
        List<AuditPlan.Curve> planned = new ArrayList<>();
        for (var c : plan.curves()) {
          if (!ok.contains(c.policy())) continue;
          planned.add(c);
          progress.expect("curve " + c, plan.anchorOf(c, ok) == null ? "cold curve" : "warm curve", plan.expectedPoints(c, ok));
        }
        expectAfterMainSweep(planned);
        first = plan.mainSweep(ok, (c, t) -> counted("curve " + c, t), this::afterMainSweep);
      }
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
      if (plan != null) plan.rounds(schedule.rounds(0));
      if (conditionsPlan != null) {
        conditionsJson = conditionsPlan.describe(results);
        conditionsJson.put("simulations", conditionRuns);
      }
      double wall = (System.nanoTime() - t0) / 1e9;
      spark.sparkContext().setJobGroup(WRITE_GROUP, "replay: writing the tables of " + results.size() + " simulations", false);
      try {
        runner.writeSeries(schedule.finalIds(), same);
        return new Result(results.size(), skipped, results, wall, write(out, results, skipped, wall, sameAs));
      } finally {
        spark.sparkContext().clearJobGroup();
      }
    }
  }

  /** A track whose batches the progress estimate counts under {@code part}. */
  private Schedule.Track counted(String part, Schedule.Track t) {
    return all -> {
      List<SimSpec> n = t.next(all);
      progress.batch(part, n.size());
      return n;
    };
  }

  /**
   * Placeholders for what the main sweep's results will plan: the refinement, the reference
   * bisections, the equal-load runs, the replicates and the conditions sweep.
   */
  private void expectAfterMainSweep(List<AuditPlan.Curve> curves) {
    double[] e = SweepProgress.equalLoadBefore(curves, options.currentRouter(),
        plan != null && plan.grid() == AuditPlan.RateGrid.ADAPTIVE);
    progress.expect("refine", e[0]);
    progress.expect("reference", e[1]);
    progress.expect("equal load", e[2]);
    boolean resampled = options.bootstrap() > 0 && base.kvModel != ReplaySettings.KvModel.REFERENCE && summary.sessionTrees() >= 2;
    if (resampled) {
      progress.expect("replicates", SweepProgress.replicatesBefore(options.bootstrap(), curves, options.currentRouter()));
    }
    if (options.capacity().enabled()) {
      // SMetric and the judged router at two capacities, about 5 pass/fail runs at x1 and 3 per growth factor;
      // then the sized point (4 runs) and the interval's searches (as planned in afterReference), which it plans too
      progress.expect("capacity", 4 * (5.0 + 3.0 * options.capacity().growth().size()) + 4
          + (resampled ? INTERVAL_RUNS * 2 * options.bootstrap() : 0));
    }
    if (!options.conditions().isEmpty()) {
      double[] c = SweepProgress.conditionsBefore(base, options.conditions());
      progress.expect("conditions", c[0]);
      progress.expect("conditions grid", c[1]);
    }
  }

  /** Pass/fail runs one replicate's capacity search is expected to take (progress estimate). */
  private static final double INTERVAL_RUNS = 2.0;

  /** A track of one batch. */
  private static Schedule.Track once(List<SimSpec> specs) {
    boolean[] sent = {false};
    return all -> {
      if (sent[0]) return List.of();
      sent[0] = true;
      return specs;
    };
  }

  /**
   * What follows the coarse main sweep: the refinement of the compared routers' knees (phase 0,
   * {@link io.smetric.audit.replay.sweep.EqualLoad#refinedCurves}; the adaptive audit and custom
   * plans), then {@link #afterRefinement}.
   */
  private List<Schedule.Group> afterMainSweep(List<RunResult> main) {
    if (plan == null || plan.grid() != AuditPlan.RateGrid.ADAPTIVE) {
      progress.drop("refine");
      return afterRefinement(main);
    }
    // (the fixed grid: no refinement; the reference rates are still bisected)
    SweepSummary coarse = new SweepSummary(main, referenceOverload(), referenceHitRatio());
    List<Schedule.Track> refine = new ArrayList<>();
    for (AuditPlan.Curve c : io.smetric.audit.replay.sweep.EqualLoad.refinedCurves(coarse, options.currentRouter())) {
      refine.add(io.smetric.audit.replay.sweep.EqualLoad.refineTrack(c));
    }
    refinedCurves = refine.size();
    progress.drop("refine");
    if (refine.isEmpty()) return afterRefinement(main);
    List<Schedule.Track> counted = new ArrayList<>();
    for (int i = 0; i < refine.size(); i++) {
      progress.expect("refine " + i, SweepProgress.REFINE_POINTS);
      counted.add(counted("refine " + i, refine.get(i)));
    }
    return List.of(new Schedule.Group(0, counted, this::afterRefinement));
  }

  /**
   * After the refinement: the bisection of each judged router's reference rate (phase 0, the rate
   * 1.0x of the equal-load comparison stands for), then {@link #afterReference}.
   */
  private List<Schedule.Group> afterRefinement(List<RunResult> main) {
    progress.drop("reference");
    if (plan == null) return afterReference(main);
    SweepSummary refined = new SweepSummary(main, referenceOverload(), referenceHitRatio());
    List<Schedule.Track> ref = new ArrayList<>();
    for (AuditPlan.Curve c : io.smetric.audit.replay.sweep.EqualLoad.judgedCurves(refined, options.currentRouter())) {
      String part = "reference " + ref.size();
      progress.expect(part, SweepProgress.REFERENCE_POINTS);
      ref.add(counted(part, io.smetric.audit.replay.sweep.EqualLoad.referenceTrack(c, plan.rateReference())));
    }
    if (ref.isEmpty()) return afterReference(main);
    return List.of(new Schedule.Group(0, ref, this::afterReference));
  }

  /**
   * What follows the reference rates: the equal-load runs (phase 0, main-sweep runs at the
   * normalised loads), the paired bootstrap replicates at the decision load (phase 1) and the
   * conditions sweep at the verdict's operating point (phase 2), side by side.
   */
  private List<Schedule.Group> afterReference(List<RunResult> main) {
    List<Schedule.Group> next = new ArrayList<>();
    int bootstrap = options.bootstrap();
    SweepSummary mainSum = new SweepSummary(main, referenceOverload(), referenceHitRatio());
    equalLoad = io.smetric.audit.replay.sweep.EqualLoad.plan(mainSum, options.currentRouter(), main);
    List<SimSpec> eq = equalLoad.specs(main);
    // a grid sweep (--rate-scale) gets them too: its verdict reads the same equal-load gains; its
    // judged routers' reference rates are the grid's own (no bisection: the resolution says how coarse)
    equalLoadRuns = eq.size();
    progress.expectExactly("equal load", eq.size());
    if (!eq.isEmpty()) next.add(Schedule.Group.of(0, List.of(counted("equal load", once(eq)))));
    if (bootstrap > 0) {
      if (base.kvModel == ReplaySettings.KvModel.REFERENCE) {
        bootstrapSkipped = "the block-by-block reference KV model cannot resample session trees";
      } else if (summary.sessionTrees() < 2) {
        bootstrapSkipped = "fewer than two session trees to resample";
      } else {
        List<SimSpec> reps = equalLoad.replicates(bootstrap);
        bootstrapRuns = reps.size();
        progress.expectExactly("replicates", reps.size());
        if (!reps.isEmpty()) next.add(Schedule.Group.of(1, List.of(counted("replicates", once(reps)))));
      }
    }
    if (!options.conditions().isEmpty() && plan != null) {
      conditionsPlan = Conditions.plan(mainSum, base, equalLoad, options.conditions());
      progress.drop("conditions");
      if (conditionsPlan.notApplicable() != null) progress.drop("conditions grid");
      next.add(new Schedule.Group(2, conditionTracks(conditionsPlan.pointKeys()), all -> {
        List<String> before = conditionsPlan.pointKeys();
        conditionsPlan.planGrid(all);
        List<String> grid = new ArrayList<>(conditionsPlan.pointKeys());
        grid.removeAll(before);
        progress.drop("conditions grid");
        return List.of(Schedule.Group.of(2, conditionTracks(grid)));
      }));
    } else {
      progress.drop("conditions");
      progress.drop("conditions grid");
    }
    if (bootstrapRuns == 0) progress.drop("replicates");
    progress.drop("capacity");
    if (options.capacity().enabled() && plan != null) {
      // beside the equal-load runs, replicates and conditions: it needs only the refined curves and the anchors
      capacity = io.smetric.audit.replay.sweep.Capacity.plan(options.capacity(), base, equalLoad, mainSum, main);
      if (capacity.chainCount() == 0) capacity = null;
      List<Schedule.Track> tracks = new ArrayList<>();
      List<Schedule.Track> searches = capacity == null ? List.of() : capacity.tracks();
      int i = 0;
      for (Schedule.Track t : searches) {
        String part = "capacity " + i++;
        progress.expect(part, "capacity search", capacity.expectedSimulations() / searches.size());
        tracks.add(counted(part, t));
      }
      if (!tracks.isEmpty()) {
        progress.expect("sized point", 4);
        // then the second operating point: both routers as full runs on the cluster sized for the judged router
        int reps = bootstrapRuns > 0 ? bootstrap : 0;
        // the interval's replicates: about 2 runs per router and replicate (a search from a guess on the answer or 1 below it)
        if (reps > 0) progress.expect("capacity interval", INTERVAL_RUNS * 2 * reps);
        next.add(new Schedule.Group(3, tracks, all -> {
          List<SimSpec> sized = capacity.sizedSpecs();
          progress.expectExactly("sized point", sized.size());
          List<Schedule.Group> then = new ArrayList<>();
          if (!sized.isEmpty()) then.add(Schedule.Group.of(3, List.of(counted("sized point", once(sized)))));
          // the instance count's bootstrap interval, beside the sized point (issue 29 item 1): the first waves'
          // group, whose continuation plans the second waves; the placeholder counts the tracks not yet made
          int[] made = {0};
          int[] planned = {Integer.MAX_VALUE};
          then.addAll(capacity.intervalGroups(reps, (part, t) -> {
            progress.expect(part, "capacity interval", INTERVAL_RUNS);
            made[0]++;
            if (planned[0] != Integer.MAX_VALUE) progress.expect("capacity interval", INTERVAL_RUNS * (planned[0] - made[0]));
            return counted(part, t);
          }));
          planned[0] = capacity.intervalSearches();
          progress.expect("capacity interval", INTERVAL_RUNS * (planned[0] - made[0]));
          return then;
        }));
      }
    }
    return next;
  }

  private List<Schedule.Track> conditionTracks(List<String> keys) {
    List<Schedule.Track> out = new ArrayList<>();
    double expected = SweepProgress.conditionPointSimulations();
    for (String k : keys) {
      progress.expect("condition " + k, expected);
      out.add(counted("condition " + k, all -> {
        List<SimSpec> n = conditionsPlan.next(k, all);
        conditionRuns += n.size();
        return n;
      }));
    }
    return out;
  }

  /** The thresholds the comparison and ablation read: the base's, or the first swept value if the base's was not swept. */
  private double referenceOverload() {
    List<Double> overloads = options.overloads();
    return overloads.contains(base.overload) ? base.overload : overloads.get(0);
  }

  private double referenceHitRatio() {
    List<Double> hitRatios = options.hitRatios();
    return hitRatios.contains(base.hitRatio) ? base.hitRatio : hitRatios.get(0);
  }

  /** The stage's writer: the series tables, then the runs and headline tables and replay.json. */
  private ReplayWriter writer() {
    return new ReplayWriter(spark, options, base, summary, plan, referenceOverload(), referenceHitRatio());
  }

  /** Writes the runs and headline tables and replay.json; returns replay.json. */
  private ObjectNode write(OutputDir out, List<RunResult> results, List<String> skipped, double wall,
      Map<Integer, Integer> sameAs) {
    return writer().write(out, new ReplayWriter.Swept(results, skipped, wall, sameAs, equalLoad, refinedCurves,
        equalLoadRuns, capacity, conditionsJson, bootstrapRuns, bootstrapSkipped));
  }
}
