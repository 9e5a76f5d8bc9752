package io.smetric.audit.cli;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ReplayJob;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.policy.RouterConfig;
import io.smetric.audit.replay.sweep.AuditPlan;
import io.smetric.audit.replay.sweep.Conditions;
import io.smetric.audit.replay.sweep.SweepSummary;
import io.smetric.audit.replay.sweep.Uncertainty;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The replay options {@code audit} and {@code replay} share (a picocli mixin): the sweep's axes
 * (policies, global-tier capacities, offered rates and how they are found), the pace of the
 * simulated agents, the simulated instances' profile and the global tier's read path, the router
 * SMetric is judged against, the bootstrap and the conditions sweep. Declared once so that both
 * commands parse, validate and apply them alike; every default printed in a description comes from
 * where it is defined ({@link Defaults}). Where the two commands' defaults differ (the audit runs
 * the audit sweep), the description names both.
 */
public final class ReplayOptions {
  @Option(names = "--policies", split = ",", description =
      "Policies to replay, comma-separated: ${bundle:default.policies}. Default: `replay` all of them; "
          + "`audit` the audit sweep's ${bundle:default.auditPolicyCount} production policies with SMetric's "
          + "guard ablation and threshold sensitivity (docs/replay.md); a list given to `audit` must include "
          + "smetric.")
  List<String> policies;

  @Option(names = "--global-ratio", split = ",", description =
      "Global/local KV capacity ratio(s), e.g. ${bundle:default.auditGlobalRatios}. Default: `replay` "
          + "${bundle:default.globalRatio}; `audit` the audit sweep's, ${bundle:default.auditGlobalRatios}.")
  List<Double> globalRatios;

  @Option(names = "--rate-scale", split = ",", description =
      "Offered-rate multiplier(s): 2 = arrivals twice as dense. Default: `replay` "
          + "${bundle:default.rateScale}; `audit` found per policy from the trace's own rate (--rate-grid).")
  List<Double> rates;

  @Option(names = "--rate-scaling", description =
      "How --rate-scale moves arrivals: uniform (every timestamp divided) or sessions (session trees "
          + "start more or less often, each agent keeps its own time between turns). Default: "
          + "${bundle:default.auditRateScaling} for `audit` and `replay --sweep audit`, else "
          + "${bundle:default.rateScaling}.")
  String rateScaling;

  @Option(names = "--closed-loop", description =
      "A follow-up (or a sub-agent's first request) is sent only once its previous request's response "
          + "is complete in the simulated cluster, or the agent timeout (agentTimeoutS, "
          + "${bundle:default.agentTimeoutS} s) has passed. The default of `audit` and `replay --sweep "
          + "audit`.")
  boolean closedLoop;

  @Option(names = "--open-loop", description = "Every request is sent at its scheduled time, answered or not (the default "
      + "of `replay` without --sweep audit; the audit's pace before issue 15).")
  boolean openLoop;

  @Option(names = "--rate-grid", description =
      "With the audit sweep: adaptive (each curve's knee found in rounds, refining around its maximum) "
          + "or fixed (x_ref x ${bundle:default.rateMultipliers} for every curve). Default: "
          + "${bundle:default.rateGrid}.")
  String rateGrid;

  @Option(names = "--request-timeout", paramLabel = "S", description =
      "Request timeout of the clients [s], as benchmark tools have one: a request not complete S "
          + "after it was sent is aborted in the engine (queued, fetching, prefilling, decoding or "
          + "preempted; its batch slot and KV blocks freed) and counts as failed. Infinity = none, the "
          + "default (the agent timeout then only scores late responses).")
  Double requestTimeout;

  @Option(names = "--global-load", description =
      "How an instance waits for a global-tier fetch: async (the request waits outside the batch, the "
          + "instance keeps stepping) or in-step (the step that schedules it waits for the fetch, as "
          + "LMCache's default vLLM connector does). Default: ${bundle:default.globalLoad}.")
  String globalLoad;

  @Option(names = "--profile", paramLabel = "NAME|FILE|from-trace", description =
      "Model profile of the simulated instances: a shipped one by name (`smetric-audit profiles` lists "
          + "them; default ${bundle:default.profile}) or a JSON/YAML file (e.g. from `calibrate`); audit only: from-trace "
          + "= calibrated on the audited trace (recorded routing and latencies; its last 20% of time held out).")
  String profile;

  @Option(names = "--global-read-gbps", description = "Per-instance read bandwidth from the global KV tier [GB/s]. Default: "
      + "the profile's (${bundle:default.profile}: ${bundle:default.globalReadGBps}).")
  Double globalReadGBps;

  @Option(names = "--global-aggregate-gbps", description = "Aggregate read bandwidth cap of the whole global tier [GB/s], "
      + "shared by all fetches; Infinity = none. Default: ${bundle:default.globalAggregateGBps}.")
  Double globalAggregateGBps;

