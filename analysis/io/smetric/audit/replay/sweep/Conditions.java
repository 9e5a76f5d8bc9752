package io.smetric.audit.replay.sweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.ConditionsBlock;
import io.smetric.audit.contract.ConditionsBlock.Grid;
import io.smetric.audit.contract.ConditionsBlock.Parameter;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The conditions sweep (docs/replay.md, "Conditions"): parameters no trace can tell (the global
 * tier's read rate, lookup latency and save cost, the prefill cost of a cache miss, the TTFT SLO's
 * slope, SMetric's OVERLOAD and HIT_RATIO) varied over documented ranges, one at a time and then
 * over a grid of the two that move SMetric's gain most, for SMetric and the router the verdict
 * judges it against, at the verdict's own operating point: the declared global-tier capacity and
 * the decision load's offered rate ({@link EqualLoad}; declared before the replay, so no maximum
 * over capacities or rates enters it). Both routers run each point at that same rate: the gain is
 * the one the verdict reads, under other values of what no trace can tell, for the same traffic.
 * Each parameter names the setting it varies as a {@link SweepVariable} (a getter and a setter
 * written out), so a renamed field fails to compile.
 */
public final class Conditions {
  /**
   * A parameter and its documented range.
   *
   * @param variable the setting it varies
   * @param with fixed overrides applied with every non-base level (e.g. saves that block the step)
   * @param scale multiplier from the field's unit to {@code unit} for sentences (e.g. s -> ms)
   */
  public record Param(String name, String label, SweepVariable variable, List<Double> levels, String unit, double scale,
      String source, boolean smetricOnly, Map<SweepVariable, Double> with) {}

  /** The documented ranges (sources in docs/replay.md, "Conditions"; numbers from measurements/facts/global-tier-costs.csv). */
  public static final List<Param> DEFAULTS = List.of(
      new Param("global_read_rate", "the global tier's effective read rate per instance",
          SweepVariable.GLOBAL_READ_GBPS, List.of(1.12, 6.8, 25.0), "GB/s", 1,
          "LMCache RemoteBackend 1.12 GB/s (LMCache PR #2213); LMCache GDS backend 6.8 GB/s (Mooncake issue #467, "
              + "computed); PCIe Gen4 x16 25 GB/s (upper bound)", false, Map.of()),
      new Param("global_lookup_latency", "the global tier's latency per lookup",
          SweepVariable.GLOBAL_LOOKUP_LATENCY_S, List.of(0.001, 0.035, 0.116), "ms", 1000,
          "Mooncake batchexist 1-2 ms (LMCache PR #936); LMCache remote lookups 5.6-116 ms warm, sample 35 ms "
              + "(LMCache issue #891)", false, Map.of()),
      new Param("global_save_rate", "the global tier's KV save rate (saves blocking the step)",
          SweepVariable.GLOBAL_SAVE_GBPS, List.of(5.65, 13.0, Double.POSITIVE_INFINITY), "GB/s", 1,
          "LMCache store overhead 17.4 us/token = 5.65 GB/s at 96 KiB/token (Mooncake issue #467, GDS); GPU-to-CPU "
              + "offload 12.1-14.8 GB/s (LMCache issue #2262); free saves (Infinity)", false,
          Map.of(SweepVariable.GLOBAL_SAVE_BLOCKS_STEP, 1.0)),
      // b, the price of a cache miss: public measurements do not pin it for the paper's GPU (it is
      // carried over from another GPU by a FLOP/s rule), so its stated range is swept; a profile
      // that states no range for it has nothing to sweep (no levels of its own: their scale is the model's)
      new Param("prefill_cost", "the prefill compute per uncached prompt token (the price of a cache miss)",
          SweepVariable.PREFILL_PER_TOKEN_S, List.of(), "us/token", 1e6,
          "the profile's own range for prefillPerTokenS (docs/validation.md, Sources 9)", false, Map.of()),
      // issue 26: most misses at the operating point are TPOT-only (decode steps that carry a
      // prefill chunk); the step's token budget (vLLM's max_num_batched_tokens, which caps the
      // chunk) decides how much a prefill slows the decodes it shares a step with
      new Param("step_token_budget", "the step's token budget (vLLM max_num_batched_tokens; caps the prefill chunk)",
          SweepVariable.TOKEN_BUDGET, List.of(512.0, 2048.0), "tokens", 1,
          "vLLM PR #4580: 512, chunked prefill's first default (the best inter-token latency on A100 in its benchmark); "
              + "vLLM's Optimization and Tuning guide (V1): smaller budgets such as 2048 for inter-token latency, above "
              + "8192 for throughput; the profile's own value is added as a level", false, Map.of()),
      new Param("ttft_slo_slope", "the TTFT SLO's time per input token",
          SweepVariable.TTFT_PER_TOKEN_S, List.of(1.25e-4, 2.5e-4, 5e-4), "ms/token", 1000,
          "assumption: the paper does not publish its TTFT SLO coefficients; half to twice ours", false, Map.of()),
      new Param("overload", "SMetric's OVERLOAD", SweepVariable.OVERLOAD, List.of(1.0, 1.5, 3.0, Double.POSITIVE_INFINITY), "", 1,
          "paper Figure 25 sweeps 1.0 to infinity", true, Map.of()),
      new Param("hit_ratio", "SMetric's HIT_RATIO", SweepVariable.HIT_RATIO, List.of(0.0, 0.5, 0.75), "", 1,
          "paper Figure 25 sweeps 0 to 0.75", true, Map.of()));

