package io.smetric.audit.replay.sweep;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;

/**
 * A replay sweep: the grid of policies x global ratios x offered rates (x OVERLOAD x HIT_RATIO
 * for the SMetric family) run as independent simulations. With a SparkSession each simulation is
 * one Spark task; the trace is broadcast, so every executor JVM deserialises it once and all its
 * tasks share it. Only the small {@link RunResult}s come back to the driver.
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

  public static RunResult runOne(ReplayTrace trace, ReplaySettings base, SimSpec spec) {
    ReplaySettings s = spec.apply(base);
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long c0 = mx.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    SimOutcome o = new Simulator(trace, s, Policies.byName(spec.policy()).create(s)).run();
    return RunResult.of(spec, o, (System.nanoTime() - t0) / 1e9, (mx.getCurrentThreadCpuTime() - c0) / 1e9);
  }

  /** Runs every spec in this JVM, one after another. */
  public static List<RunResult> runLocal(ReplayTrace trace, ReplaySettings base, List<SimSpec> specs) {
    List<RunResult> out = new ArrayList<>();
    for (SimSpec s : specs) out.add(runOne(trace, base, s));
    return out;
  }

  /** Runs every spec as a Spark task (one simulation per task), results sorted by run id. */
  public static List<RunResult> runSpark(SparkSession spark, ReplayTrace trace, ReplaySettings base, List<SimSpec> specs) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    jsc.setJobGroup("smetric-replay-sweep", "replay: " + specs.size() + " simulations", false);
    Broadcast<ReplayTrace> bt = jsc.broadcast(trace);
    try {
      List<RunResult> out = new ArrayList<>(
          jsc.parallelize(specs, Math.max(1, specs.size())).map(new RunTask(bt, base)).collect());
      out.sort(Comparator.comparingInt(r -> r.spec().runId()));
      return out;
    } finally {
      bt.destroy();
      jsc.clearJobGroup();
    }
  }

  private static final class RunTask implements Function<SimSpec, RunResult> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<ReplayTrace> trace;
    private final ReplaySettings base;

    RunTask(Broadcast<ReplayTrace> trace, ReplaySettings base) {
      this.trace = trace;
      this.base = base;
    }

    @Override
    public RunResult call(SimSpec spec) {
      return runOne(trace.value(), base, spec);
    }
  }
}