  @Option(names = "--instances-per-node", description = "Instances per server node sharing one NIC. Default: "
      + "${bundle:default.instancesPerNode}.")
  Integer instancesPerNode;

  @Option(names = "--node-nic-gbps", description = "Effective RDMA bandwidth of a node's NIC for global-tier reads [GB/s]; "
      + "Infinity = none. Default: ${bundle:default.nodeNicGBps} (docs/replay.md).")
  Double nodeNicGBps;

  @Option(names = "--current-router", paramLabel = "NAME[:CONFIG]", description =
      "The router you run today (a replay policy outside the SMetric family, e.g. cache-affinity, "
          + "dynamo-kv, llm-d), optionally as you configured it: llm-d:FILE (its EndpointPickerConfig YAML), "
          + "sglang:'FLAGS' or sglang:FILE (the SGLang router's flags), dynamo:'FLAGS' or dynamo:FILE (Dynamo's "
          + "KV router flags); a plugin, parameter or flag the replay does not model is an error naming it "
          + "(docs/replay.md, \"Your router as configured\"). The verdict (replay.json's \"judged\" block) "
          + "compares SMetric with it. Default: the best of the paper's baselines "
          + "(${bundle:default.paperBaselines}) at each capacity.")
  String currentRouter;

  /** The configuration --current-router NAME:CONFIG read (parsed once, in {@link #validate}); null without one. */
  private RouterConfig routerConfig;

  @Option(names = "--bootstrap", paramLabel = "B", description =
      "Bootstrap replicates (session trees resampled) behind each gain's 95%% interval; a gain whose "
          + "interval straddles the verdict's threshold is too close to call; 0 = no intervals. Default: "
          + "${bundle:default.bootstrap} for `audit` and `replay --sweep audit`, else 0.")
  Integer bootstrap;

  @Option(names = "--no-conditions", description =
      "With the audit sweep: skip the conditions sweep (the parameters no trace can tell, varied over "
          + "their documented ranges: docs/replay.md, \"Conditions\"); the verdict then rests on the "
          + "defaults alone.")
  boolean noConditions;

  @Option(names = "--no-capacity", description =
      "With the audit sweep: skip the capacity search (how many instances SMetric and the judged router need "
          + "to serve the trace at its own pace, and at 1.25x / 1.5x / 2x its traffic, within SLO: docs/replay.md, "
          + "\"Capacity\").")
  boolean noCapacity;

  @Option(names = "--capacity-all-routers", description =
      "With the capacity search: also size every other router (not only SMetric and the judged router) at the "
          + "trace's own pace, with and without the global tier, each search starting from SMetric's answer. Off by "
          + "default: it adds about 5 pass/fail runs per router and capacity, 2-10 on the shipped sample (docs/replay.md, \"Capacity\").")
  boolean capacityAllRouters;

  @Option(names = "--attainment", paramLabel = "SHARE", description =
      "The capacity search's target: the share of requests within the audit's TTFT and TPOT SLO a sized "
          + "cluster must keep, in (0, 1]. Default: ${bundle:default.attainment}.")
  Double attainment;

  @Option(names = "--gpu-hour-usd", paramLabel = "USD", description =
      "Price of one GPU-hour: the capacity answer is then also given in US dollars per day of the trace's "
          + "traffic (GPUs = instances x the GPUs of the profile's instance). Default: none.")
  Double gpuHourUsd;

  /** The capacity search's options: on with the audit sweep unless --no-capacity. */
  io.smetric.audit.replay.sweep.Capacity.Options capacity(boolean auditSweep) {
    if (!auditSweep || noCapacity) return null;
    return new io.smetric.audit.replay.sweep.Capacity.Options(true,
        attainment != null ? attainment : io.smetric.audit.replay.sweep.EqualLoad.TARGET_ATTAINMENT,
        io.smetric.audit.replay.sweep.Capacity.GROWTH, gpuHourUsd != null ? gpuHourUsd : Double.NaN, capacityAllRouters);
  }

  /** Checks what can be checked before any work starts (usage errors, exit 2). */
  void validate() {
    if (attainment != null && !(attainment > 0 && attainment <= 1)) {
      throw new UsageException("--attainment must be in (0, 1], got " + attainment);
    }
    if (gpuHourUsd != null && !(gpuHourUsd > 0 && Double.isFinite(gpuHourUsd))) {
      throw new UsageException("--gpu-hour-usd must be > 0, got " + gpuHourUsd);
    }
    if (closedLoop && openLoop) throw new UsageException("--closed-loop and --open-loop exclude each other");
    if (requestTimeout != null && !(requestTimeout > 0)) {
      throw new UsageException("--request-timeout must be > 0 seconds (Infinity = none), got " + requestTimeout);
    }
    if (bootstrap != null && bootstrap < 0) throw new UsageException("--bootstrap must be >= 0, got " + bootstrap);
    rateScalingMode();
    globalLoadMode();
    rateGridMode();
    policyList();
    if (currentRouter != null) {
      if (RouterConfig.hasConfig(currentRouter)) routerConfig = RouterConfig.parse(currentRouter);
      checkCurrentRouter(currentRouterName(), policies);
    }
  }