  /**
   * The levels a profile field documents for itself: its source's low and high (the shipped and
   * calibrated profiles state the range their sources measured); plan adds the base value.
   * Empty when the variable is not a profile field or its source states no range; the parameter's
   * default levels apply then.
   */
  static List<Double> profileRange(ReplaySettings base, SweepVariable v) {
    var src = profileSource(base, v);
    if (src == null || src.low == null || src.high == null) return List.of();
    return List.of(src.low, src.high);
  }

  /** The source the profile states for a variable that is a profile field, or null. */
  private static io.smetric.audit.replay.ModelProfile.Source profileSource(ReplaySettings base, SweepVariable v) {
    String field = v.profileField();
    if (field == null || base.profile == null || base.profile.sources == null) return null;
    return base.profile.sources.get(field);
  }

  /** A parameter resolved against the base settings: its base value and levels (base included). */
  record Resolved(Param p, double base, List<Double> levels, String source) {
    SweepVariable variable() {
      return p.variable();
    }
  }

  /** One point's settings for one policy: what a curve of the sweep is. */
  record Point(String policy, double overload, double hitRatio, TreeMap<String, Double> overrides, String variant) {
    String key() {
      return policy + "|" + overload + "|" + hitRatio + "|" + overrides;
    }
  }

  private final double g;
  private final String router;
  /** The decision load's offered rate at g: every point runs there. */
  private final double rate;
  private final double defaultOverload;
  private final double defaultHitRatio;
  private final List<Resolved> params = new ArrayList<>();
  /** The two routers' OVERLOAD and HIT_RATIO at the defaults (NaN where a policy reads none). */
  private final Map<String, double[]> thresholds = new LinkedHashMap<>();
  private final Map<String, Point> points = new LinkedHashMap<>();
  private Resolved gridX;
  private Resolved gridY;
  private boolean gridPlanned;
  private final String notApplicable;

  private Conditions(double g, String router, double rate, ReplaySettings base, String notApplicable) {
    this.g = g;
    this.router = router;
    this.rate = rate;
    this.defaultOverload = base.overload;
    this.defaultHitRatio = base.hitRatio;
    this.notApplicable = notApplicable;
  }

