package io.smetric.audit.replay;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.smetric.audit.common.UsageException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Every knob of one simulation, as an immutable value: the commands build it (a settings file
 * read by {@link #load}, then the command line, into a {@link Builder}), and {@link #validate}
 * runs before any simulation. Its fields are final (reads stay {@code s.instances}); a changed
 * copy is {@link #with}. {@link Builder} IS the commented reference configuration: every field
 * with its default and why. Sources of the defaults: docs/replay.md and docs/replay-anchors.md.
 */
public final class ReplaySettings implements Serializable {
  private static final long serialVersionUID = 1L;

  /** How an instance waits for a global-tier fetch: see {@link #globalLoad}. */
  public enum GlobalLoad { IN_STEP, ASYNC }

  public enum Architecture { COLOCATED, DISAGGREGATED }

  /** How an offered-rate multiplier is applied to the trace's arrival times (see {@link #rateScaling}). */
  public enum RateScaling {
    /** Every arrival: t0 + (arrival - t0) / rateScale (think times inside a session scale too). */
    UNIFORM,
    /**
     * Session trees: the start of each root session moves to t0 + (start - t0) / rateScale; the
     * requests of the session and of its sub-agent forks keep their offsets from that start.
     */
    SESSIONS
  }

  public enum KvModel {
    /** Segment-level LRU (fast). */
    SEGMENT,
    /** Block-by-block LRU over chained ids (the reference; slow). */
    REFERENCE
  }

  /** The default cluster size (paper: 32 x Qwen3-Coder-30B-A3B, one GPU each); the audit's --instances default too. */
  public static final int DEFAULT_INSTANCES = 32;

  /** {@link Builder#instances}. */
  public final int instances;
  /** {@link Builder#localBlocks}. */
  public final Long localBlocks;
  /** {@link Builder#globalRatio}. */
  public final double globalRatio;
  /** {@link Builder#instancesPerNode}. */
  public final int instancesPerNode;
  /** {@link Builder#nodeNicGBps}. */
  public final double nodeNicGBps;
  /** {@link Builder#globalAggregateGBps}. */
  public final Double globalAggregateGBps;
  /** {@link Builder#globalLoad}. */
  public final GlobalLoad globalLoad;
  /** {@link Builder#architecture}. */
  public final Architecture architecture;
  /** {@link Builder#decodeInstances}. */
  public final int decodeInstances;
  /** {@link Builder#kvModel}. */
  public final KvModel kvModel;
  /** {@link Builder#prefixCaching}. */
  public final boolean prefixCaching;
  /** {@link Builder#rateScale}. */
  public final double rateScale;
  /** {@link Builder#rateScaling}. */
  public final RateScaling rateScaling;
  /** {@link Builder#followUpsWaitForPrevious}. */
  public final boolean followUpsWaitForPrevious;
  /** {@link Builder#agentTimeoutS}. */
  public final double agentTimeoutS;
  /** {@link Builder#decideAttainment}. */
  public final double decideAttainment;
  /** {@link Builder#requestTimeoutS}. */
  public final Double requestTimeoutS;
  /** {@link Builder#seed}. */
  public final long seed;
  /** {@link Builder#decodeFastForward}. */
  public final boolean decodeFastForward;
  /** {@link Builder#ttftBaseS}. */
  public final double ttftBaseS;
  /** {@link Builder#ttftPerTokenS}. */
  public final double ttftPerTokenS;
  /** {@link Builder#tpotS}. */
  public final double tpotS;
  /** {@link Builder#overload}. */
  public final double overload;
  /** {@link Builder#hitRatio}. */
  public final double hitRatio;
  /** {@link Builder#forkHistoryIsFollowUp}. */
  public final boolean forkHistoryIsFollowUp;
  /** {@link Builder#cacheAffinityMinTokens}. */
  public final int cacheAffinityMinTokens;
  /** {@link Builder#dynamoOverlapCredit}. */
  public final double dynamoOverlapCredit;
  /** {@link Builder#dynamoPrefillLoadScale}. */
  public final double dynamoPrefillLoadScale;
  /** {@link Builder#dynamoDecodeRequestWeight}. */
  public final double dynamoDecodeRequestWeight;
  /** {@link Builder#llmdPrefixWeight}. */
  public final double llmdPrefixWeight;
  /** {@link Builder#llmdQueueWeight}. */
  public final double llmdQueueWeight;
  /** {@link Builder#llmdKvUtilWeight}. */
  public final double llmdKvUtilWeight;
  /** {@link Builder#llmdLoadAwareWeight}. */
  public final double llmdLoadAwareWeight;
  /** {@link Builder#llmdLoadAwareThreshold}. */
  public final int llmdLoadAwareThreshold;
  /** {@link Builder#llmdPrefixMaxTokens}. */
  public final double llmdPrefixMaxTokens;
  /** {@link Builder#sglangBalanceAbs}. */
  public final int sglangBalanceAbs;
  /** {@link Builder#sglangBalanceRel}. */
  public final double sglangBalanceRel;
  /** {@link Builder#sglangCacheThreshold}. */
  public final double sglangCacheThreshold;
  /** {@link Builder#sessionHashVnodes}. */
  public final int sessionHashVnodes;
  /** {@link Builder#currentRouterConfig}. */
  @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  public final java.util.List<RouterKnob> currentRouterConfig;
  /** {@link Builder#recordedRouting}. */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public final RecordedRouting recordedRouting;
  /** {@link Builder#imbalanceWindowS}. */
  public final double imbalanceWindowS;
  /** {@link Builder#reuseIntervalThresholdS}. */
  public final double reuseIntervalThresholdS;
  /** {@link Builder#bandwidthWindowS}. */
  public final double bandwidthWindowS;
  /** {@link Builder#cdfPoints}. */
  public final int cdfPoints;
  /** {@link Builder#profile}. */
  public final ModelProfile profile;

  private ReplaySettings(Builder b) {
    this.instances = b.instances;
    this.localBlocks = b.localBlocks;
    this.globalRatio = b.globalRatio;
    this.instancesPerNode = b.instancesPerNode;
    this.nodeNicGBps = b.nodeNicGBps;
    this.globalAggregateGBps = b.globalAggregateGBps;
    this.globalLoad = b.globalLoad;
    this.architecture = b.architecture;
    this.decodeInstances = b.decodeInstances;
    this.kvModel = b.kvModel;
    this.prefixCaching = b.prefixCaching;
    this.rateScale = b.rateScale;
    this.rateScaling = b.rateScaling;
    this.followUpsWaitForPrevious = b.followUpsWaitForPrevious;
    this.agentTimeoutS = b.agentTimeoutS;
    this.decideAttainment = b.decideAttainment;
    this.requestTimeoutS = b.requestTimeoutS;
    this.seed = b.seed;
    this.decodeFastForward = b.decodeFastForward;
    this.ttftBaseS = b.ttftBaseS;
    this.ttftPerTokenS = b.ttftPerTokenS;
    this.tpotS = b.tpotS;
    this.overload = b.overload;
    this.hitRatio = b.hitRatio;
    this.forkHistoryIsFollowUp = b.forkHistoryIsFollowUp;
    this.cacheAffinityMinTokens = b.cacheAffinityMinTokens;
    this.dynamoOverlapCredit = b.dynamoOverlapCredit;
    this.dynamoPrefillLoadScale = b.dynamoPrefillLoadScale;
    this.dynamoDecodeRequestWeight = b.dynamoDecodeRequestWeight;
    this.llmdPrefixWeight = b.llmdPrefixWeight;
    this.llmdQueueWeight = b.llmdQueueWeight;
    this.llmdKvUtilWeight = b.llmdKvUtilWeight;
    this.llmdLoadAwareWeight = b.llmdLoadAwareWeight;
    this.llmdLoadAwareThreshold = b.llmdLoadAwareThreshold;
    this.llmdPrefixMaxTokens = b.llmdPrefixMaxTokens;
    this.sglangBalanceAbs = b.sglangBalanceAbs;
    this.sglangBalanceRel = b.sglangBalanceRel;
    this.sglangCacheThreshold = b.sglangCacheThreshold;
    this.sessionHashVnodes = b.sessionHashVnodes;
    this.currentRouterConfig = b.currentRouterConfig == null ? null : java.util.List.copyOf(b.currentRouterConfig);
    this.recordedRouting = b.recordedRouting;
    this.imbalanceWindowS = b.imbalanceWindowS;
    this.reuseIntervalThresholdS = b.reuseIntervalThresholdS;
    this.bandwidthWindowS = b.bandwidthWindowS;
    this.cdfPoints = b.cdfPoints;
    this.profile = b.profile;
  }

  /** The defaults of {@link Builder}. */
  public static ReplaySettings defaults() {
    return new Builder().build();
  }

  /** A builder holding these settings (the profile, a value too, is shared). */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.instances = instances;
    b.localBlocks = localBlocks;
    b.globalRatio = globalRatio;
    b.instancesPerNode = instancesPerNode;
    b.nodeNicGBps = nodeNicGBps;
    b.globalAggregateGBps = globalAggregateGBps;
    b.globalLoad = globalLoad;
    b.architecture = architecture;
    b.decodeInstances = decodeInstances;
    b.kvModel = kvModel;
    b.prefixCaching = prefixCaching;
    b.rateScale = rateScale;
    b.rateScaling = rateScaling;
    b.followUpsWaitForPrevious = followUpsWaitForPrevious;
    b.agentTimeoutS = agentTimeoutS;
    b.decideAttainment = decideAttainment;
    b.requestTimeoutS = requestTimeoutS;
    b.seed = seed;
    b.decodeFastForward = decodeFastForward;
    b.ttftBaseS = ttftBaseS;
    b.ttftPerTokenS = ttftPerTokenS;
    b.tpotS = tpotS;
    b.overload = overload;
    b.hitRatio = hitRatio;
    b.forkHistoryIsFollowUp = forkHistoryIsFollowUp;
    b.cacheAffinityMinTokens = cacheAffinityMinTokens;
    b.dynamoOverlapCredit = dynamoOverlapCredit;
    b.dynamoPrefillLoadScale = dynamoPrefillLoadScale;
    b.dynamoDecodeRequestWeight = dynamoDecodeRequestWeight;
    b.llmdPrefixWeight = llmdPrefixWeight;
    b.llmdQueueWeight = llmdQueueWeight;
    b.llmdKvUtilWeight = llmdKvUtilWeight;
    b.llmdLoadAwareWeight = llmdLoadAwareWeight;
    b.llmdLoadAwareThreshold = llmdLoadAwareThreshold;
    b.llmdPrefixMaxTokens = llmdPrefixMaxTokens;
    b.sglangBalanceAbs = sglangBalanceAbs;
    b.sglangBalanceRel = sglangBalanceRel;
    b.sglangCacheThreshold = sglangCacheThreshold;
    b.sessionHashVnodes = sessionHashVnodes;
    b.currentRouterConfig = currentRouterConfig == null ? null : new java.util.ArrayList<>(currentRouterConfig);
    b.recordedRouting = recordedRouting;
    b.imbalanceWindowS = imbalanceWindowS;
    b.reuseIntervalThresholdS = reuseIntervalThresholdS;
    b.bandwidthWindowS = bandwidthWindowS;
    b.cdfPoints = cdfPoints;
    b.profile = profile;
    return b;
  }

  /** These settings with {@code edit} applied to a builder of them; this value is left as it was. */
  public ReplaySettings with(Consumer<Builder> edit) {
    Builder b = toBuilder();
    edit.accept(b);
    return b.build();
  }

  /**
   * The mutable schema of the settings and the commented reference configuration: every knob with
   * its default and why. A JSON or YAML file with any subset of these field names overrides them
   * ({@link ReplaySettings#load}), the CLI overrides those, {@link #build} freezes them.
   */
  public static final class Builder {
    // ---- cluster ----
    /** Number of model instances. */
    public int instances = DEFAULT_INSTANCES;
    /** Local KV capacity in blocks; null = derived from the profile; -1 = unbounded. */
    public Long localBlocks = null;
    /** Global tier capacity as a ratio of the total local capacity (paper sweeps 0, 0.4, 0.8, 1.6, 3.2). */
    public double globalRatio = 0.0;
    // The global tier's per-instance read rate, lookup latency and save cost are properties of the
    // hardware and the KV connector: they live in the profile (ModelProfile.globalReadGBps, ...).
    /**
     * Instances per server node (paper testbed: 8 H20 GPUs per server, one instance per GPU). The
     * instances of a node share its NIC for the part of a fetch that comes from other nodes.
     */
    public int instancesPerNode = 8;
    /**
     * Effective RDMA bandwidth of one node's NIC [GB/s], shared by all fetches of the node's
     * instances for their remote bytes. 21.75 = one 200 Gbps NIC (paper testbed) at the 87% of
     * line rate Mooncake's Transfer Engine reports (87 GB/s on 4 x 200 Gbps RoCE, Mooncake README).
     * The global tier's blocks are spread uniformly over the nodes' DRAM (Mooncake Store's master
     * places replicas with a random allocation strategy), so a fetch on a cluster of k nodes takes
     * (k-1)/k of its bytes over the NIC and 1/k from its own node's DRAM. Infinity = no NIC limit.
     */
    public double nodeNicGBps = 21.75;
    /**
     * Aggregate read bandwidth of the whole global tier [GB/s], shared by all concurrent fetches;
     * Infinity = no aggregate limit. null (default): the profile's serving bandwidth per node times
     * the cluster's nodes ({@link ReplaySettings#aggregateGBps}; issue 26 item 5: the paper's
     * testbed, 4 nodes x 21.75 GB/s = 87 GB/s). Before 2026-11-30 the default was 100 = 4 servers x 200 Gbps whatever
     * the cluster; from then to issue 26 item 5, none.
     */
    public Double globalAggregateGBps = null;
    /**
     * How an instance waits for a global-tier fetch. IN_STEP: the fetch is part of the engine step
     * that schedules the request, so that step (and every sequence decoding in it) waits for it, as
     * LMCache's vLLM connector does by default (LMCacheConnectorV1 retrieves in start_load_kv
     * before the forward pass; use_layerwise and enable_async_loading default to false). ASYNC: the
     * request waits for its fetch outside the batch while the instance keeps stepping (vLLM's
     * WAITING_FOR_REMOTE_KVS, for connectors that load asynchronously). docs/replay.md, "KV tiers".
     */
    public GlobalLoad globalLoad = GlobalLoad.ASYNC;
    /** PD colocation (load = request count) or disaggregation (prefill only; load = unprefilled tokens). */
    public Architecture architecture = Architecture.COLOCATED;
    /**
     * PD disaggregation only: size of a decode pool that takes each request after its prefill (0 =
     * decode not simulated, the paper's scored part). KV transfer to it is free; it has no memory limit.
     */
    public int decodeInstances = 0;
    public KvModel kvModel = KvModel.SEGMENT;
    /**
     * Whether instances reuse cached prefixes (vLLM enable_prefix_caching, on by default in V1).
     * false: no local hit is ever found (blocks still take memory); the global tier is not read.
     */
    public boolean prefixCaching = true;

    // ---- workload ----
    /** Offered-rate multiplier (2 = twice the rate); how it moves arrivals: {@link #rateScaling}. */
    public double rateScale = 1.0;
    /**
     * UNIFORM (default) or SESSIONS (see the enum). SESSIONS keeps the time between a session's
     * turns and scales the number of sessions in flight instead, as multi-turn load generators do;
     * docs/replay.md, "Arrivals".
     */
    public RateScaling rateScaling = RateScaling.UNIFORM;
    /**
     * Closed loop: a follow-up (or a sub-agent's first request) is sent no earlier than the moment
     * its previous request's response is complete in the simulated cluster (an agent needs the
     * response to act). Its arrival is then max(scheduled arrival, that finish); TTFT counts from
     * when it was sent. false (default) = open loop: every request at its scheduled arrival.
     */
    public boolean followUpsWaitForPrevious = false;
    /**
     * Agent timeout [s]: a request whose response is not complete this long after it was sent has
     * failed (it never counts within SLO), and under the closed loop the agent stops waiting for it,
     * so its follow-ups are sent then (a stalled policy cannot lower its load by silencing its
     * sessions). The abandoned request keeps running in the simulated engine (a real engine aborts
     * a request whose client disconnected; not modelled) and is not retried. 600 = the default
     * request timeout of the OpenAI Python and Node SDKs (openai/openai-python README "Timeouts":
     * "default is 600s"; openai-node DEFAULT_TIMEOUT = 600000 ms). Infinity = no timeout.
     */
    public double agentTimeoutS = 600;
    /**
     * 0 (default): run the whole trace. In (0, 1]: a pass/fail run of the capacity search (docs/replay.md,
     * "Capacity"): it stops as soon as it is known whether at least this share of the requests meets
     * the SLO (Simulator.decide), and reports only that.
     */
    public double decideAttainment = 0;
    /**
     * Request timeout [s] of the client (a benchmark's HTTP timeout): a request not complete this
     * long after it was sent is aborted in the engine wherever it is (queued, fetching, prefilling,
     * decoding, preempted), its batch slot and KV blocks are freed at the instance's next step
     * boundary, and it counts as failed (timed out; left out of the TTFT and TPOT percentiles, as
     * benchmark tools report completed requests only). Unlike {@link #agentTimeoutS}, which only
     * scores, this changes the engine's load. null or Infinity = off (the default).
     */
    public Double requestTimeoutS = null;
    /** Seed of the random policy (every other part is deterministic without one). */
    public long seed = 42;
    /**
     * A speed-up, not a model change: an instance that only decodes runs its steps up to the next
     * finishing sequence as one event instead of one event per step (cut short when a request
     * arrives, a fetch completes or a decode-pool hand-off lands there). Every step time is still
     * added one by one in the same order, so results are identical; false replays one event per
     * step (docs/replay.md, "Decode fast-forward").
     */
    public boolean decodeFastForward = true;

    // ---- SLOs (the paper does not publish its TTFT coefficients; these are our assumption) ----
    /** TTFT SLO = ttftBaseS + ttftPerTokenS x input tokens. */
    public double ttftBaseS = 2.0;
    public double ttftPerTokenS = 2.5e-4;
    /** TPOT SLO (paper: 30 ms). */
    public double tpotS = 0.030;

    // ---- SMetric (paper Figure 13; the guard formulas are our reading, see docs/replay.md) ----
    // This block and the baselines' below are the policies' knobs: each policy reads its own as a
    // configuration record defined beside it in policy.Policies (SMetricConfig, LlmdConfig, ...),
    // which also holds their ranges (checked by Policies.checkConfigs, which validate is given).
    /** not_overloaded(s, l): l[s] <= OVERLOAD x mean(l). Infinity disables the guard. */
    public double overload = 1.5;
    /** session_not_evicted(r, s, c): c[s] >= HIT_RATIO x est_hit(r). 0 disables the guard. */
    public double hitRatio = 0.5;
    /**
     * Whether SMetric sees a fork that carries its parent's conversation history as a follow-up
     * (est_hit = the prefix it shares with the parent). The paper's router infers the turn from the
     * number of history messages in the request (Section 2.2), not from a session id, so such a
     * fork is not a first turn to it. false = the trace's turn (a fork is turn 0), as before.
     */
    public boolean forkHistoryIsFollowUp = true;

    // ---- baselines (replay-anchors.md) ----
    /** Llumnix cache-aware scheduling applies to prompts of at least this many tokens. */
    public int cacheAffinityMinTokens = 1024;
    /** Dynamo KV router: overlap_score_credit, prefill_load_scale, decode active-request weight. */
    public double dynamoOverlapCredit = 1.0;
    public double dynamoPrefillLoadScale = 1.0;
    public double dynamoDecodeRequestWeight = 0.0;
    /** llm-d scorer weights: prefix-cache, queue, kv-cache-utilization. */
    public double llmdPrefixWeight = 3;
    public double llmdQueueWeight = 2;
    public double llmdKvUtilWeight = 2;
    /**
     * llm-d load-aware-scorer weight and its queue threshold: score 0.5 x (1 - min(waiting,
     * threshold) / threshold), 0.5 with an empty queue (llm-d/llm-d-inference-scheduler
     * pkg/epp/framework/plugins/scheduling/scorer/loadaware/load_aware.go; threshold default 128).
     * Weight 0 = not in the profile (the default configuration has no load-aware scorer).
     */
    public double llmdLoadAwareWeight = 0;
    public int llmdLoadAwareThreshold = 128;
    /**
     * llm-d prefix-cache scorer: prompt tokens it hashes at most (it truncates the prompt at
     * maxPrefixBlocksToMatch x block size, default 256 x 16 tokens = 4096). Infinity = no cap: the
     * built-in llm-d policy matches the whole prompt; a --current-router llm-d:FILE configuration
     * applies the router's own default unless the file sets it (docs/replay.md, "Your router as
     * configured").
     */
    public double llmdPrefixMaxTokens = Double.POSITIVE_INFINITY;
    /** SGLang cache-aware router: balance_abs_threshold, balance_rel_threshold, cache_threshold. */
    public int sglangBalanceAbs = 64;
    public double sglangBalanceRel = 1.5;
    public double sglangCacheThreshold = 0.3;
    /** Virtual nodes per instance on the session-hash ring. */
    public int sessionHashVnodes = 160;
    /**
     * The router configuration --current-router read (one row per knob: its value and where it came
     * from, the file, a flag or the router's own default with its source); null when none was given.
     * Written to replay.json as read; it changes nothing by itself (the knobs above carry the values).
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public java.util.List<RouterKnob> currentRouterConfig = null;
    /**
     * The trace's recorded routing, which the policy as-recorded replays; set by the caller from the
     * trace (never read from a settings file, never written to replay.json); null when none.
     */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public RecordedRouting recordedRouting = null;

    // ---- metrics ----
    /** Imbalance window [s] (paper Figure 11 heatmaps: per-window max/mean token load). */
    public double imbalanceWindowS = 60;
    /**
     * Reuse-interval threshold [s] of the replayed timeline's {@code reuse_within_threshold_share}
     * (paper Observation 4: about 90% of reuse within 100 s; the characterization's default too).
     */
    public double reuseIntervalThresholdS = 100;
    /** Window over which global-tier read bandwidth is averaged for its peak [s]. */
    public double bandwidthWindowS = 1;
    /** Number of CDF points written per latency metric. */
    public int cdfPoints = 100;

    /**
     * The instance's cost model, memory, engine limits and global-tier costs (shipped default: the
     * paper's hardware, {@link ModelProfile#defaultProfile}, set by {@link #Builder()}).
     */
    public ModelProfile profile;

    /** The defaults. */
    public Builder() {
      profile = ModelProfile.defaultProfile();
    }

    /**
     * Sets the fields a JSON or YAML file (by extension) names; a field it does not name keeps its
     * value. A named field's value replaces the whole field: a nested {@code profile} object is a
     * whole profile, its missing fields at the profile's own defaults, not this builder's (no
     * merge). Unknown fields are a usage error naming the file.
     */
    public Builder read(Path file) {
      String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
      ObjectMapper m = name.endsWith(".yaml") || name.endsWith(".yml") ? YAML : MAPPER;
      try {
        m.readerForUpdating(this).readValue(Files.readAllBytes(file));
      } catch (IOException e) {
        // the file is read into the Builder; name the settings class, as the message always did
        String first = e.getMessage().lines().findFirst().orElse("");
        throw new UsageException("cannot read settings " + file + ": "
            + first.replace(Builder.class.getName(), ReplaySettings.class.getName()));
      }
      return this;
    }

    /** The settings as they are now; later edits of this builder do not reach them. */
    public ReplaySettings build() {
      return new ReplaySettings(this);
    }
  }

  /** Local capacity in blocks for the given block size (Long.MAX_VALUE = unbounded). */
  public long localCapacity(int blockSize) {
    if (localBlocks == null) return blockSize > 0 ? profile.derivedLocalBlocks(blockSize) : Long.MAX_VALUE;
    return localBlocks < 0 ? Long.MAX_VALUE : localBlocks;
  }

  /** Global capacity: globalRatio x N x local capacity (unbounded local gives unbounded global). */
  public long globalCapacity(int blockSize) {
    if (globalRatio <= 0) return 0;
    long local = localCapacity(blockSize);
    if (local == Long.MAX_VALUE) return Long.MAX_VALUE;
    return (long) Math.floor(globalRatio * instances * (double) local);
  }

  /** Server nodes of the simulated cluster: instance i is on node i / instancesPerNode. */
  public int nodes() {
    return (instances + instancesPerNode - 1) / instancesPerNode;
  }

  /**
   * The global tier's aggregate read bandwidth [GB/s] the replay applies: {@link
   * #globalAggregateGBps} when set, else the profile's per-node serving bandwidth x {@link #nodes}
   * (Infinity: no aggregate limit).
   */
  public double aggregateGBps() {
    if (globalAggregateGBps != null) return globalAggregateGBps;
    return profile.globalAggregateGBpsPerNode * nodes();
  }

  /** The request timeout in force [s], Infinity when off. */
  public double requestTimeout() {
    return requestTimeoutS == null ? Double.POSITIVE_INFINITY : requestTimeoutS;
  }

  /**
   * Checks every field and stops at the first out of range (a usage error naming it). The policies'
   * knobs are checked by their own configuration records, in the policy layer above these settings:
   * the caller passes that check ({@code Policies::checkConfigs}; the settings do not call the
   * policies), and it runs where those knobs have always been reported, after the SLOs and before
   * the windows, so that the first error named is the one it always was.
   */
  public void validate(Consumer<ReplaySettings> policyKnobs) {
    req(instances >= 1, "instances must be >= 1, got " + instances);
    req(localBlocks == null || localBlocks == -1 || localBlocks > 0, "localBlocks must be > 0 or -1 (unbounded)");
    req(decodeInstances >= 0, "decodeInstances must be >= 0");
    req(globalRatio >= 0 && Double.isFinite(globalRatio), "globalRatio must be >= 0");
    req(globalAggregateGBps == null || globalAggregateGBps > 0, "globalAggregateGBps must be > 0 (Infinity = no aggregate cap)");
    req(instancesPerNode >= 1, "instancesPerNode must be >= 1");
    req(nodeNicGBps > 0, "nodeNicGBps must be > 0 (Infinity = no NIC limit)");
    req(rateScale > 0 && Double.isFinite(rateScale), "rateScale must be > 0");
    req(decideAttainment >= 0 && decideAttainment <= 1, "decideAttainment must be in [0, 1] (0 = run the whole trace)");
    req(agentTimeoutS > 0, "agentTimeoutS must be > 0 (Infinity = no timeout)");
    req(requestTimeoutS == null || requestTimeoutS > 0, "requestTimeoutS must be > 0 (null or Infinity = no timeout)");
    req(ttftBaseS >= 0 && ttftPerTokenS >= 0 && tpotS > 0, "SLOs must be >= 0 (TPOT > 0)");
    // the policies' knobs: each policy's configuration record checks its own (policy.Policies)
    policyKnobs.accept(this);
    req(imbalanceWindowS > 0 && bandwidthWindowS > 0, "windows must be > 0");
    req(reuseIntervalThresholdS >= 0, "reuseIntervalThresholdS must be >= 0");
    req(cdfPoints >= 2, "cdfPoints must be >= 2");
    profile.validate();
  }

  private static void req(boolean ok, String msg) {
    if (!ok) throw new UsageException("replay settings: " + msg);
  }

  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
          .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  /** {@code base} with the fields of a JSON or YAML file (by extension) over it ({@link Builder#read}). */
  public static ReplaySettings load(Path file, ReplaySettings base) {
    Builder b = base.toBuilder();
    b.read(file);
    return b.build();
  }

  /** Reads a model profile from a JSON or YAML file (fields of {@link ModelProfile}). */
  public static ModelProfile loadProfile(Path file) {
    return ModelProfile.load(file);
  }

  public String toJson() {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
