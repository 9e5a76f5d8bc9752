package io.smetric.audit.replay.bench;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.Locale;

/**
 * Speed of one simulation: {@code ReplayBench REQUESTS SESSIONS_PER_S POLICY GLOBAL_RATIO KV_MODEL}.
 * Prints trace build time, simulation wall time, simulated requests per second and key metrics.
 */
public final class ReplayBench {
  public static void main(String[] a) {
    int n = Integer.parseInt(a[0]);
    double sps = Double.parseDouble(a[1]);
    String[] policies = a[2].split(",");
    double g = Double.parseDouble(a[3]);
    ReplaySettings.KvModel model = ReplaySettings.KvModel.valueOf(a[4].toUpperCase(Locale.ROOT));
    double rate = a.length > 5 ? Double.parseDouble(a[5]) : 1.0;
    long t0 = System.nanoTime();
    ReplayTrace t = AgentTraceSynth.build(n, sps, 7, model == ReplaySettings.KvModel.REFERENCE);
    double build = (System.nanoTime() - t0) / 1e9;
    long in = t.totalInputTokens();
    System.out.printf(Locale.ROOT, "trace: %d requests, %d sessions, %d segments, %d block slots (%.0f per request), avg input %.0f tokens, span %.0f s; built in %.1f s%n",
        t.n, t.sessions, t.segments, t.totalBlocks(), (double) t.totalBlocks() / t.n, (double) in / t.n,
        t.arrival[t.n - 1] - t.arrival[0], build);
    for (String p : policies) {
      ReplaySettings s = ReplaySettings.defaults().with(sb -> {
        sb.globalRatio = g;
        sb.kvModel = model;
        sb.rateScale = rate;
      });
      java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
      long c0 = mx.getCurrentThreadCpuTime();
      long s0 = System.nanoTime();
      SimOutcome o = new Simulator(t, s, Policies.byName(p).create(s)).run();
      double wall = (System.nanoTime() - s0) / 1e9;
      double cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
      System.out.printf(Locale.ROOT, "%-20s kv=%s g=%.1f x=%.2f: %.2f s wall, %.2f s cpu, %.0f simulated requests per cpu-second, %d steps; tps_slo=%.0f raw_tps=%.0f slo=%.3f local=%.3f global=%.3f stick=%s imb=%.2f%n",
          p, model, g, rate, wall, cpu, t.n / cpu, o.steps, o.metrics.get("tps_within_slo"), o.metrics.get("raw_tps"),
          o.metrics.get("slo_attainment"), o.metrics.get("local_hit_ratio"), o.metrics.get("global_hit_ratio"),
          o.metrics.get("stickiness"), o.metrics.get("imbalance_mean"));
    }
  }
}