  /**
   * The sweep at the verdict's operating point ({@link EqualLoad#declaredGlobalRatio}, the decision
   * load's rate) for SMetric and the judged router there; "not applicable" when the comparison has
   * no such point.
   */
  public static Conditions plan(SweepSummary main, ReplaySettings base, EqualLoad equalLoad, List<Param> params) {
    double gd = equalLoad.declaredGlobalRatio();
    EqualLoad.Anchor a = Double.isNaN(gd) ? null : equalLoad.anchors().get(gd);
    if (a == null) {
      return new Conditions(Double.NaN, null, Double.NaN, base, "no operating point to vary: "
          + (Double.isNaN(gd) ? "the replay swept no global-tier capacity above 0 with SMetric and a judged router"
              : "no judged router with tokens within SLO at the declared capacity " + gd + "x"));
    }
    Conditions c = new Conditions(gd, a.judged(), a.rate(EqualLoad.DECISION_LOAD), base, null);
    Map<String, TreeMap<Double, SweepSummary.Headline>> d = main.atDefaults();
    for (String pol : List.of(Policies.SMETRIC.cliName(), a.judged())) {
      SweepSummary.Headline h = d.get(pol).get(gd);
      c.thresholds.put(pol, new double[] {h.overload(), h.hitRatio()});
    }
    for (Param p : params) {
      double b = p.variable().get(base);
      List<Double> range = profileRange(base, p.variable());
      TreeSet<Double> lv = new TreeSet<>(range.isEmpty() ? p.levels() : range);
      lv.add(b);
      if (lv.size() < 2) continue; // nothing but the audit's own value: no range to vary
      String source = range.isEmpty() ? p.source()
          : "the profile's own range (" + base.profile.name + "): " + profileSource(base, p.variable()).ref;
      c.params.add(new Resolved(p, b, List.copyOf(lv), source));
    }
    for (Resolved r : c.params) {
      for (double v : r.levels()) {
        if (v == r.base()) continue;
        c.add(Policies.SMETRIC.cliName(), "param:" + r.p().name(), Map.of(r, v));
        if (!r.p().smetricOnly()) c.add(a.judged(), "param:" + r.p().name(), Map.of(r, v));
      }
    }
    return c;
  }

  /** The point of policy {@code pol} with the given parameter values (SMetric-only ones do not apply to others). */
  private Point point(String pol, String variant, Map<Resolved, Double> values) {
    boolean sm = pol.equals(Policies.SMETRIC.cliName());
    double[] t = thresholds.get(pol);
    double o = t != null ? t[0] : sm ? defaultOverload : Double.NaN;
    double h = t != null ? t[1] : sm ? defaultHitRatio : Double.NaN;
    TreeMap<String, Double> ov = new TreeMap<>();
    for (Map.Entry<Resolved, Double> e : values.entrySet()) {
      Resolved r = e.getKey();
      if (r.p().smetricOnly() && !sm) continue;
      if (e.getValue() == r.base()) continue; // the default: no override (one key per distinct setting)
      if (r.variable() == SweepVariable.OVERLOAD) o = e.getValue();
      else if (r.variable() == SweepVariable.HIT_RATIO) h = e.getValue();
      else {
        ov.put(r.variable().key(), e.getValue());
        r.p().with().forEach((k, v) -> ov.put(k.key(), v));
      }
    }
    return new Point(pol, o, h, ov, variant);
  }

  private void add(String pol, String variant, Map<Resolved, Double> values) {
    if (isBase(pol, values)) return; // the main sweep's headline already
    Point p = point(pol, variant, values);
    points.putIfAbsent(p.key(), p);
  }

  /** Whether every value that applies to {@code pol} is the base's. */
  private static boolean isBase(String pol, Map<Resolved, Double> values) {
    for (Map.Entry<Resolved, Double> e : values.entrySet()) {
      boolean applies = !e.getKey().p().smetricOnly() || pol.equals(Policies.SMETRIC.cliName());
      if (applies && e.getValue() != e.getKey().base()) return false;
    }
    return true;
  }

  public String notApplicable() {
    return notApplicable;
  }

  /**
   * The next round of the conditions sweep given every run so far (run ids -1); empty when done.
   * The round-by-round sweep: every point's {@link #next} in the order the points were planned;
   * when all are done, the grid ({@link #planGrid}) and its points' first rates.
   */
  public List<SimSpec> nextRound(List<RunResult> all) {
    if (notApplicable != null) return List.of();
    List<SimSpec> out = new ArrayList<>();
    for (String k : pointKeys()) out.addAll(next(k, all));
    if (!out.isEmpty() || gridPlanned) return out;
    List<String> before = pointKeys();
    planGrid(all);
    for (String k : pointKeys()) if (!before.contains(k)) out.addAll(next(k, all));
    return out;
  }

