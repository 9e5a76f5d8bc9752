package io.smetric.audit.replay.sweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.List;

/**
 * The audit sweep preset ({@code replay --sweep audit}): everything the verdict needs in one Spark
 * job. The production policies and SMetric at every global ratio of the paper (0, 0.4, 0.8, 1.6,
 * 3.2) and every offered rate; the 2x2 guard ablation (smetric-basic, smetric-overload-only,
 * smetric-eviction-only) at every ratio; OVERLOAD {1, 2, 3, Infinity} and HIT_RATIO {0, 0.25,
 * 0.75} sensitivity of smetric at global ratio 1.6 (the other threshold at its default).
 *
 * <p>Offered rates are derived from the trace so that they bracket saturation: the reference
 * {@code x_ref} is the rate scale at which a cluster <em>without any cache</em> would saturate on
 * prefill compute, N x tokenBudget / (a + b x tokenBudget) prompt tokens per second against the
 * trace's prompt tokens per second at x1. Caching lets a policy go beyond it, the TPOT SLO (decode
 * steps slowed by prefill chunks) holds it below; the ladder {@link #RATE_MULTIPLIERS} x x_ref
 * covers both sides. A headline found at the lowest or highest rate is flagged in replay.json
 * ({@code at_edge}) because then the maximum may lie outside the sweep.
 */
public final class AuditPlan {
  public static final List<Policies> POLICIES = List.of(Policies.SMETRIC, Policies.LEAST_LOAD, Policies.ROUND_ROBIN,
      Policies.CACHE_AFFINITY, Policies.LMETRIC, Policies.DYNAMO_KV, Policies.LLM_D, Policies.SGLANG_CACHE_AWARE,
      Policies.SESSION_HASH);
  public static final List<Policies> ABLATION = List.of(Policies.SMETRIC_BASIC, Policies.SMETRIC_OVERLOAD_ONLY,
      Policies.SMETRIC_EVICTION_ONLY);
  public static final List<Double> GLOBAL_RATIOS = List.of(0.0, 0.4, 0.8, 1.6, 3.2);
  public static final double[] RATE_MULTIPLIERS = {0.125, 0.25, 0.375, 0.5, 1.0};
  public static final double SENSITIVITY_GLOBAL_RATIO = 1.6;
  public static final List<Double> OVERLOADS = List.of(1.0, 2.0, 3.0, Double.POSITIVE_INFINITY);
  public static final List<Double> HIT_RATIOS = List.of(0.0, 0.25, 0.75);

  private final List<SimSpec> specs;
  private final List<Double> rates;
  private final double rateReference;

  private AuditPlan(List<SimSpec> specs, List<Double> rates, double rateReference) {
    this.specs = specs;
    this.rates = rates;
    this.rateReference = rateReference;
  }

  public List<SimSpec> specs() {
    return specs;
  }

  public List<Double> rates() {
    return rates;
  }

  /** x_ref: the rate scale at which a cache-less cluster saturates on prefill compute (1 if the trace has no span). */
  public static double rateReference(ReplayTrace t, ReplaySettings base) {
    double span = t.n < 2 ? 0 : t.arrival[t.n - 1] - t.arrival[0];
    long tokens = t.totalInputTokens();
    if (span <= 0 || tokens <= 0) return 1.0;
    int budget = base.profile.tokenBudget;
    double perInstance = budget / (base.profile.stepBaseS + base.profile.prefillPerTokenS * budget);
    return base.instances * perInstance / (tokens / span);
  }

  public static AuditPlan of(ReplayTrace t, ReplaySettings base) {
    double ref = rateReference(t, base);
    List<Double> rates = new ArrayList<>();
    for (double m : RATE_MULTIPLIERS) rates.add(round(m * ref));
    List<SimSpec> grid = new ArrayList<>();
    grid.addAll(Sweep.grid(POLICIES, GLOBAL_RATIOS, rates, List.of(base.overload), List.of(base.hitRatio)));
    grid.addAll(Sweep.grid(ABLATION, GLOBAL_RATIOS, rates, List.of(base.overload), List.of(base.hitRatio)));
    List<Double> os = new ArrayList<>(OVERLOADS);
    os.remove((Double) base.overload);
    List<Double> hs = new ArrayList<>(HIT_RATIOS);
    hs.remove((Double) base.hitRatio);
    grid.addAll(Sweep.grid(List.of(Policies.SMETRIC), List.of(SENSITIVITY_GLOBAL_RATIO), rates, os, List.of(base.hitRatio)));
    grid.addAll(Sweep.grid(List.of(Policies.SMETRIC), List.of(SENSITIVITY_GLOBAL_RATIO), rates, List.of(base.overload), hs));
    List<SimSpec> out = new ArrayList<>(grid.size());
    int id = 0;
    for (SimSpec s : grid) out.add(new SimSpec(id++, s.policy(), s.globalRatio(), s.rateScale(), s.overload(), s.hitRatio()));
    return new AuditPlan(List.copyOf(out), List.copyOf(rates), ref);
  }

  /** Four significant digits: rates appear in tables and must compare equal across runs. */
  static double round(double x) {
    if (x <= 0 || !Double.isFinite(x)) return x;
    double scale = Math.pow(10, 3 - Math.floor(Math.log10(x)));
    return Math.round(x * scale) / scale;
  }

  /** The plan as replay.json's {@code sweep} block. */
  public ObjectNode describe() {
    ObjectNode o = Json.object();
    o.put("preset", "audit");
    o.put("simulations", specs.size());
    o.put("rate_reference", rateReference);
    o.put("rate_reference_rule", "N x tokenBudget / (stepBase + prefillPerToken x tokenBudget) / (trace prompt tokens per second at x1): "
        + "where a cluster without cache would saturate on prefill");
    ArrayNode m = o.putArray("rate_multipliers");
    for (double x : RATE_MULTIPLIERS) m.add(x);
    ArrayNode r = o.putArray("rates");
    rates.forEach(r::add);
    ArrayNode p = o.putArray("policies");
    POLICIES.forEach(x -> p.add(x.cliName()));
    ArrayNode a = o.putArray("ablation");
    ABLATION.forEach(x -> a.add(x.cliName()));
    ArrayNode g = o.putArray("global_ratios");
    GLOBAL_RATIOS.forEach(g::add);
    o.put("sensitivity_global_ratio", SENSITIVITY_GLOBAL_RATIO);
    ArrayNode os = o.putArray("sensitivity_overloads");
    OVERLOADS.forEach(x -> SweepSummary.putNumber(os.addObject(), "overload", x));
    ArrayNode hs = o.putArray("sensitivity_hit_ratios");
    HIT_RATIOS.forEach(hs::add);
    return o;
  }
}
