package io.smetric.audit.replay.policy;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The one registry of routing policies (Caffeine simulator style): each entry names the policy,
 * its source, its defaults and its needs, and builds a fresh instance from the settings. A policy
 * with knobs is constructed from its own configuration, a record defined below ({@link
 * SMetricConfig}, {@link LlmdConfig}, ...): built from the settings' fields of the same names,
 * checked there (by {@link #checkConfigs}, which whoever validates the settings passes to {@link
 * ReplaySettings#validate}), and immutable; the policy keeps the record, not copies of its fields.
 * The policies that score every instance share {@link ScoringPolicy}'s loop set-up. {@link #unmet}
 * tells which needs a trace cannot meet, so a replay skips such policies with a reason.
 */
public enum Policies {
  SMETRIC("smetric", "SMetric paper Figure 13 (arXiv 2607.08565)",
      "OVERLOAD=settings.overload (1.5), HIT_RATIO=settings.hitRatio (0.5)",
      EnumSet.of(Need.BLOCKS, Need.TURNS),
      s -> new SMetricPolicy(SMetricConfig.of(s), true, true)),
  SMETRIC_BASIC("smetric-basic", "SMetric basic: both guards removed (paper Figure 24)", "-",
      EnumSet.of(Need.BLOCKS, Need.TURNS), s -> new SMetricPolicy(SMetricConfig.of(s), false, false)),
  SMETRIC_OVERLOAD_ONLY("smetric-overload-only", "SMetric with only not_overloaded (ablation the paper did not publish)",
      "OVERLOAD=settings.overload", EnumSet.of(Need.BLOCKS, Need.TURNS),
      s -> new SMetricPolicy(SMetricConfig.of(s), true, false)),
  SMETRIC_EVICTION_ONLY("smetric-eviction-only", "SMetric with only session_not_evicted (ablation the paper did not publish)",
      "HIT_RATIO=settings.hitRatio", EnumSet.of(Need.BLOCKS, Need.TURNS),
      s -> new SMetricPolicy(SMetricConfig.of(s), false, true)),
  LEAST_LOAD("least-load", "pure load balance: round-robin argmin of load() (paper's baseline)", "-",
      EnumSet.noneOf(Need.class), s -> new LeastLoadPolicy()),
  ROUND_ROBIN("round-robin", "round robin (Vidur, BLIS)", "-", EnumSet.noneOf(Need.class), s -> new RoundRobinPolicy()),
  RANDOM("random", "uniform random (Vidur)", "seed=settings.seed", EnumSet.noneOf(Need.class), s -> new RandomPolicy(s.seed)),
  CACHE_AFFINITY("cache-affinity",
      "Llumnix cache-aware scheduling (llumnix-project/llumnix docs/source/design/scheduler/cache_aware_scheduling.md); BAILIAN stand-in",
      "min prompt tokens=settings.cacheAffinityMinTokens (1024)", EnumSet.of(Need.BLOCKS),
      s -> new CacheAffinityPolicy(CacheAffinityConfig.of(s))),
  LMETRIC("lmetric", "LMetric (arXiv 2603.15202; ai-dynamo/dynamo PR 11028)", "score=(new prefill tokens) x (batch + 1)",
      EnumSet.of(Need.BLOCKS), s -> new LMetricPolicy()),
  LMETRIC_BLOCKS("lmetric-blocks", "LMetric as ported to Dynamo's KV router (ai-dynamo/dynamo PR 11028)",
      "score=max(0, (active prefill + ISL)/B - overlap) x (decode blocks + new blocks + 1)", EnumSet.of(Need.BLOCKS),
      s -> new LMetricBlocksPolicy()),
  DYNAMO_KV("dynamo-kv", "NVIDIA Dynamo KV router (ai-dynamo/dynamo lib/kv-router/src/scheduling/selector.rs)",
      "overlap credit 1.0, prefill load scale 1.0, decode weight 0, temperature 0", EnumSet.of(Need.BLOCKS),
      s -> new DynamoKvPolicy(DynamoConfig.of(s))),
  LLM_D("llm-d", "llm-d inference scheduler (llm-d/llm-d-inference-scheduler config/charts/epplib/templates/_config.yaml)",
      "prefix-cache 3, queue 2, kv-cache-utilization 2", EnumSet.of(Need.BLOCKS),
      s -> new LlmdPolicy(LlmdConfig.of(s))),
  SGLANG_CACHE_AWARE("sglang-cache-aware", "SGLang router cache_aware (sgl-project/sglang sgl-router/src/policies/cache_aware.rs)",
      "balance abs 64, rel 1.5, cache threshold 0.3", EnumSet.of(Need.BLOCKS),
      s -> new SglangCacheAwarePolicy(SglangConfig.of(s))),
  SESSION_HASH("session-hash", "consistent hash of the session id (vllm-project/production-stack session router)",
      "virtual nodes=settings.sessionHashVnodes (160)", EnumSet.of(Need.SESSIONS),
      s -> new SessionHashPolicy(SessionHashConfig.of(s))),
  AS_RECORDED("as-recorded", "the trace's own recorded routing (trace-model v1.3 served_instance; AsRecordedPolicy)",
      "requests without a recorded instance: least-load", EnumSet.noneOf(Need.class), (s, t) -> {
        if (s.recordedRouting == null || t == null) {
          throw new io.smetric.audit.common.UsageException("as-recorded needs a trace with recorded routing (served_instance)");
        }
        return new AsRecordedPolicy(s.recordedRouting.forTrace(t));
      });

  // ---- each policy's configuration: what it reads of the settings, as a value ----
  // The settings keep one flat field per knob (the settings file's and replay.json's names, the
  // command line's options and --current-router set them); each record below is what its policy
  // reads of them, built when the policy is made, with the ranges the settings accept.

  /**
   * SMetric's guards (paper Figure 13): not_overloaded(s, l) is l[s] <= overload x mean(l)
   * (Infinity disables it); session_not_evicted(r, s, c) is c[s] >= hitRatio x est_hit(r) (0
   * disables it). Settings overload (1.5) and hitRatio (0.5).
   */
  public record SMetricConfig(double overload, double hitRatio) {
    public SMetricConfig {
      req(overload >= 0, "overload must be >= 0 (Infinity disables the guard)");
      req(hitRatio >= 0 && hitRatio <= 1, "hitRatio must be in [0, 1]");
    }

    public static SMetricConfig of(ReplaySettings s) {
      return new SMetricConfig(s.overload, s.hitRatio);
    }

  }

  /** Llumnix cache-aware scheduling: prompts of at least minTokens go by cache (setting cacheAffinityMinTokens, 1024). */
  public record CacheAffinityConfig(int minTokens) {
    public static CacheAffinityConfig of(ReplaySettings s) {
      return new CacheAffinityConfig(s.cacheAffinityMinTokens);
    }
  }

  /**
   * Dynamo's KV router: overlap_score_credit, prefill_load_scale and the decode active-request
   * weight (settings dynamoOverlapCredit, dynamoPrefillLoadScale, dynamoDecodeRequestWeight).
   */
  public record DynamoConfig(double overlapCredit, double prefillLoadScale, double decodeRequestWeight) {
    public static DynamoConfig of(ReplaySettings s) {
      return new DynamoConfig(s.dynamoOverlapCredit, s.dynamoPrefillLoadScale, s.dynamoDecodeRequestWeight);
    }
  }

  /**
   * llm-d's scorer weights (prefix-cache, queue, kv-cache-utilization, load-aware), the load-aware
   * scorer's queue threshold and the prompt tokens the prefix-cache scorer hashes at most (settings
   * llmdPrefixWeight, llmdQueueWeight, llmdKvUtilWeight, llmdLoadAwareWeight, llmdLoadAwareThreshold,
   * llmdPrefixMaxTokens; their sources are in ReplaySettings).
   */
  public record LlmdConfig(double prefixWeight, double queueWeight, double kvUtilWeight, double loadAwareWeight,
      int loadAwareThreshold, double prefixMaxTokens) {
    public LlmdConfig {
      req(loadAwareWeight >= 0 && loadAwareThreshold >= 1, "llm-d load-aware scorer: weight >= 0, threshold >= 1");
      req(prefixMaxTokens >= 1, "llmdPrefixMaxTokens must be >= 1 (Infinity = no cap)");
    }

    public static LlmdConfig of(ReplaySettings s) {
      return new LlmdConfig(s.llmdPrefixWeight, s.llmdQueueWeight, s.llmdKvUtilWeight, s.llmdLoadAwareWeight,
          s.llmdLoadAwareThreshold, s.llmdPrefixMaxTokens);
    }
  }

  /**
   * The SGLang router's cache_aware policy: balance_abs_threshold, balance_rel_threshold,
   * cache_threshold (settings sglangBalanceAbs 64, sglangBalanceRel 1.5, sglangCacheThreshold 0.3).
   */
  public record SglangConfig(int balanceAbs, double balanceRel, double cacheThreshold) {
    public SglangConfig {
      req(balanceRel >= 1 && balanceAbs >= 0, "SGLang thresholds: rel >= 1, abs >= 0");
    }

    public static SglangConfig of(ReplaySettings s) {
      return new SglangConfig(s.sglangBalanceAbs, s.sglangBalanceRel, s.sglangCacheThreshold);
    }
  }

  /** The session-hash ring's virtual nodes per instance (setting sessionHashVnodes, 160). */
  public record SessionHashConfig(int vnodes) {
    public SessionHashConfig {
      req(vnodes >= 1, "sessionHashVnodes must be >= 1");
    }

    public static SessionHashConfig of(ReplaySettings s) {
      return new SessionHashConfig(s.sessionHashVnodes);
    }
  }

  /**
   * Checks every policy's configuration in {@code s} (a usage error naming the first bad knob), in
   * the order they have always been reported; the check {@link ReplaySettings#validate} is given.
   */
  public static void checkConfigs(ReplaySettings s) {
    SMetricConfig.of(s);
    SglangConfig.of(s);
    LlmdConfig.of(s);
    SessionHashConfig.of(s);
  }

  private static void req(boolean ok, String msg) {
    if (!ok) throw new io.smetric.audit.common.UsageException("replay settings: " + msg);
  }

  private final String cliName;
  private final PolicyInfo info;
  private final BiFunction<ReplaySettings, ReplayTrace, Policy> factory;

  Policies(String name, String source, String defaults, Set<Need> needs, Function<ReplaySettings, Policy> factory) {
    this(name, source, defaults, needs, (s, t) -> factory.apply(s));
  }

  // as-recorded is built per trace: it looks each replayed request up by id
  Policies(String name, String source, String defaults, Set<Need> needs, BiFunction<ReplaySettings, ReplayTrace, Policy> factory) {
    this.cliName = name;
    this.info = new PolicyInfo(name, source, defaults, Set.copyOf(needs));
    this.factory = factory;
  }

  public String cliName() {
    return cliName;
  }

  public PolicyInfo info() {
    return info;
  }

  public Policy create(ReplaySettings s) {
    return factory.apply(s, null);
  }

  /** A fresh policy for a replay of {@code t} (as-recorded needs the trace). */
  public Policy create(ReplaySettings s, ReplayTrace t) {
    return factory.apply(s, t);
  }

  public static Policies byName(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    for (Policies p : values()) if (p.cliName.equals(n)) return p;
    throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + names());
  }

  public static String names() {
    List<String> out = new ArrayList<>();
    for (Policies p : values()) out.add(p.cliName);
    return String.join(",", out);
  }

  /** The needs the trace cannot meet, as reasons; empty when the policy can run. */
  public List<String> unmet(ReplayTrace t) {
    List<String> why = new ArrayList<>();
    if (info.needs().contains(Need.BLOCKS) && !t.hasBlocks) why.add("the trace has no block hashes (cache state unknown)");
    if (info.needs().contains(Need.SESSIONS) && !t.hasSessions) why.add("the trace has no session ids");
    if (info.needs().contains(Need.TURNS) && !t.hasTurns) why.add("the trace has no turn numbers");
    return why;
  }

  /** {@link #unmet(ReplayTrace)}, and as-recorded's need of the trace's recorded routing (carried by the settings). */
  public List<String> unmet(ReplayTrace t, ReplaySettings s) {
    List<String> why = unmet(t);
    if (this == AS_RECORDED && s.recordedRouting == null) why.add("the trace records no routing (served_instance)");
    return why;
  }

  /** Every policy a replay runs by default: all but as-recorded, which replays a recording rather than deciding. */
  public static List<Policies> defaults() {
    List<Policies> out = new ArrayList<>(List.of(values()));
    out.remove(AS_RECORDED);
    return out;
  }
}
