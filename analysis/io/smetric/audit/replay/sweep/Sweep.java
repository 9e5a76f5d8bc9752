package io.smetric.audit.replay.sweep;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.TraceResample;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import io.smetric.audit.common.SerializableConf;
import io.smetric.audit.replay.trace.TraceCache;
import io.smetric.audit.replay.trace.TraceFile;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * A replay sweep: the grid of policies x global ratios x offered rates (x OVERLOAD x HIT_RATIO
 * for the SMetric family) run as independent simulations. With a SparkSession each simulation is
 * one Spark task; the tasks read the trace from an Arrow IPC folder ({@link TraceFile}) once per
 * executor JVM. Only {@link RunResult#summary()}s come back to the driver.
 */
public final class Sweep {
  private Sweep() {}

  /** Builds the grid; OVERLOAD and HIT_RATIO only multiply policies that read them. */
  public static List<SimSpec> grid(List<Policies> policies, List<Double> globalRatios, List<Double> rates,
      List<Double> overloads, List<Double> hitRatios) {
    List<SimSpec> out = new ArrayList<>();
    int id = 0;
    for (Policies p : policies) {
      boolean usesO = p == Policies.SMETRIC || p == Policies.SMETRIC_OVERLOAD_ONLY;
      boolean usesH = p == Policies.SMETRIC || p == Policies.SMETRIC_EVICTION_ONLY;
      for (double g : globalRatios) {
        for (double x : rates) {
          for (double o : usesO ? overloads : List.of(Double.NaN)) {
            for (double h : usesH ? hitRatios : List.of(Double.NaN)) {
              out.add(new SimSpec(id++, p.cliName(), g, x, o, h));
            }
          }
        }
      }
    }
    return out;
  }

  /**
   * The trace a spec runs on: the trace itself, or its bootstrap replicate (session trees
   * resampled with the replicate's seed), built once per replicate and kept in {@code cache}
   * (with its offered-token factor, {@link TraceResample#offeredTokenFactor}).
   */
  static ReplayTrace traceFor(ReplayTrace trace, ReplaySettings base, SimSpec spec, Object[] cache) {
    if (spec.replicate() == 0) return trace;
    if (cache[0] == null || (Integer) cache[0] != spec.replicate() || cache[2] != trace) {
      ReplayTrace r = TraceResample.of(trace, TraceResample.replicateSeed(base.seed, spec.replicate()));
      cache[0] = spec.replicate();
      cache[1] = r;
      cache[2] = trace;
      cache[3] = TraceResample.offeredTokenFactor(trace, r);
    }
    return (ReplayTrace) cache[1];
  }

  /** A cache for {@link #traceFor}: one replicate and its offered-token factor. */
  static Object[] replicateCache() {
    return new Object[4];
  }

  /**
   * Runs a spec on its trace ({@link #traceFor}). A replicate runs at equal load (issue 26): at
   * the spec's rate divided by its offered-token factor, so it offers the trace's prompt+output
   * tokens per second at the spec's rate (docs/replay.md, "Uncertainty").
   */
  static RunResult runCached(ReplayTrace trace, ReplaySettings base, SimSpec spec, Object[] cache) {
    ReplayTrace t = traceFor(trace, base, spec, cache);
    return runOne(t, base, spec, spec.replicate() == 0 ? 1.0 : (Double) cache[3]);
  }

  public static RunResult runOne(ReplayTrace trace, ReplaySettings base, SimSpec spec) {
    return runOne(trace, base, spec, 1.0);
  }

  /**
   * Runs one spec; {@code tokenFactor} != 1: the trace is a replicate offering that many times the
   * original's tokens over the same window, run at the spec's rate / tokenFactor (the same rate
   * scaling, so think times inside a session keep under SESSIONS scaling), which offers the
   * original's token rate; the factor is kept as the run's {@code replicate_offered_token_factor}.
   */
  static RunResult runOne(ReplayTrace trace, ReplaySettings base, SimSpec spec, double tokenFactor) {
    ReplaySettings s = base.with(b -> {
      spec.apply(b);
      if (tokenFactor != 1.0) b.rateScale = b.rateScale / tokenFactor;
    });
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long c0 = mx.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    Simulator sim = new Simulator(trace, s, Policies.byName(spec.policy()).create(s, trace));
    if (s.decideAttainment > 0) {
      Simulator.Decision d = sim.decide(s.decideAttainment);
      return RunResult.of(spec, d, (System.nanoTime() - t0) / 1e9, (mx.getCurrentThreadCpuTime() - c0) / 1e9);
    }
    SimOutcome o = sim.run();
    if (spec.replicate() != 0) o.metrics.put("replicate_offered_token_factor", tokenFactor);
    return RunResult.of(spec, o, (System.nanoTime() - t0) / 1e9, (mx.getCurrentThreadCpuTime() - c0) / 1e9);
  }

  /** Runs every spec in this JVM, one after another. */
  public static List<RunResult> runLocal(ReplayTrace trace, ReplaySettings base, List<SimSpec> specs) {
    List<RunResult> out = new ArrayList<>();
    Object[] cache = replicateCache();
    for (SimSpec s : specs) out.add(runCached(trace, base, s, cache));
    return out;
  }

  /**
   * What every task of a sweep needs besides its specs, broadcast once: the trace folder, the
   * Hadoop configuration and the base settings. A sweep run as many small jobs ({@link Schedule})
   * unions their RDDs to write the series tables, and each task of a union deserializes every
   * parent's function: with the configuration inside each function that cost grew with the square
   * of the number of jobs (minutes for a few hundred); with a broadcast it is a handle.
   */
  public record Shared(String traceDir, Broadcast<SerializableConf> conf, Broadcast<ReplaySettings> base)
      implements java.io.Serializable {
    public static Shared of(SparkSession spark, String traceDir, ReplaySettings base) {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      return new Shared(traceDir, jsc.broadcast(new SerializableConf(spark.sparkContext().hadoopConfiguration())),
          jsc.broadcast(base));
    }

    /** Removes the broadcasts from the driver and the executors, once no task of the sweep will run. */
    public void destroy() {
      conf.destroy();
      base.destroy();
    }
  }

  /**
   * Runs every spec as a Spark task (one simulation per task). The tasks read the trace from the
   * {@link TraceFile} folder {@code shared.traceDir()} (on a file system every executor can reach), once
   * per executor JVM ({@link TraceCache}); nothing trace-sized passes through the driver. The
   * full results (with their window series) are persisted on the executors' disks, so the caller
   * can write several tables from them without re-running a simulation, collect
   * {@link RunResult#summary()}s, and must {@code unpersist} the RDD when done.
   */
  public static JavaRDD<RunResult> runSpark(SparkSession spark, Shared shared, List<SimSpec> specs) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    // One simulation per task when the cluster has the cores for it; otherwise about 8 tasks per
    // core (the per-task overhead dominates tiny simulations), specs dealt round-robin so that
    // neighbours in the grid (similar cost) land in different tasks.
    int slices = Math.max(1, Math.min(specs.size(), 8 * jsc.defaultParallelism()));
    List<SimSpec> dealt = new ArrayList<>(specs.size());
    java.util.TreeSet<Integer> reps = new java.util.TreeSet<>();
    for (SimSpec s : specs) reps.add(s.replicate());
    if (reps.size() > 1 && !reps.contains(0)) {
      // bootstrap replicates: one slice per replicate, so each task resamples the trace once
      slices = reps.size();
      for (int rep : reps) for (SimSpec s : specs) if (s.replicate() == rep) dealt.add(s);
    } else {
      for (int k = 0; k < slices; k++) {
        for (int i = k; i < specs.size(); i += slices) dealt.add(specs.get(i));
      }
    }
    JavaRDD<RunResult> rdd = jsc.parallelize(dealt, slices)
        .map(new RunTask(shared))
        .setName("replay sweep: " + specs.size() + " simulations");
    // DISK_ONLY: the window series of 200 long simulations are hundreds of MB; they must not sit
    // on the heap of the JVM that (in local mode) is also the driver.
    rdd.persist(StorageLevel.DISK_ONLY());
    return rdd;
  }

  /** The summaries of a persisted sweep, sorted by run id. */
  public static List<RunResult> summaries(JavaRDD<RunResult> results) {
    List<RunResult> out = new ArrayList<>(results.map(RunResult::summary).collect());
    out.sort(Comparator.comparingInt(r -> r.spec().runId()));
    return out;
  }

  /**
   * Convenience for benchmarks: writes {@code trace} to {@code scratchDir}, runs the sweep as
   * Spark tasks and returns the summaries (scratch folder deleted afterwards).
   */
  public static List<RunResult> runSparkSummaries(SparkSession spark, ReplayTrace trace, ReplaySettings base,
      List<SimSpec> specs, String scratchDir) {
    TraceFile.write(trace, scratchDir, spark.sparkContext().hadoopConfiguration());
    Shared shared = Shared.of(spark, scratchDir, base);
    JavaRDD<RunResult> rdd = runSpark(spark, shared, specs);
    try {
      return summaries(rdd);
    } finally {
      rdd.unpersist(false);
      shared.destroy();
      TraceCache.evict(scratchDir);
      deleteQuietly(spark, scratchDir);
    }
  }

  public static void deleteQuietly(SparkSession spark, String dir) {
    try {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dir);
      p.getFileSystem(spark.sparkContext().hadoopConfiguration()).delete(p, true);
    } catch (java.io.IOException e) {
      // scratch data only; the output folder stays valid
    }
  }

  private static final class RunTask implements Function<SimSpec, RunResult> {
    private static final long serialVersionUID = 1L;
    private final Shared shared;

    RunTask(Shared shared) {
      this.shared = shared;
    }

    /** The bootstrap replicate this task built last (tasks of a replicate run one after another). */
    private transient Object[] cache;

    @Override
    public RunResult call(SimSpec spec) {
      if (cache == null) cache = replicateCache();
      ReplaySettings base = shared.base().value();
      return runCached(TraceCache.get(shared.traceDir(), shared.conf().value().get()), base, spec, cache);
    }
  }
}
