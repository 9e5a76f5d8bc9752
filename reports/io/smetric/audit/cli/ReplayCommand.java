package io.smetric.audit.cli;

import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ReplayJob;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.RunResult;
import io.smetric.audit.replay.trace.TraceLoader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code smetric-audit replay}: scores routing policies on a canonical trace by simulation. */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
      "Replays a canonical trace on a simulated cluster under each routing policy (docs/replay.md).",
      "Every list option is a sweep axis; the grid runs as Spark tasks, one simulation each.",
      "Writes runs, headline, latency_cdf, imbalance_windows, instance_load (Parquet) and replay.json."
    })
public final class ReplayCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;
  @Mixin SparkOptions sparkOptions;

  @Parameters(index = "0", paramLabel = "CANONICAL_DIR", description = "Canonical Parquet dataset (from ingest).")
  String input;

  @Option(names = "--out", required = true, description = "Output folder (written atomically).")
  String out;

  @Option(names = "--overwrite", description = "Replace an existing output folder.")
  boolean overwrite;

  @Option(names = "--config", description = "JSON/YAML file overriding any field of the reference settings (ReplaySettings).")
  Path config;

  @Option(names = "--profile", paramLabel = "NAME|FILE", description = "Model profile: a shipped one by name (`smetric-audit profiles` lists them; default qwen3-30b-a3b-h20) or a JSON/YAML file (e.g. from `calibrate`).")
  String profile;

  @Option(names = "--instances", description = "Number of model instances (default 32).")
  Integer instances;

  @Option(names = "--local-blocks", description = "Local KV capacity per instance in blocks, 'unbounded', or 'derived' from the profile (default).")
  String localBlocks;

  @Option(names = "--global-ratio", split = ",", description = "Global/local capacity ratio(s), e.g. 0,0.4,0.8,1.6,3.2 (default 0).")
  List<Double> globalRatios;

  @Option(names = "--policies", split = ",", description = "Comma-separated policies (default all): smetric, smetric-basic, smetric-overload-only, smetric-eviction-only, least-load, round-robin, random, cache-affinity, lmetric, lmetric-blocks, dynamo-kv, llm-d, sglang-cache-aware, session-hash.")
  List<String> policies;

  @Option(names = "--rate-scale", split = ",", description = "Offered-rate multiplier(s): 2 = arrivals twice as dense (default 1).")
  List<Double> rates;

  @Option(names = "--rate-scaling", description = "How --rate-scale moves arrivals: uniform (default: every timestamp divided) or sessions (session starts move, the time between a session's turns is kept).")
  String rateScaling;

  @Option(names = "--closed-loop", description = "A follow-up (or a sub-agent's first request) is sent only once its previous request's response is complete in the simulated cluster, or the agent timeout (agentTimeoutS, 600 s) has passed. Default with --sweep audit.")
  boolean closedLoop;

  @Option(names = "--open-loop", description = "Every request is sent at its scheduled time (the default, except with --sweep audit).")
  boolean openLoop;

  @Option(names = "--rate-grid", description = "With --sweep audit: adaptive (default: each curve's knee found in rounds) or fixed (x_ref x 0.125, 0.25, 0.375, 0.5, 1).")
  String rateGrid;

  @Option(names = "--global-load", description = "How an instance waits for a global-tier fetch: async (default: the request waits outside the batch, the instance keeps stepping) or in-step (the step that schedules it waits for the fetch, as LMCache's default vLLM connector does).")
  String globalLoad;

  @Option(names = "--overload", split = ",", description = "SMetric OVERLOAD value(s); 'Infinity' disables the guard.")
  List<Double> overloads;

  @Option(names = "--hit-ratio", split = ",", description = "SMetric HIT_RATIO value(s); 0 disables the guard.")
  List<Double> hitRatios;

  @Option(names = "--global-read-gbps", description = "Per-instance read bandwidth to the global tier [GB/s] (default 25).")
  Double globalReadGBps;

  @Option(names = "--global-aggregate-gbps", description = "Aggregate read bandwidth cap of the whole global tier [GB/s] (default Infinity = none; the node NICs limit).")
  Double globalAggregateGBps;

  @Option(names = "--instances-per-node", description = "Instances per server node sharing one NIC (default 8).")
  Integer instancesPerNode;

  @Option(names = "--node-nic-gbps", description = "Effective RDMA bandwidth of a node's NIC for global-tier reads [GB/s] (default 21.75 = 200 Gbps at 87%%; Infinity = none).")
  Double nodeNicGBps;

  @Option(names = "--seed", description = "Seed of the random policy (default 42).")
  Long seed;

  @Option(names = "--architecture", description = "colocated (default) or disaggregated.")
  String architecture;

  @Option(names = "--decode-instances", description = "With --architecture disaggregated: add a decode pool of N instances (default 0: decode not simulated).")
  Integer decodeInstances;

  @Option(names = "--kv-model", description = "segment (default) or reference (block-by-block LRU; slow).")
  String kvModel;

  @Option(names = "--sweep", description = "A sweep preset instead of the axis options: 'audit' = production policies, smetric and its guard ablation at global ratios 0,0.4,0.8,1.6,3.2, OVERLOAD/HIT_RATIO sensitivity at 1.6, offered rates derived from the trace to bracket saturation (docs/replay.md).")
  String sweep;

  @Option(names = "--current-router", paramLabel = "NAME", description = "The router run today: replay.json's \"judged\" block compares SMetric with it (default: the best of the paper's baselines, cache-affinity, lmetric, least-load, at each capacity).")
  String currentRouter;

  @Option(names = "--bootstrap", paramLabel = "B", description = "Bootstrap replicates (session trees resampled) behind the gains' intervals in replay.json (default 0; 10 with --sweep audit).")
  Integer bootstrap;

  @Option(names = "--no-conditions", description = "With --sweep audit: skip the conditions sweep (docs/replay.md, \"Conditions\").")
  boolean noConditions;

  @Option(names = "--executor", defaultValue = "spark", description = "spark (one task per simulation, default) or local (sequential in the driver).")
  String executor;

  @Override
  public Integer call() {
    ReplaySettings s = new ReplaySettings();
    boolean auditSweep = sweep != null && sweep.trim().equalsIgnoreCase("audit");
    if (auditSweep) io.smetric.audit.replay.sweep.AuditPlan.applyPace(s); // the audit's pace unless overridden below
    if (closedLoop && openLoop) throw new UsageException("--closed-loop and --open-loop exclude each other");
    if (rateGrid != null && !auditSweep) throw new UsageException("--rate-grid needs --sweep audit");
    if (config != null) s = ReplaySettings.load(config, s);
    if (profile != null) s.profile = ModelProfile.resolve(profile);
    if (instances != null) s.instances = instances;
    if (localBlocks != null) {
      String v = localBlocks.trim().toLowerCase(Locale.ROOT);
      if (v.equals("unbounded")) s.localBlocks = -1L;
      else if (v.equals("derived")) s.localBlocks = null;
      else {
        try {
          s.localBlocks = Long.parseLong(v);
        } catch (NumberFormatException e) {
          throw new UsageException("--local-blocks: expected a number, 'unbounded' or 'derived', got '" + localBlocks + "'");
        }
      }
    }
    if (globalReadGBps != null) s.profile.globalReadGBps = globalReadGBps;
    if (globalAggregateGBps != null) s.globalAggregateGBps = globalAggregateGBps;
    if (instancesPerNode != null) s.instancesPerNode = instancesPerNode;
    if (nodeNicGBps != null) s.nodeNicGBps = nodeNicGBps;
    if (seed != null) s.seed = seed;
    if (decodeInstances != null) s.decodeInstances = decodeInstances;
    if (architecture != null) s.architecture = enumOf(ReplaySettings.Architecture.class, architecture, "--architecture");
    if (kvModel != null) s.kvModel = enumOf(ReplaySettings.KvModel.class, kvModel, "--kv-model");
    if (rateScaling != null) s.rateScaling = enumOf(ReplaySettings.RateScaling.class, rateScaling, "--rate-scaling");
    if (closedLoop) s.followUpsWaitForPrevious = true;
    if (openLoop) s.followUpsWaitForPrevious = false;
    if (globalLoad != null) s.globalLoad = enumOf(ReplaySettings.GlobalLoad.class, globalLoad, "--global-load");
    s.validate();
    List<Policies> pol = new ArrayList<>();
    if (policies == null) pol.addAll(List.of(Policies.values()));
    else {
      for (String p : policies) {
        try {
          pol.add(Policies.byName(p));
        } catch (IllegalArgumentException e) {
          throw new UsageException("--policies: " + e.getMessage());
        }
      }
    }
    boolean local = switch (executor.toLowerCase(Locale.ROOT)) {
      case "local" -> true;
      case "spark" -> false;
      default -> throw new UsageException("--executor: expected spark or local, got '" + executor + "'");
    };
    if (currentRouter != null) checkCurrentRouter(currentRouter, policies);
    boolean audit = false;
    if (sweep != null) {
      if (!sweep.trim().equalsIgnoreCase("audit")) throw new UsageException("--sweep: expected 'audit', got '" + sweep + "'");
      if (policies != null || globalRatios != null || rates != null || overloads != null || hitRatios != null) {
        throw new UsageException("--sweep audit fixes the grid: drop --policies, --global-ratio, --rate-scale, --overload, --hit-ratio");
      }
      audit = true;
    }
    PrintWriter o = spec.commandLine().getOut();
    SparkSession spark = sparkOptions.session("replay");
    try (OutputDir dir = OutputDir.open(out, overwrite, spark.sparkContext().hadoopConfiguration())) {
      long t0 = System.nanoTime();
      // no local variable keeps the trace: the job drops it once the sweep's tasks can read it from storage
      var loaded = TraceLoader.load(spark, input, s.kvModel == ReplaySettings.KvModel.REFERENCE);
      ReplayJob job = audit ? ReplayJob.auditPlan(spark, loaded, s, rateGrid == null
          ? io.smetric.audit.replay.sweep.AuditPlan.RateGrid.ADAPTIVE
          : enumOf(io.smetric.audit.replay.sweep.AuditPlan.RateGrid.class, rateGrid, "--rate-grid"))
          : new ReplayJob(spark, loaded, s);
      loaded = null;
      ReplayJob.TraceSummary ts = job.traceSummary();
      double loadS = (System.nanoTime() - t0) / 1e9;
      o.printf(Locale.ROOT, "loaded %d requests, %d sessions, %d segments for %d block slots in %.1f s%n",
          ts.requests(), ts.sessions(), ts.segments(), ts.blocksReferenced(), loadS);
      o.flush();
      if (!audit) {
        job.policies(pol)
            .globalRatios(globalRatios == null ? List.of(s.globalRatio) : globalRatios)
            .rates(rates == null ? List.of(s.rateScale) : rates)
            .overloads(overloads == null ? List.of(s.overload) : overloads)
            .hitRatios(hitRatios == null ? List.of(s.hitRatio) : hitRatios);
      }
      int replicates = bootstrap != null ? bootstrap : audit ? io.smetric.audit.replay.sweep.Uncertainty.DEFAULT_REPLICATES : 0;
      if (replicates < 0) throw new UsageException("--bootstrap must be >= 0, got " + replicates);
      job.useSpark(!local).traceLabel(input).currentRouter(currentRouter).bootstrap(replicates)
          .conditions(audit && !noConditions ? io.smetric.audit.replay.sweep.Conditions.DEFAULTS : null);
      ReplayJob.Result r = job.execute(dir);
      dir.commit();
      for (String sk : r.skipped()) o.println("skipped " + sk);
      long simulated = 0;
      double simWall = 0;
      for (RunResult rr : r.results()) {
        simulated += ts.requests();
        simWall += rr.cpuSeconds();
        o.printf(Locale.ROOT, "%-24s g=%-4s x=%-5s tps_slo=%10.1f local_hit=%s stick=%s imb=%s (%.1f s)%n",
            rr.spec().policy(), rr.spec().globalRatio(), rr.spec().rateScale(), rr.metrics().get("tps_within_slo"),
            fmt(rr.metrics().get("local_hit_ratio")), fmt(rr.metrics().get("stickiness")),
            fmt(rr.metrics().get("imbalance_mean")), rr.wallSeconds());
      }
      o.printf(Locale.ROOT, "%d simulations in %.1f s wall (%.0f simulated requests per cpu-second of simulation)%n",
          r.runs(), r.wallSeconds(), simWall > 0 ? simulated / simWall : 0.0);
      java.util.Map<String, RunResult> best = new java.util.TreeMap<>();
      for (RunResult rr : r.results()) {
        String key = String.format(Locale.ROOT, "%-24s g=%-4s O=%-8s H=%s", rr.spec().policy(), rr.spec().globalRatio(),
            Double.isNaN(rr.spec().overload()) ? "-" : rr.spec().overload(),
            Double.isNaN(rr.spec().hitRatio()) ? "-" : rr.spec().hitRatio());
        RunResult b = best.get(key);
        if (b == null || rr.metrics().get("tps_within_slo") > b.metrics().get("tps_within_slo")) best.put(key, rr);
      }
      o.println("headline: maximum TPS within SLO over the offered-rate sweep");
      best.forEach((k, rr) -> o.printf(Locale.ROOT, "  %s  %10.1f at rate x%s%n", k, rr.metrics().get("tps_within_slo"),
          rr.spec().rateScale()));
      o.println("wrote " + out);
    }
    return 0;
  }

  /** --current-router: a known policy outside the SMetric family, and in --policies when those are given. */
  static void checkCurrentRouter(String name, List<String> policies) {
    Policies p;
    try {
      p = Policies.byName(name);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--current-router: " + e.getMessage());
    }
    if (io.smetric.audit.replay.sweep.SweepSummary.isSmetricFamily(p.cliName())) {
      throw new UsageException("--current-router: " + name + " is SMetric or one of its variants; name the router you run today");
    }
    if (policies != null && !policies.contains(p.cliName())) {
      throw new UsageException("--current-router " + name + " is not in --policies; add it there");
    }
  }

  private static String fmt(Double d) {
    return d == null ? "n/a" : String.format(Locale.ROOT, "%.3f", d);
  }

  static <E extends Enum<E>> E enumOf(Class<E> c, String v, String opt) {
    try {
      return Enum.valueOf(c, v.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      String known = java.util.Arrays.stream(c.getEnumConstants())
          .map(x -> x.name().toLowerCase(Locale.ROOT).replace('_', '-')).collect(java.util.stream.Collectors.joining(", "));
      throw new UsageException(opt + ": unknown value '" + v + "' (one of: " + known + ")");
    }
  }
}