  /** The points planned so far, in the order they were planned (none when not applicable). */
  public List<String> pointKeys() {
    return notApplicable != null ? List.of() : new ArrayList<>(points.keySet());
  }

  /**
   * One point's run (run id -1) at the operating point's rate, given every run so far, of which it
   * reads only its own; empty once it ran.
   */
  public List<SimSpec> next(String pointKey, List<RunResult> all) {
    Point p = points.get(pointKey);
    TreeMap<Double, Double> cur = sampled(all).getOrDefault(p.key(), new TreeMap<>());
    if (cur.containsKey(rate)) return List.of();
    return List.of(new SimSpec(-1, p.policy(), g, rate, p.overload(), p.hitRatio(), 0, p.variant(), p.overrides()));
  }

  /**
   * Once every one-at-a-time point is done: plans a grid over the two parameters that move the
   * gain most (at most once; fewer than two that move it: no grid), adding its points to
   * {@link #pointKeys}.
   */
  public void planGrid(List<RunResult> all) {
    if (notApplicable != null || gridPlanned) return;
    gridPlanned = true;
    Map<String, TreeMap<Double, Double>> sampled = sampled(all);
    List<Resolved> ranked = new ArrayList<>();
    Map<Resolved, Double> range = new LinkedHashMap<>();
    for (Resolved r : params) {
      double lo = Double.POSITIVE_INFINITY;
      double hi = Double.NEGATIVE_INFINITY;
      for (double v : r.levels()) {
        Double gain = gain(sampled, Map.of(r, v));
        if (gain == null) continue;
        lo = Math.min(lo, gain);
        hi = Math.max(hi, gain);
      }
      if (hi > lo) {
        range.put(r, hi - lo);
        ranked.add(r);
      }
    }
    ranked.sort((a, b) -> Double.compare(range.get(b), range.get(a)));
    if (ranked.size() < 2) return;
    gridX = ranked.get(0);
    gridY = ranked.get(1);
    for (double x : gridX.levels()) {
      for (double y : gridY.levels()) {
        if (x == gridX.base() || y == gridY.base()) continue; // on the axes: the one-at-a-time points
        Map<Resolved, Double> v = Map.of(gridX, x, gridY, y);
        add(Policies.SMETRIC.cliName(), "grid", v);
        add(router, "grid", v);
      }
    }
  }

  private Map<String, TreeMap<Double, Double>> sampled(List<RunResult> all) {
    Map<String, TreeMap<Double, Double>> m = new LinkedHashMap<>();
    for (RunResult r : all) {
      SimSpec s = r.spec();
      if (s.replicate() != 0 || s.globalRatio() != g) continue;
      if (s.variant() == null && !s.overrides().isEmpty()) continue;
      if (Capacity.VARIANT.equals(s.variant()) || Capacity.SIZED.equals(s.variant())) continue;
      String key = new Point(s.policy(), s.overload(), s.hitRatio(), s.overrides(), null).key();
      Double t = r.metrics().get("tps_within_slo");
      m.computeIfAbsent(key, k -> new TreeMap<>()).put(s.rateScale(), t == null ? 0.0 : t);
    }
    return m;
  }

  /** A point's TPS within SLO at the operating point's rate (the main sweep's run when every value is the base's). */
  private Double tps(Map<String, TreeMap<Double, Double>> sampled, String pol, Map<Resolved, Double> values) {
    Point p = isBase(pol, values) ? point(pol, null, Map.of()) : point(pol, null, values);
    NavigableMap<Double, Double> c = sampled.get(p.key());
    return c == null ? null : c.get(rate);
  }

  private Double gain(Map<String, TreeMap<Double, Double>> sampled, Map<Resolved, Double> values) {
    Double x = tps(sampled, Policies.SMETRIC.cliName(), values);
    Double y = tps(sampled, router, values);
    if (x == null || y == null || y <= 0) return null;
    return x / y - 1;
  }