  /** The replay policy --current-router names (its configuration's policy for NAME:CONFIG), or null. */
  String currentRouterName() {
    if (currentRouter == null) return null;
    if (!RouterConfig.hasConfig(currentRouter)) return currentRouter;
    if (routerConfig == null) routerConfig = RouterConfig.parse(currentRouter);
    return routerConfig.policy().cliName();
  }

  /** The policies given, or null when --policies is absent; an unknown name is a usage error. */
  List<Policies> policyList() {
    if (policies == null) return null;
    List<Policies> out = new ArrayList<>();
    for (String p : policies) {
      try {
        out.add(Policies.byName(p));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--policies: " + e.getMessage());
      }
    }
    return out;
  }

  /** Whether the user chose any sweep axis (policies, capacities or rates). */
  boolean customAxes() {
    return policies != null || globalRatios != null || rates != null;
  }

  /** --rate-scaling, or null when not given. */
  ReplaySettings.RateScaling rateScalingMode() {
    return rateScaling == null ? null : enumOf(ReplaySettings.RateScaling.class, rateScaling, "--rate-scaling");
  }

  /** --global-load, or null when not given. */
  ReplaySettings.GlobalLoad globalLoadMode() {
    return globalLoad == null ? null : enumOf(ReplaySettings.GlobalLoad.class, globalLoad, "--global-load");
  }

  /** --rate-grid, adaptive when not given. */
  AuditPlan.RateGrid rateGridMode() {
    return rateGrid == null ? AuditPlan.RateGrid.ADAPTIVE : enumOf(AuditPlan.RateGrid.class, rateGrid, "--rate-grid");
  }

  /** The bootstrap replicates: as given, else the audit sweep's default with it and none without. */
  int replicates(boolean auditSweep) {
    return bootstrap != null ? bootstrap : auditSweep ? Uncertainty.DEFAULT_REPLICATES : 0;
  }

  /**
   * What both commands take from this mixin into the replay job's options: the router SMetric is
   * judged against, the bootstrap replicates and the conditions sweep; with {@code auditSweep} the
   * audit sweep's defaults (replicates, conditions unless --no-conditions), else none.
   */
  ReplayJob.Options judging(ReplayJob.Options o, boolean auditSweep) {
    return o.withCurrentRouter(currentRouterName()).withBootstrap(replicates(auditSweep))
        .withConditions(auditSweep && !noConditions ? Conditions.DEFAULTS : null).withCapacity(capacity(auditSweep));
  }

  /**
   * Applies the given simulation options to {@code s} (the profile first: the read rate is one of
   * its numbers); options not given leave {@code s} as it is (its defaults, or a --config file's).
   */
  void apply(ReplaySettings.Builder s) {
    // from-trace: the audit sets the profile it calibrates on the trace (AuditCommand)
    if (profile != null && !profile.equals(io.smetric.audit.replay.TraceCalibration.FROM_TRACE)) {
      s.profile = ModelProfile.resolve(profile);
    }
    if (globalReadGBps != null) s.profile = s.profile.with(p -> p.globalReadGBps = globalReadGBps);
    if (globalAggregateGBps != null) s.globalAggregateGBps = globalAggregateGBps;
    if (instancesPerNode != null) s.instancesPerNode = instancesPerNode;
    if (nodeNicGBps != null) s.nodeNicGBps = nodeNicGBps;
    if (requestTimeout != null) s.requestTimeoutS = requestTimeout;
    ReplaySettings.RateScaling scaling = rateScalingMode();
    if (scaling != null) s.rateScaling = scaling;
    if (closedLoop) s.followUpsWaitForPrevious = true;
    if (openLoop) s.followUpsWaitForPrevious = false;
    ReplaySettings.GlobalLoad load = globalLoadMode();
    if (load != null) s.globalLoad = load;
    if (currentRouterName() != null && routerConfig != null) routerConfig.apply(s);
  }

  /** --current-router: a known policy outside the SMetric family, and in --policies when those are given. */
  static void checkCurrentRouter(String name, List<String> policies) {
    Policies p;
    try {
      p = Policies.byName(name);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--current-router: " + e.getMessage());
    }
    if (SweepSummary.isSmetricFamily(p.cliName())) {
      throw new UsageException("--current-router: " + name + " is SMetric or one of its variants; name the router you run today");
    }
    if (policies != null && !policies.contains(p.cliName())) {
      throw new UsageException("--current-router " + name + " is not in --policies; add it there");
    }
  }

  /** An enum option's value (case and '-' for '_' ignored); an unknown one is a usage error listing the known. */
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
