package io.smetric.audit.replay.sweep;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplaySettings;
import java.util.Map;
import java.util.function.ObjDoubleConsumer;
import java.util.function.ToDoubleFunction;

/**
 * The settings a sweep varies, each with its getter and setter written out, so that a sweep's
 * variable can be followed to the field it sets and a renamed field fails to compile (issue 30;
 * until then a dotted path was resolved by reflection at run time). {@link #key} is the name a
 * run's {@code overrides} carry in replay.json and its replay table ({@code profile.FIELD} for a
 * field of the model profile): part of the output, kept as it was.
 *
 * <p>Numbers only: an int field takes the value rounded, a boolean 0 / 1.
 */
public enum SweepVariable {
  /** The global tier's effective read rate per instance [GB/s] (conditions sweep). */
  GLOBAL_READ_GBPS("profile.globalReadGBps", s -> s.profile.globalReadGBps,
      (s, v) -> s.profile = s.profile.with(p -> p.globalReadGBps = v)),
  /** The global tier's latency per lookup [s] (conditions sweep). */
  GLOBAL_LOOKUP_LATENCY_S("profile.globalLookupLatencyS", s -> s.profile.globalLookupLatencyS,
      (s, v) -> s.profile = s.profile.with(p -> p.globalLookupLatencyS = v)),
  /** The global tier's KV save rate [GB/s] (conditions sweep). */
  GLOBAL_SAVE_GBPS("profile.globalSaveGBps", s -> s.profile.globalSaveGBps,
      (s, v) -> s.profile = s.profile.with(p -> p.globalSaveGBps = v)),
  /** Whether a step waits for its KV saves, 0 / 1 (set with the save rate by the conditions sweep). */
  GLOBAL_SAVE_BLOCKS_STEP("profile.globalSaveBlocksStep", s -> s.profile.globalSaveBlocksStep ? 1 : 0,
      (s, v) -> s.profile = s.profile.with(p -> p.globalSaveBlocksStep = v != 0)),
  /** The prefill compute per uncached prompt token [s] (conditions sweep). */
  PREFILL_PER_TOKEN_S("profile.prefillPerTokenS", s -> s.profile.prefillPerTokenS,
      (s, v) -> s.profile = s.profile.with(p -> p.prefillPerTokenS = v)),
  /** The step's token budget (conditions sweep). */
  TOKEN_BUDGET("profile.tokenBudget", s -> s.profile.tokenBudget,
      (s, v) -> s.profile = s.profile.with(p -> p.tokenBudget = (int) Math.round(v))),
  /** The TTFT SLO's time per input token [s] (conditions sweep). */
  TTFT_PER_TOKEN_S("ttftPerTokenS", s -> s.ttftPerTokenS, (s, v) -> s.ttftPerTokenS = v),
  /** SMetric's OVERLOAD (conditions sweep; a run spec carries it in its own field). */
  OVERLOAD("overload", s -> s.overload, (s, v) -> s.overload = v),
  /** SMetric's HIT_RATIO (conditions sweep; a run spec carries it in its own field). */
  HIT_RATIO("hitRatio", s -> s.hitRatio, (s, v) -> s.hitRatio = v),
  /** The cluster's instances (the capacity search). */
  INSTANCES("instances", s -> s.instances, (s, v) -> s.instances = (int) Math.round(v)),
  /** A pass/fail run's attainment threshold (the capacity search). */
  DECIDE_ATTAINMENT("decideAttainment", s -> s.decideAttainment, (s, v) -> s.decideAttainment = v);

  private final String key;
  private final ToDoubleFunction<ReplaySettings> get;
  private final ObjDoubleConsumer<ReplaySettings.Builder> set;

  SweepVariable(String key, ToDoubleFunction<ReplaySettings> get, ObjDoubleConsumer<ReplaySettings.Builder> set) {
    this.key = key;
    this.get = get;
    this.set = set;
  }

  /** The name in a run's overrides (replay.json, the replay table). */
  public String key() {
    return key;
  }

  /** The field of the model profile this variable sets, or null when it is a field of the settings. */
  public String profileField() {
    return key.startsWith(PROFILE) ? key.substring(PROFILE.length()) : null;
  }

  private static final String PROFILE = "profile.";

  public double get(ReplaySettings s) {
    return get.applyAsDouble(s);
  }

  /** Sets this variable to {@code v} on a settings builder. */
  public void set(ReplaySettings.Builder b, double v) {
    set.accept(b, v);
  }

  /** {@code s} with this variable at {@code v}. */
  public ReplaySettings with(ReplaySettings s, double v) {
    return s.with(b -> set.accept(b, v));
  }

  /** Sets every variable of {@code values} (by key) on a settings builder. */
  public static void setAll(ReplaySettings.Builder b, Map<String, Double> values) {
    for (Map.Entry<String, Double> e : values.entrySet()) byKey(e.getKey()).set.accept(b, e.getValue());
  }

  /** The variable named {@code key} in a run's overrides. */
  public static SweepVariable byKey(String key) {
    for (SweepVariable v : values()) if (v.key.equals(key)) return v;
    throw new UsageException("unknown sweep variable '" + key + "'");
  }
}