  /**
   * replay.json's {@code conditions} block: per parameter its levels with SMetric's and the judged
   * router's TPS within SLO and the gain; how much each moves the gain; the grid over the two
   * that move it most. The verdict classifies the points against its threshold and noise. Keys:
   * {@link ConditionsBlock}, which the report reads.
   */
  public ObjectNode describe(List<RunResult> all) {
    ObjectNode o = Json.object();
    if (notApplicable != null) {
      o.put(Metric.NOT_APPLICABLE, notApplicable);
      return o;
    }
    Map<String, TreeMap<Double, Double>> sampled = sampled(all);
    o.put(ConditionsBlock.GLOBAL_RATIO, g);
    o.put(ConditionsBlock.JUDGED_ROUTER, router);
    o.put(ConditionsBlock.RATE_SCALE, rate);
    o.put(ConditionsBlock.LOAD, EqualLoad.DECISION_LOAD);
    o.put(ConditionsBlock.RULE, "each point: both routers at the same offered rate, the verdict's operating point (the declared "
        + "global-tier capacity, " + EqualLoad.DECISION_LOAD + "x the judged router's knee there); gain = SMetric's TPS "
        + "within SLO / the judged router's - 1");
    ArrayNode ps = o.putArray(ConditionsBlock.PARAMETERS);
    for (Resolved r : params) {
      ObjectNode x = ps.addObject();
      x.put(Parameter.NAME, r.p().name());
      x.put(Parameter.LABEL, r.p().label());
      x.put(Parameter.PATH, r.variable().key());
      x.put(Parameter.UNIT, r.p().unit());
      x.put(Parameter.UNIT_SCALE, r.p().scale());
      x.put(Parameter.SOURCE, r.source());
      x.put(Parameter.SMETRIC_ONLY, r.p().smetricOnly());
      SweepSummary.putNumber(x, Parameter.BASE_VALUE, r.base());
      ArrayNode pts = x.putArray(Parameter.POINTS);
      double lo = Double.POSITIVE_INFINITY;
      double hi = Double.NEGATIVE_INFINITY;
      for (double v : r.levels()) {
        ObjectNode p = pts.addObject();
        SweepSummary.putNumber(p, Metric.VALUE, v);
        Map<Resolved, Double> vals = Map.of(r, v);
        putTps(p, ConditionsBlock.Point.SMETRIC_TPS, tps(sampled, Policies.SMETRIC.cliName(), vals));
        putTps(p, ConditionsBlock.Point.ROUTER_TPS, tps(sampled, router, vals));
        Double gain = gain(sampled, vals);
        putTps(p, ConditionsBlock.Point.GAIN, gain);
        if (gain != null) {
          lo = Math.min(lo, gain);
          hi = Math.max(hi, gain);
        }
      }
      if (hi >= lo) x.put(Parameter.GAIN_RANGE, hi - lo);
      else x.putNull(Parameter.GAIN_RANGE);
    }
    if (gridX != null) {
      ObjectNode gr = o.putObject(ConditionsBlock.GRID);
      gr.put(Grid.X, gridX.p().name());
      gr.put(Grid.Y, gridY.p().name());
      ArrayNode xs = gr.putArray(Grid.X_LEVELS);
      gridX.levels().forEach(v -> SweepSummary.putNumber(xs.addObject(), ConditionsBlock.Level.V, v));
      ArrayNode ys = gr.putArray(Grid.Y_LEVELS);
      gridY.levels().forEach(v -> SweepSummary.putNumber(ys.addObject(), ConditionsBlock.Level.V, v));
      ArrayNode gain = gr.putArray(Grid.GAIN); // [y][x]
      for (double y : gridY.levels()) {
        ArrayNode row = gain.addArray();
        for (double x : gridX.levels()) {
          Double v = gain(sampled, Map.of(gridX, x, gridY, y));
          if (v == null) row.addNull();
          else row.add(v);
        }
      }
    } else {
      o.putNull(ConditionsBlock.GRID);
    }
    return o;
  }

  private static void putTps(ObjectNode o, String k, Double v) {
    if (v == null) o.putNull(k);
    else o.put(k, v);
  }

  /** For sentences: a value in the parameter's display unit. */
  public static String display(double v, double scale) {
    if (Double.isInfinite(v)) return "unlimited";
    return String.format(Locale.ROOT, "%.4g", v * scale).replaceAll("(\\.\\d*?)0+$", "$1").replaceAll("\\.$", "");
  }
}
