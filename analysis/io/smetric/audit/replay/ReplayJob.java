package io.smetric.audit.replay;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.contract.ReplayComparison;
import io.smetric.audit.contract.ReplayTables;
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
import java.util.TreeSet;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * The replay stage as one job (docs/architecture.md, "Stage jobs"; Iceberg's Spark actions are
 * the model): a loaded trace and one immutable {@link Options} record in; {@link #run} runs the
 * sweep (its batches under the job group {@link #SWEEP_GROUP}) and writes the stage's output into
 * the folder it is given, under the job group {@link #WRITE_GROUP}: replay.json and the Parquet
 * tables named in the contract's {@link AuditLayout} ({@link AuditLayout#REPLAY_TABLES}); an
 * immutable {@link Result} out. The folder is not committed: the caller owns it. Policies whose
 * needs the trace cannot meet are skipped with the reason (docs/replay.md).
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
      for (SimSpec s : numbered) s.apply(base).validate();
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

    /** Writes the series tables of the main sweep's runs, under their final run ids ({@code finalIds}[provisional]). */
    void cancel() {
      if (spark && pool != null) JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext()).cancelJobGroup(SWEEP_GROUP);
    }

    void writeSeries(int[] finalIds, SameSimulations same) {
      // main-sweep runs that took another main run's simulation, by the provisional id they took
      Map<Integer, List<SimSpec>> copiesOf = new HashMap<>();
      Map<Integer, Integer> copyOf = same.copyOf();
      same.copies().forEach((id, spec) -> {
        if (spec.isMain()) copiesOf.computeIfAbsent(copyOf.get(id), k -> new ArrayList<>()).add(spec);
      });
      if (!spark) {
        List<Row> cdf = new ArrayList<>();
        List<Row> win = new ArrayList<>();
        List<Row> inst = new ArrayList<>();
        List<RunResult> fulls = new ArrayList<>(local);
        for (RunResult full : local) {
          for (SimSpec c : copiesOf.getOrDefault(full.spec().runId(), List.of())) fulls.add(full.copyAs(c));
        }
        try {
          for (RunResult full : fulls) {
            RunResult r = full.withRunId(finalIds[full.spec().runId()]);
            new CdfRows().call(r).forEachRemaining(cdf::add);
            new WindowRows(base.imbalanceWindowS).call(r).forEachRemaining(win::add);
            new InstanceRows().call(r).forEachRemaining(inst::add);
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext());
        ReplayJob.this.writeSeries(out, jsc.parallelize(cdf, 1), jsc.parallelize(win, 1), jsc.parallelize(inst, 1));
        return;
      }
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(ReplayJob.this.spark.sparkContext());
      if (mainRdds.isEmpty()) {
        ReplayJob.this.writeSeries(out, jsc.emptyRDD(), jsc.emptyRDD(), jsc.emptyRDD());
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
      ReplayJob.this.writeSeries(out, main.flatMap(new CdfRows()), main.flatMap(new WindowRows(base.imbalanceWindowS)),
          main.flatMap(new InstanceRows()));
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
    base.validate();
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
        // every curve's knee search is a track of its own; the replicates and the conditions
        // sweep need the whole main sweep, then run beside each other
        List<Schedule.Track> curves = new ArrayList<>();
        List<AuditPlan.Curve> planned = new ArrayList<>();
        for (var c : plan.curves()) {
          if (!ok.contains(c.policy())) continue;
          planned.add(c);
          progress.expect("curve " + c, plan.expectedPoints(c));
          curves.add(counted("curve " + c, all -> plan.next(c, all)));
        }
        expectAfterMainSweep(planned);
        first = new Schedule.Group(0, curves, this::afterMainSweep);
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

  /**
   * The verdict's gains in the judged block (docs/replay.md "replay.json"): SMetric over the judged
   * router at equal load (the decision load) at the declared capacity and at capacity 0, each with
   * its paired interval; the smallest capacity whose gain there clears the threshold. The
   * maximum-TPS comparison stays beside them ({@code by_global_ratio}), descriptive.
   */
  private void judgeAtEqualLoad(ObjectNode judged, ObjectNode described) {
    judged.remove("smetric_best_gain_with_global_tier");
    judged.put("basis", "equal load: SMetric and the judged router at the same offered rate, "
        + io.smetric.audit.replay.sweep.EqualLoad.DECISION_LOAD + "x the judged router's knee at each capacity "
        + "(replay.json equal_load); by_global_ratio compares the routers' maxima at their own rates, descriptive");
    double gd = equalLoad.declaredGlobalRatio();
    ObjectNode with = Double.isNaN(gd) ? null : io.smetric.audit.replay.sweep.EqualLoad.decisionGain(described, gd);
    if (with == null) {
      with = Json.object();
      with.putNull(Metric.VALUE);
      with.put(Metric.NOT_APPLICABLE, Double.isNaN(gd) ? "no global-tier capacity above 0 with SMetric and a judged router in the sweep"
          : "SMetric or the judged router has no run at the decision load at " + gd + "x");
    }
    judged.set(ReplayComparison.GAIN_WITH_GLOBAL, with);
    ObjectNode without = io.smetric.audit.replay.sweep.EqualLoad.decisionGain(described, 0.0);
    if (without == null) {
      without = Json.object();
      without.putNull(Metric.VALUE);
      without.put(Metric.NOT_APPLICABLE, "global ratio 0 with SMetric and a judged router is not in the sweep, or has no run at the decision load");
    }
    judged.set(ReplayComparison.GAIN_NO_GLOBAL, without);
    ObjectNode mg = judged.putObject(ReplayComparison.MIN_GLOBAL_RATIO);
    Double minG = null;
    for (double g : equalLoad.anchors().keySet()) {
      if (g <= 0) continue;
      ObjectNode d = io.smetric.audit.replay.sweep.EqualLoad.decisionGain(described, g);
      if (d != null && d.path(Metric.VALUE).isNumber() && d.path(Metric.VALUE).asDouble() >= SweepSummary.GAIN_THRESHOLD
          && (minG == null || g < minG)) {
        minG = g;
      }
    }
    if (minG != null) mg.put(Metric.VALUE, minG);
    else mg.putNull(Metric.VALUE);
    mg.put(ReplayComparison.MinGlobalRatio.THRESHOLD, SweepSummary.GAIN_THRESHOLD);
    mg.put("rule", "the smallest capacity above 0 whose equal-load gain at the decision load clears the threshold");
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
    if (options.bootstrap() > 0 && base.kvModel != ReplaySettings.KvModel.REFERENCE && summary.sessionTrees() >= 2) {
      progress.expect("replicates", SweepProgress.replicatesBefore(options.bootstrap(), curves, options.currentRouter()));
    }
    if (options.capacity().enabled()) {
      // SMetric and the judged router at two capacities, about 5 pass/fail runs at x1 and 3 per growth factor
      progress.expect("capacity", 4 * (5.0 + 3.0 * options.capacity().growth().size()));
    }
    if (!options.conditions().isEmpty()) {
      double[] c = SweepProgress.conditionsBefore(base, options.conditions());
      progress.expect("conditions", c[0]);
      progress.expect("conditions grid", c[1]);
    }
  }

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
        progress.expect(part, capacity.expectedSimulations() / searches.size());
        tracks.add(counted(part, t));
      }
      if (!tracks.isEmpty()) {
        progress.expect("sized point", 4);
        // then the second operating point: both routers as full runs on the cluster sized for the judged router
        int reps = bootstrapRuns > 0 ? bootstrap : 0;
        // the interval's replicates: about 2 runs per router and replicate (N and N - 1)
        if (reps > 0) progress.expect("capacity interval", 2.0 * 2 * reps);
        next.add(new Schedule.Group(3, tracks, all -> {
          List<SimSpec> sized = capacity.sizedSpecs();
          progress.expectExactly("sized point", sized.size());
          List<Schedule.Track> then = new ArrayList<>();
          if (!sized.isEmpty()) then.add(counted("sized point", once(sized)));
          // the instance count's bootstrap interval, beside the sized point (issue 29 item 1)
          List<Schedule.Track> iv = capacity.intervalTracks(reps);
          progress.drop("capacity interval");
          for (int k = 0; k < iv.size(); k++) {
            progress.expect("capacity interval " + k, 2.0 * 2 * reps / iv.size());
            then.add(counted("capacity interval " + k, iv.get(k)));
          }
          return then.isEmpty() ? List.of() : List.of(Schedule.Group.of(3, then));
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

  // ------------------------------------------------------------------ series tables (written by the tasks' side)

  private void writeSeries(OutputDir out, JavaRDD<Row> cdf, JavaRDD<Row> windows, JavaRDD<Row> instances) {
    // one file per table (small), sorted by run for the reader; the instance series can be large
    // (instances x windows per run) and is written in parallel, sorted within each file
    spark.createDataFrame(cdf, ReplayTables.LATENCY_CDF).coalesce(1)
        .sortWithinPartitions(ReplayTables.RUN_ID, ReplayTables.METRIC, ReplayTables.QUANTILE)
        .write().mode(SaveMode.ErrorIfExists).parquet(out.child(AuditLayout.REPLAY_LATENCY_CDF_DIR));
    spark.createDataFrame(windows, ReplayTables.IMBALANCE_WINDOWS).coalesce(1)
        .sortWithinPartitions(ReplayTables.RUN_ID, ReplayTables.WINDOW)
        .write().mode(SaveMode.ErrorIfExists).parquet(out.child(AuditLayout.REPLAY_IMBALANCE_WINDOWS_DIR));
    spark.createDataFrame(instances, ReplayTables.INSTANCE_LOAD).write().mode(SaveMode.ErrorIfExists)
        .parquet(out.child(AuditLayout.REPLAY_INSTANCE_LOAD_DIR));
  }

  private static final class CdfRows implements FlatMapFunction<RunResult, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public java.util.Iterator<Row> call(RunResult r) {
      List<Row> rows = new ArrayList<>();
      addCdf(rows, r.spec().runId(), ReplayTables.TTFT, r.ttftCdf());
      addCdf(rows, r.spec().runId(), ReplayTables.TPOT, r.tpotCdf());
      return rows.iterator();
    }
  }

  private static final class WindowRows implements FlatMapFunction<RunResult, Row> {
    private static final long serialVersionUID = 1L;
    private final double w;

    WindowRows(double w) {
      this.w = w;
    }

    @Override
    public java.util.Iterator<Row> call(RunResult r) {
      double[] imb = r.imbalance();
      List<Row> rows = new ArrayList<>(imb.length);
      for (int k = 0; k < imb.length; k++) {
        rows.add(RowFactory.create(r.spec().runId(), k, k * w, Double.isNaN(imb[k]) ? null : imb[k]));
      }
      return rows.iterator();
    }
  }

  private static final class InstanceRows implements FlatMapFunction<RunResult, Row> {
    private static final long serialVersionUID = 1L;

    /** Lazily, window-major: one run's series can be millions of rows. */
    @Override
    public java.util.Iterator<Row> call(RunResult r) {
      double[][] lw = r.loadWindows();
      int run = r.spec().runId();
      int nInst = lw.length;
      int nw = nInst == 0 ? 0 : lw[0].length;
      return new java.util.Iterator<>() {
        int k;
        int i;

        @Override
        public boolean hasNext() {
          return k < nw && i < nInst;
        }

        @Override
        public Row next() {
          Row row = RowFactory.create(run, k, i, lw[i][k]);
          if (++i == nInst) {
            i = 0;
            k++;
          }
          return row;
        }
      };
    }
  }

  // ------------------------------------------------------------------ output

  /** Writes the runs and headline tables and replay.json; returns replay.json. */
  private ObjectNode write(OutputDir out, List<RunResult> results, List<String> skipped, double wall,
      Map<Integer, Integer> sameAs) {
    TreeSet<String> metricNames = new TreeSet<>();
    for (RunResult r : results) metricNames.addAll(r.metrics().keySet());
    // columns every runs table has, even when no run computed them (a reader can rely on them)
    metricNames.addAll(List.of(ReplayTables.RunMetrics.STICKINESS, ReplayTables.RunMetrics.SESSION_MIGRATIONS,
        ReplayTables.RunMetrics.LOCAL_HIT_RATIO, ReplayTables.RunMetrics.TPOT_P50_S));
    StructType runs = ReplayTables.runs(metricNames);
    long localCap = base.localCapacity(Math.max(1, summary.blockSize()));
    List<Row> runRows = new ArrayList<>();
    for (RunResult r : results) {
      List<Object> v = new ArrayList<>();
      SimSpec s = r.spec();
      v.add(s.runId());
      v.add(s.policy());
      v.add(base.architecture.name().toLowerCase(java.util.Locale.ROOT));
      v.add(s.overrides().containsKey("instances") ? (int) Math.round(s.overrides().get("instances")) : base.instances);
      v.add(localCap == Long.MAX_VALUE ? null : localCap);
      v.add(s.globalRatio());
      v.add(s.rateScale());
      v.add(nullIfNaN(s.overload()));
      v.add(nullIfNaN(s.hitRatio()));
      v.add(r.wallSeconds());
      v.add(r.cpuSeconds());
      v.add(r.notApplicable().isEmpty() ? null : r.notApplicable().toString());
      v.add(s.replicate());
      v.add(s.variant());
      v.add(s.overrides().isEmpty() ? null : overridesJson(s));
      v.add(sameAs.get(s.runId()));
      for (String m : metricNames) v.add(r.metrics().get(m));
      runRows.add(RowFactory.create(v.toArray()));
    }
    save(runRows, runs, out.child(AuditLayout.REPLAY_RUNS_DIR));

    // headline: max TPS within SLO over the offered-rate sweep, per (policy, global ratio, O, H)
    SweepSummary sum = new SweepSummary(results, referenceOverload(), referenceHitRatio());
    StructType head = ReplayTables.HEADLINE;
    List<Row> headRows = new ArrayList<>();
    ArrayNode headJson = Json.MAPPER.createArrayNode();
    for (SweepSummary.Headline hl : sum.headlines()) {
      SimSpec s = hl.best().spec();
      double tps = hl.tps();
      headRows.add(RowFactory.create(s.policy(), s.globalRatio(), nullIfNaN(s.overload()), nullIfNaN(s.hitRatio()), tps,
          s.rateScale(), s.runId()));
      ObjectNode h = headJson.addObject();
      h.put("policy", s.policy());
      h.put("global_ratio", s.globalRatio());
      putNumber(h, "overload", s.overload());
      putNumber(h, "hit_ratio", s.hitRatio());
      h.put("max_tps_within_slo", tps);
      h.put("at_rate_scale", s.rateScale());
      if (hl.edge() == null) h.putNull("at_edge");
      else h.put("at_edge", hl.edge());
      h.put("run_id", s.runId());
    }
    save(headRows, head, out.child(AuditLayout.REPLAY_HEADLINE_DIR));

    ObjectNode root = Json.object();
    root.put("tool", "smetric-audit replay");
    root.put("trace", options.traceLabel());
    ObjectNode tr = root.putObject("trace_summary");
    tr.put("requests", summary.requests());
    tr.put("sessions", summary.sessions());
    tr.put("session_trees", summary.sessionTrees());
    tr.put("block_size", summary.blockSize());
    tr.put("segments", summary.segments());
    tr.put("blocks_referenced", summary.blocksReferenced());
    tr.put("block_count_mismatches", summary.blockCountMismatches());
    tr.put("has_blocks", summary.hasBlocks());
    tr.put("has_sessions", summary.hasSessions());
    tr.put("has_turns", summary.hasTurns());
    root.put("local_capacity_blocks", localCap == Long.MAX_VALUE ? "unbounded" : Long.toString(localCap));
    try {
      root.set("settings", Json.MAPPER.readTree(base.toJson()));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    ArrayNode pol = root.putArray("policies");
    for (Policies p : options.policies()) {
      ObjectNode o = pol.addObject();
      o.put("name", p.cliName());
      o.put("source", p.info().source());
      boolean configured = base.currentRouterConfig != null && p.cliName().equals(options.currentRouter());
      o.put("defaults", configured ? "as configured by --current-router (judged.current_router_config)" : p.info().defaults());
      o.put("needs", new TreeSet<>(p.info().needs().stream().map(Enum::name).toList()).toString());
    }
    ArrayNode sk = root.putArray("skipped");
    skipped.forEach(sk::add);
    if (plan != null) root.set("sweep", plan.describe());
    root.set("global_tier", io.smetric.audit.replay.sim.GlobalTierLimits.describe(base));
    root.set("headline", headJson);
    root.set(ReplayComparison.COMPARISON, sum.comparison());
    root.set("paper_claim", sum.paperClaim());
    root.set("best_router", sum.bestRouter());
    ObjectNode judged = sum.judged(options.currentRouter());
    if (base.currentRouterConfig != null) {
      // the router's own configuration as understood: each knob, its value and where it came from
      ArrayNode cfg = judged.putArray("current_router_config");
      for (io.smetric.audit.replay.RouterKnob k : base.currentRouterConfig) {
        cfg.addObject().put("router", k.router()).put("knob", k.knob()).put("value", k.value()).put("source", k.source());
      }
    }
    root.set(ReplayComparison.JUDGED, judged);
    if (equalLoad != null) {
      ObjectNode el = equalLoad.describe(results);
      judgeAtEqualLoad(judged, el);
      el.put("refined_curves", refinedCurves);
      el.put("simulations", equalLoadRuns);
      root.set(ReplayComparison.EQUAL_LOAD, el);
    }
    if (capacity != null) root.set("capacity", capacity.describe(results));
    else root.putObject("capacity").put("not_applicable", options.capacity().enabled()
        ? "the capacity search needs the audit sweep's equal-load anchors (SMetric and a judged router with a 90%-attainment rate)"
        : "the capacity search was not run (--no-capacity, or not the audit sweep)");
    if (conditionsJson != null) root.set("conditions", conditionsJson);
    else root.putObject("conditions").put("not_applicable", "the conditions sweep was not run (--no-conditions, or not the audit sweep)");
    ObjectNode unc = root.putObject("uncertainty");
    unc.put("replicates", options.bootstrap());
    unc.put("simulations", bootstrapRuns);
    unc.put("resampled", "session trees (a root session with its forks), with replacement, on the trace's tree starts");
    unc.put("method", "bootstrap interval on the log of the TPS ratio, transformed back: exp(u +- 1.96 x sqrt(SE^2 + "
        + "bias^2)) - 1, u = log(1 + gain), SE the standard deviation of the replicates' u, bias their mean - u; paired at equal load: SMetric and the judged router on "
        + "each replicate at the decision load's rate divided by the replicate's offered-token factor (its prompt+output "
        + "tokens over the trace's, replicate_offered_token_factor in its runs), so every replicate offers the trace's "
        + "token rate, at the declared capacity and at 0");
    if (options.bootstrap() == 0) unc.put("not_applicable", "no bootstrap replicates were replayed (--bootstrap 0, or not the audit sweep)");
    else if (bootstrapSkipped != null) unc.put("not_applicable", bootstrapSkipped);
    root.set("preconditions", sum.preconditions(base.reuseIntervalThresholdS));
    ObjectNode abl = sum.ablation();
    if (abl != null) root.set("ablation", abl);
    ObjectNode sens = sum.sensitivity();
    if (sens != null) root.set("sensitivity", sens);
    ArrayNode st = sum.stickiness();
    if (st != null) root.set("stickiness", st);
    ArrayNode rj = root.putArray("runs");
    for (RunResult r : results) {
      ObjectNode o = rj.addObject();
      SimSpec s = r.spec();
      o.put("run_id", s.runId());
      o.put("policy", s.policy());
      o.put("global_ratio", s.globalRatio());
      o.put("rate_scale", s.rateScale());
      putNumber(o, "overload", s.overload());
      putNumber(o, "hit_ratio", s.hitRatio());
      if (s.replicate() != 0) o.put("replicate", s.replicate());
      if (s.variant() != null) {
        o.put("variant", s.variant());
        ObjectNode ov = o.putObject("overrides");
        s.overrides().forEach((k, x) -> putNumber(ov, k, x));
      }
      ObjectNode m = o.putObject("metrics");
      r.metrics().forEach(m::put);
      ObjectNode na = o.putObject("not_applicable");
      r.notApplicable().forEach(na::put);
      o.put("wall_s", r.wallSeconds());
      o.put("cpu_s", r.cpuSeconds());
      Integer same = sameAs.get(s.runId());
      if (same != null) o.put("same_simulation_as", same);
    }
    root.put("wall_s", wall);
    try {
      out.writeString(AuditLayout.REPLAY_FILE, Json.MAPPER.writeValueAsString(root) + "\n");
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    return root;
  }

  private static String overridesJson(SimSpec s) {
    ObjectNode o = Json.object();
    s.overrides().forEach((k, x) -> putNumber(o, k, x));
    return o.toString();
  }

  private static Double nullIfNaN(double v) {
    return Double.isNaN(v) ? null : v;
  }

  /** NaN (not used by the policy) becomes null; Infinity (guard off) is written as the string "Infinity". */
  private static void putNumber(ObjectNode o, String k, double v) {
    if (Double.isNaN(v)) o.putNull(k);
    else if (Double.isInfinite(v)) o.put(k, v > 0 ? "Infinity" : "-Infinity");
    else o.put(k, v);
  }

  private static void addCdf(List<Row> rows, int run, String metric, double[] pts) {
    for (int k = 0; k < pts.length; k++) rows.add(RowFactory.create(run, metric, (double) (k + 1) / pts.length, pts[k]));
  }

  private void save(List<Row> rows, StructType schema, String path) {
    spark.createDataFrame(rows, schema).coalesce(1).write().mode(SaveMode.ErrorIfExists).parquet(path);
  }
}
