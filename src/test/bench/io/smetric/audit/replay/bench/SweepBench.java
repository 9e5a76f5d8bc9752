package io.smetric.audit.replay.bench;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.RunResult;
import io.smetric.audit.replay.sweep.SimSpec;
import io.smetric.audit.replay.sweep.Sweep;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;

/**
 * The sweep benchmark: {@code SweepBench REQUESTS SESSIONS_PER_S POLICIES RATIOS RATES MASTER [OVERLOADS [HIT_RATIOS [LINK_GBPS [AGGREGATE_GBPS [FETCH_LATENCY_S]]]]]}, run
 * as Spark tasks (one simulation each, trace read from an Arrow folder once per executor). Prints one line per run and the wall time.
 */
public final class SweepBench {
  public static void main(String[] a) {
    int n = Integer.parseInt(a[0]);
    double sps = Double.parseDouble(a[1]);
    List<Policies> pol = new ArrayList<>();
    for (String p : a[2].split(",")) pol.add(Policies.byName(p));
    List<Double> ratios = parse(a[3]);
    List<Double> rates = parse(a[4]);
    String master = a.length > 5 ? a[5] : "local[2]";
    long t0 = System.nanoTime();
    ReplayTrace t = AgentTraceSynth.build(n, sps, 7, false);
    System.out.printf(Locale.ROOT, "trace %d requests built in %.1f s%n", t.n, (System.nanoTime() - t0) / 1e9);
    SparkSession spark = SparkSession.builder().master(master).appName("replay-sweep-bench")
        .config("spark.ui.enabled", "false").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1").getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    ReplaySettings base = ReplaySettings.defaults().with(sb -> {
      if (a.length > 8) sb.profile = sb.profile.with(p -> p.globalReadGBps = Double.parseDouble(a[8]));
      if (a.length > 9) sb.globalAggregateGBps = Double.parseDouble(a[9]);
      if (a.length > 10) sb.profile = sb.profile.with(p -> p.globalLookupLatencyS = Double.parseDouble(a[10]));
    });
    List<Double> overloads = a.length > 6 ? parse(a[6]) : List.of(base.overload);
    List<Double> hits = a.length > 7 ? parse(a[7]) : List.of(base.hitRatio);
    List<SimSpec> specs = Sweep.grid(pol, ratios, rates, overloads, hits);
    long s0 = System.nanoTime();
    List<RunResult> res = Sweep.runSparkSummaries(spark, t, base, specs,
        System.getProperty("java.io.tmpdir") + "/sweepbench-trace-" + ProcessHandle.current().pid());
    double wall = (System.nanoTime() - s0) / 1e9;
    double simSum = 0;
    double cpuSum = 0;
    for (RunResult r : res) {
      simSum += r.wallSeconds();
      cpuSum += r.cpuSeconds();
      System.out.printf(Locale.ROOT, "%-16s O=%s H=%s g=%.1f x=%.2f tps_slo=%.0f raw=%.0f slo=%.3f local=%.3f global=%.3f stick=%.3f imb=%.2f migr=%.0f peakGBps=%.2f wall=%.1fs cpu=%.1fs%n",
          r.spec().policy(), r.spec().overload(), r.spec().hitRatio(), r.spec().globalRatio(), r.spec().rateScale(), r.metrics().get("tps_within_slo"),
          r.metrics().get("raw_tps"), r.metrics().get("slo_attainment"), r.metrics().get("local_hit_ratio"),
          r.metrics().get("global_hit_ratio"), r.metrics().get("stickiness"), r.metrics().get("imbalance_mean"),
          r.metrics().get("session_migrations"), r.metrics().get("global_peak_read_bytes_per_s") / 1e9, r.wallSeconds(), r.cpuSeconds());
    }
    System.out.printf(Locale.ROOT, "sweep: %d simulations of %d requests in %.1f s wall (sum of simulation wall %.1f s, cpu %.1f s; %.0f simulated requests per cpu-second)%n",
        res.size(), t.n, wall, simSum, cpuSum, (double) t.n * res.size() / cpuSum);
    spark.stop();
  }

  private static List<Double> parse(String s) {
    List<Double> out = new ArrayList<>();
    for (String x : s.split(",")) out.add(Double.parseDouble(x));
    return out;
  }
}
