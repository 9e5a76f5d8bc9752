package io.smetric.audit.cli;

import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplayJob;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.sweep.RunResult;
import io.smetric.audit.replay.trace.TraceLoader;
import java.io.PrintWriter;
import java.nio.file.Path;
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

  @Mixin OutputOptions.Required output;

  @Option(names = "--config", description = "JSON/YAML file overriding any field of the reference settings (ReplaySettings).")
  Path config;

  @Mixin ReplayOptions replay;

  @Option(names = "--instances", description = "Number of model instances (default ${bundle:default.instances}).")
  Integer instances;

  @Option(names = "--local-blocks", description = "Local KV capacity per instance in blocks, 'unbounded', or 'derived' from the profile (default).")
  String localBlocks;

  @Option(names = "--overload", split = ",", description = "SMetric OVERLOAD value(s); 'Infinity' disables the guard (default ${bundle:default.overload}).")
  List<Double> overloads;

  @Option(names = "--hit-ratio", split = ",", description = "SMetric HIT_RATIO value(s); 0 disables the guard (default ${bundle:default.hitRatio}).")
  List<Double> hitRatios;

  @Option(names = "--seed", description = "Seed of the random policy (default ${bundle:default.seed}).")
  Long seed;

  @Option(names = "--architecture", description = "colocated or disaggregated (default ${bundle:default.architecture}).")
  String architecture;

  @Option(names = "--decode-instances", description = "With --architecture disaggregated: add a decode pool of N instances (default ${bundle:default.decodeInstances}: decode not simulated).")
  Integer decodeInstances;

  @Option(names = "--kv-model", description = "segment or reference (block-by-block LRU; slow) (default ${bundle:default.kvModel}).")
  String kvModel;

  @Option(names = "--sweep", description = "A sweep preset instead of the axis options: 'audit' = production policies, smetric and its guard ablation at global ratios ${bundle:default.auditGlobalRatios}, OVERLOAD/HIT_RATIO sensitivity at ${bundle:default.sensitivityGlobalRatio}, offered rates derived from the trace to bracket saturation (docs/replay.md).")
  String sweep;

  @Option(names = "--executor", defaultValue = "spark", description = "spark (one task per simulation) or local (sequential in the driver). Default: ${DEFAULT-VALUE}.")
  String executor;

  @Option(names = "--record-trace", paramLabel = "DIR", description = {
      "Also write the replayed trace in canonical form to DIR (DIR/trace/, DIR/recording.json) with its recorded routing",
      "(trace-model v1.3) filled by one simulation: --record-policy at the first --global-ratio and --rate-scale."})
  String recordTrace;

  @Option(names = "--record-policy", paramLabel = "NAME",
      description = "The policy of the --record-trace simulation (default: the first of --policies, else least-load).")
  String recordPolicy;

  @Override
  public Integer call() {
    ReplaySettings.Builder sb = new ReplaySettings.Builder();
    boolean auditSweep = sweep != null && sweep.trim().equalsIgnoreCase("audit");
    if (auditSweep) io.smetric.audit.replay.sweep.AuditPlan.applyPace(sb); // the audit's pace unless overridden below
    if (replay.rateGrid != null && !auditSweep) throw new UsageException("--rate-grid needs --sweep audit");
    replay.validate();
    if (io.smetric.audit.replay.TraceCalibration.FROM_TRACE.equals(replay.profile)) {
      throw new UsageException("--profile from-trace goes with audit; for replay, calibrate a profile first"
          + " (calibrate TRACE --out PROFILE.yaml) and give --profile PROFILE.yaml");
    }
    if (config != null) sb.read(config);
    replay.apply(sb);
    if (instances != null) sb.instances = instances;
    if (localBlocks != null) {
      String v = localBlocks.trim().toLowerCase(Locale.ROOT);
      if (v.equals("unbounded")) sb.localBlocks = -1L;
      else if (v.equals("derived")) sb.localBlocks = null;
      else {
        try {
          sb.localBlocks = Long.parseLong(v);
        } catch (NumberFormatException e) {
          throw new UsageException("--local-blocks: expected a number, 'unbounded' or 'derived', got '" + localBlocks + "'");
        }
      }
    }
    if (seed != null) sb.seed = seed;
    if (decodeInstances != null) sb.decodeInstances = decodeInstances;
    if (architecture != null) sb.architecture = ReplayOptions.enumOf(ReplaySettings.Architecture.class, architecture, "--architecture");
    if (kvModel != null) sb.kvModel = ReplayOptions.enumOf(ReplaySettings.KvModel.class, kvModel, "--kv-model");
    ReplaySettings s = sb.build();
    s.validate(io.smetric.audit.replay.policy.Policies::checkConfigs);
    boolean local = switch (executor.toLowerCase(Locale.ROOT)) {
      case "local" -> true;
      case "spark" -> false;
      default -> throw new UsageException("--executor: expected spark or local, got '" + executor + "'");
    };
    boolean audit = false;
    if (sweep != null) {
      if (!sweep.trim().equalsIgnoreCase("audit")) throw new UsageException("--sweep: expected 'audit', got '" + sweep + "'");
      if (replay.customAxes() || overloads != null || hitRatios != null) {
        throw new UsageException("--sweep audit fixes the grid: drop --policies, --global-ratio, --rate-scale, --overload, --hit-ratio");
      }
      audit = true;
    }
    ReplayJob.Options options = (audit ? ReplayJob.Options.audit(s, replay.rateGridMode())
        : ReplayJob.Options.grid(s, replay.policyList(), replay.globalRatios, replay.rates, overloads, hitRatios))
        .withUseSpark(!local).withTraceLabel(input);
    options = replay.judging(options, audit);
    PrintWriter o = spec.commandLine().getOut();
    SparkSession spark = sparkOptions.session("replay");
    // --record-trace is written after the sweep: a taken folder is refused before it
    if (recordTrace != null) OutputDir.refuseIfTaken(recordTrace, output.overwrite(), spark.sparkContext().hadoopConfiguration());
    try (OutputDir dir = output.open(spark.sparkContext().hadoopConfiguration())) {
      long t0 = System.nanoTime();
      // no local variable keeps the trace: the job drops it once the sweep's tasks can read it from storage
      var loaded = TraceLoader.load(spark, input, s.kvModel == ReplaySettings.KvModel.REFERENCE);
      ReplayJob job = new ReplayJob(spark, loaded, options);
      loaded = null;
      ReplayJob.TraceSummary ts = job.traceSummary();
      double loadS = (System.nanoTime() - t0) / 1e9;
      o.printf(Locale.ROOT, "loaded %d requests, %d sessions, %d segments for %d block slots in %.1f s%n",
          ts.requests(), ts.sessions(), ts.segments(), ts.blocksReferenced(), loadS);
      o.flush();
      ReplayJob.Result r = job.run(dir);
      dir.commit();
      for (String sk : r.skipped()) o.println("skipped " + sk);
      long simulated = 0;
      double simWall = 0;
      for (RunResult rr : r.results()) {
        simulated += ts.requests();
        simWall += rr.cpuSeconds();
        if (io.smetric.audit.replay.sweep.Capacity.VARIANT.equals(rr.spec().variant())) {
          // a pass/fail run of the capacity search: no TPS, only whether the share within SLO was reached
          o.printf(Locale.ROOT, "%-24s g=%-4s x=%-5s instances=%s %s after %.0f of %.0f requests (%.1f s)%n", rr.spec().policy(),
              rr.spec().globalRatio(), rr.spec().rateScale(), fmt(rr.spec().overrides().get("instances")),
              rr.metrics().get(RunResult.PASS) == 1.0 ? "pass" : "fail", rr.metrics().get("requests_decided"),
              rr.metrics().get("requests"), rr.wallSeconds());
          continue;
        }
        o.printf(Locale.ROOT, "%-24s g=%-4s x=%-5s tps_slo=%10.1f local_hit=%s stick=%s imb=%s (%.1f s)%n",
            rr.spec().policy(), rr.spec().globalRatio(), rr.spec().rateScale(), rr.metrics().get("tps_within_slo"),
            fmt(rr.metrics().get("local_hit_ratio")), fmt(rr.metrics().get("stickiness")),
            fmt(rr.metrics().get("imbalance_mean")), rr.wallSeconds());
      }
      o.printf(Locale.ROOT, "%d simulations in %.1f s wall (%.0f simulated requests per cpu-second of simulation)%n",
          r.runs(), r.wallSeconds(), simWall > 0 ? simulated / simWall : 0.0);
      java.util.Map<String, RunResult> best = new java.util.TreeMap<>();
      for (RunResult rr : r.results()) {
        // the capacity search's runs are other cluster sizes, not points of a curve
        String v = rr.spec().variant();
        if (io.smetric.audit.replay.sweep.Capacity.VARIANT.equals(v) || io.smetric.audit.replay.sweep.Capacity.SIZED.equals(v)) continue;
        String key = String.format(Locale.ROOT, "%-24s g=%-4s O=%-8s H=%s", rr.spec().policy(), rr.spec().globalRatio(),
            Double.isNaN(rr.spec().overload()) ? "-" : rr.spec().overload(),
            Double.isNaN(rr.spec().hitRatio()) ? "-" : rr.spec().hitRatio());
        RunResult b = best.get(key);
        if (b == null || rr.metrics().get("tps_within_slo") > b.metrics().get("tps_within_slo")) best.put(key, rr);
      }
      o.println("headline: maximum TPS within SLO over the offered-rate sweep");
      best.forEach((k, rr) -> o.printf(Locale.ROOT, "  %s  %10.1f at rate x%s%n", k, rr.metrics().get("tps_within_slo"),
          rr.spec().rateScale()));
      io.smetric.audit.contract.CapacityBlock cap = io.smetric.audit.contract.CapacityBlock.of(r.json());
      for (io.smetric.audit.contract.CapacityBlock.Search c : cap == null ? List.<io.smetric.audit.contract.CapacityBlock.Search>of() : cap.searchList()) {
        Integer fail = c.bracket() == null ? null : c.bracket().highestFail();
        o.printf(Locale.ROOT, "capacity: %-24s g=%-4s traffic x%-5s needs %s instances (%d simulations)%n", c.policy(),
            c.globalRatio(), c.trafficFactor(), c.instances() != null ? c.instances().toString() : "more than " + fail,
            c.simulations() == null ? 0 : c.simulations());
      }
      o.println("wrote " + output.out());
    }
    if (recordTrace != null) record(spark, s, o);
    return 0;
  }

  /** --record-trace: one simulation, its routing and latencies written into a copy of the trace. */
  private void record(SparkSession spark, ReplaySettings base, PrintWriter o) {
    String policy = recordPolicy != null ? recordPolicy
        : replay.policyList() != null ? replay.policyList().get(0).cliName() : "least-load";
    io.smetric.audit.replay.policy.Policies.byName(policy); // an unknown name is a usage error before any work
    ReplaySettings s = base.with(b -> {
      if (replay.globalRatios != null) b.globalRatio = replay.globalRatios.get(0);
      if (replay.rates != null) b.rateScale = replay.rates.get(0);
    });
    s.validate(io.smetric.audit.replay.policy.Policies::checkConfigs);
    var t = TraceLoader.load(spark, input, s.kvModel == ReplaySettings.KvModel.REFERENCE);
    try (OutputDir dir = OutputDir.open(recordTrace, output.overwrite(), spark.sparkContext().hadoopConfiguration())) {
      var sim = io.smetric.audit.replay.RecordTrace.simulate(t, s, policy);
      var r = io.smetric.audit.replay.RecordTrace.write(spark, TraceLoader.datasetPath(spark, input), sim, policy, dir);
      dir.commit();
      o.printf(Locale.ROOT, "recorded trace: %d requests routed by %s at global ratio %s, rate x%s (%s loop) on %d instances, "
          + "%d aborted at the agent timeout -> %s%n", r.requests(), policy, r.globalRatio(), r.rateScale(),
          r.closedLoop() ? "closed" : "open", r.instances(), r.aborted(), recordTrace);
    }
  }

  private static String fmt(Double d) {
    return d == null ? "n/a" : String.format(Locale.ROOT, "%.3f", d);
  }
}
