package io.smetric.audit.replay.sweep;

import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The small, serialisable result of one simulation that a Spark task sends back: the metrics,
 * the reasons for those not applicable, latency CDF points, the per-window imbalance and the
 * per-instance window loads (for heatmaps), and the wall and thread-CPU time the simulation took
 * (CPU time is the fair speed measure on a shared machine). The driver only ever holds
 * {@link #summary()}s.
 */
public record RunResult(
    SimSpec spec,
    Map<String, Double> metrics,
    Map<String, String> notApplicable,
    double[] ttftCdf,
    double[] tpotCdf,
    double[] imbalance,
    double[][] loadWindows,
    double wallSeconds,
    double cpuSeconds)
    implements Serializable {

  public static RunResult of(SimSpec spec, SimOutcome o, double wallSeconds, double cpuSeconds) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : o.metrics.entrySet()) m.put(e.getKey(), ((Number) e.getValue()).doubleValue());
    return new RunResult(spec, m, new TreeMap<>(o.notApplicable), o.ttftCdf, o.tpotCdf, o.imbalance,
        o.loadWindows, wallSeconds, cpuSeconds);
  }

  /** A pass/fail run of the capacity search ({@link Simulator.Decision}): its counts as metrics, no series. */
  public static RunResult of(SimSpec spec, Simulator.Decision d, double wallSeconds, double cpuSeconds) {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put(PASS, d.pass() ? 1.0 : 0.0);
    m.put("requests", (double) d.requests());
    m.put("requests_needed", (double) d.need());
    m.put("requests_met", (double) d.met());
    m.put("requests_decided", (double) d.decided());
    m.put("stopped_early", d.stoppedEarly() ? 1.0 : 0.0);
    m.put("simulated_s", d.simulatedS());
    return new RunResult(spec, m, new TreeMap<>(), new double[0], new double[0], new double[0], new double[0][],
        wallSeconds, cpuSeconds);
  }

  /** The metric of a pass/fail run: 1 when at least the target share met the SLO. */
  public static final String PASS = "attainment_pass";

  /**
   * The part the driver collects: metrics, reasons and CDF points (a few kB), without the window
   * series, whose size grows with the simulated duration (instances x windows) and which go
   * straight from the tasks to Parquet.
   */
  public RunResult summary() {
    return new RunResult(spec, metrics, notApplicable, ttftCdf, tpotCdf, new double[0], new double[0][],
        wallSeconds, cpuSeconds);
  }

  /** This result as another spec's, the same simulation ({@link SameSimulations}): no time of its own. */
  public RunResult copyAs(SimSpec other) {
    return new RunResult(other, metrics, notApplicable, ttftCdf, tpotCdf, imbalance, loadWindows, 0, 0);
  }

  /** The same result with other wall and CPU times. */
  public RunResult withTimes(double wall, double cpu) {
    return new RunResult(spec, metrics, notApplicable, ttftCdf, tpotCdf, imbalance, loadWindows, wall, cpu);
  }

  /** The same result under another run id (the sweep's {@link Schedule} numbers runs when all are back). */
  public RunResult withRunId(int id) {
    return new RunResult(spec.withRunId(id), metrics, notApplicable, ttftCdf, tpotCdf, imbalance, loadWindows,
        wallSeconds, cpuSeconds);
  }
}
