package io.smetric.audit.replay.sweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.AblationBlock;
import io.smetric.audit.contract.BestRouter;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.contract.PreconditionsBlock;
import io.smetric.audit.contract.ReplayComparison;
import io.smetric.audit.contract.ReplayComparison.Row;
import io.smetric.audit.contract.SensitivityBlock;
import io.smetric.audit.contract.StickinessBlock;
import io.smetric.audit.replay.policy.Policies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The sweep-level blocks of replay.json, computed from run summaries: {@code headline} (maximum
 * TPS within SLO over the offered-rate sweep per policy, global ratio, OVERLOAD and HIT_RATIO),
 * {@code comparison} (SMetric against the best baseline per global ratio: the stable contract the
 * verdict reads, docs/replay.md "replay.json"), {@code ablation} (the 2x2 guard ablation),
 * {@code sensitivity} (OVERLOAD and HIT_RATIO sweeps) and {@code stickiness} per policy.
 *
 * <p>"At the defaults" means OVERLOAD and HIT_RATIO equal to the base settings (or not read by
 * the policy). Baselines are every simulated policy outside the SMetric family, including
 * {@code session-hash} (a production policy: consistent hashing of the session, e.g. Envoy
 * ring-hash on a session header) and the trivial {@code round-robin} / {@code random}.
 */
public final class SweepSummary {
  /** Gain that counts as "SMetric ahead" for {@code min_global_ratio_for_gain}. */
  public static final double GAIN_THRESHOLD = 0.02;

  /**
   * The paper's baselines as this replay names them: cache-first (BAILIAN's production router;
   * our stand-in is Llumnix-style cache-affinity), LMetric, and load balance (least-load).
   */
  public static final List<String> PAPER_BASELINES = List.of(Policies.CACHE_AFFINITY.cliName(), Policies.LMETRIC.cliName(),
      Policies.LEAST_LOAD.cliName());

  static final Set<String> SMETRIC_FAMILY = Set.of(Policies.SMETRIC.cliName(), Policies.SMETRIC_BASIC.cliName(),
      Policies.SMETRIC_OVERLOAD_ONLY.cliName(), Policies.SMETRIC_EVICTION_ONLY.cliName());

  public static boolean isSmetricFamily(String policy) {
    return SMETRIC_FAMILY.contains(policy);
  }

  /** The best run over the rate sweep for one (policy, global ratio, OVERLOAD, HIT_RATIO). */
  public record Headline(String policy, double globalRatio, double overload, double hitRatio, RunResult best,
      String edge) {
    public double tps() {
      return best.metrics().get("tps_within_slo");
    }
  }

  private final List<RunResult> runs;
  private final double defaultOverload;
  private final double defaultHitRatio;
  private final List<Headline> headlines;

  /** Bootstrap replicates: policy|g -> replicate -> TPS within SLO (at the headline's rate). */
  private final Map<String, TreeMap<Integer, Double>> replicates = new LinkedHashMap<>();
  /** Each curve's sampled points: policy|g|OVERLOAD|HIT_RATIO -> rate -> TPS within SLO. */
  private final Map<String, TreeMap<Double, Double>> curves = new LinkedHashMap<>();

  /**
   * @param allRuns every run; the summaries read the main sweep's (replicate 0, no condition
   *     variant); bootstrap replicates give the gains their intervals ({@link Uncertainty})
   */
  public SweepSummary(List<RunResult> allRuns, double defaultOverload, double defaultHitRatio) {
    List<RunResult> main = new ArrayList<>();
    for (RunResult r : allRuns) {
      SimSpec s = r.spec();
      if (s.isSearch()) main.add(r);
      else if (s.variant() == null && s.overrides().isEmpty()) {
        Double v = r.metrics().get("tps_within_slo");
        if (v != null) replicates.computeIfAbsent(s.policy() + "|" + s.globalRatio(), k -> new TreeMap<>()).put(s.replicate(), v);
      }
    }
    this.runs = main;
    this.defaultOverload = defaultOverload;
    this.defaultHitRatio = defaultHitRatio;
    Map<String, RunResult> best = new LinkedHashMap<>();
    Map<String, double[]> range = new LinkedHashMap<>();
    for (RunResult r : runs) {
      SimSpec s = r.spec();
      String key = s.policy() + "|" + s.globalRatio() + "|" + s.overload() + "|" + s.hitRatio();
      curves.computeIfAbsent(key, k -> new TreeMap<>()).put(s.rateScale(), r.metrics().get("tps_within_slo"));
      RunResult b = best.get(key);
      // strict >: the first (lowest run id, i.e. lowest rate in grid order) wins ties
      if (b == null || r.metrics().get("tps_within_slo") > b.metrics().get("tps_within_slo")) best.put(key, r);
      double[] mm = range.computeIfAbsent(key, k -> new double[] {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY});
      mm[0] = Math.min(mm[0], s.rateScale());
      mm[1] = Math.max(mm[1], s.rateScale());
    }
    List<Headline> hs = new ArrayList<>();
    for (Map.Entry<String, RunResult> e : best.entrySet()) {
      SimSpec s = e.getValue().spec();
      double[] mm = range.get(e.getKey());
      // the maximum at an end of the rate sweep may lie beyond it
      String edge = mm[0] == mm[1] ? "single_rate" : s.rateScale() == mm[1] ? "highest_rate"
          : s.rateScale() == mm[0] ? "lowest_rate" : null;
      hs.add(new Headline(s.policy(), s.globalRatio(), s.overload(), s.hitRatio(), e.getValue(), edge));
    }
    this.headlines = List.copyOf(hs);
  }

  public List<Headline> headlines() {
    return headlines;
  }

  /**
   * How closely h's maximum is located ({@link KneeSearch#resolution}: 0.008 = its sampled
   * neighbours lie within 0.8% of its rate); NaN when it lies at a sampled end.
   */
  public double resolution(Headline h) {
    TreeMap<Double, Double> c = curves.get(h.policy() + "|" + h.globalRatio() + "|" + h.overload() + "|" + h.hitRatio());
    return c == null ? Double.NaN : KneeSearch.resolution(c);
  }

  /** The main sweep's runs (replicate 0, no condition variant). */
  public List<RunResult> mainRuns() {
    return runs;
  }

  /** Whether any bootstrap replicate was replayed. */
  public boolean hasReplicates() {
    return !replicates.isEmpty();
  }

  private boolean atDefaults(Headline h) {
    return (Double.isNaN(h.overload()) || h.overload() == defaultOverload)
        && (Double.isNaN(h.hitRatio()) || h.hitRatio() == defaultHitRatio);
  }

  /** Headline TPS at the default thresholds: policy -> global ratio -> headline. */
  public Map<String, TreeMap<Double, Headline>> atDefaults() {
    Map<String, TreeMap<Double, Headline>> out = new LinkedHashMap<>();
    for (Headline h : headlines) {
      if (atDefaults(h)) out.computeIfAbsent(h.policy(), k -> new TreeMap<>()).put(h.globalRatio(), h);
    }
    return out;
  }

  /** The {@code comparison} block (contract in docs/replay.md): SMetric against the best of every baseline. */
  public ObjectNode comparison() {
    return comparison(null, false);
  }

  /** Baselines at the defaults, in run order (every simulated policy outside the SMetric family). */
  public List<String> baselines() {
    List<String> out = new ArrayList<>();
    for (String p : atDefaults().keySet()) if (!SMETRIC_FAMILY.contains(p)) out.add(p);
    return out;
  }

  /**
   * The comparison structure against the best of {@code against} at each global ratio ({@code
   * null} = every baseline). With {@code perBaseline}, each ratio's entry also lists every
   * compared baseline's headline and SMetric's gain over it ({@code "vs": {name: {...}}}).
   */
  public ObjectNode comparison(java.util.Collection<String> against, boolean perBaseline) {
    Map<String, TreeMap<Double, Headline>> d = atDefaults();
    List<String> baselines = new ArrayList<>();
    for (String p : baselines()) if (against == null || against.contains(p)) baselines.add(p);
    ObjectNode c = Json.object();
    ArrayNode bl = c.putArray(ReplayComparison.BASELINES);
    baselines.forEach(bl::add);
    ArrayNode by = c.putArray(ReplayComparison.BY_GLOBAL_RATIO);
    String why = null;
    TreeMap<Double, Headline> sm = d.get(Policies.SMETRIC.cliName());
    if (sm == null) why = "the policy smetric was not simulated (at the default OVERLOAD and HIT_RATIO)";
    else if (baselines.isEmpty()) {
      why = against == null ? "no baseline policy was simulated" : "none of " + new TreeSet<>(against) + " was simulated";
    }
    Double best = null;
    Double bestG = null;
    Double without = null;
    Double minG = null;
    boolean anyPositiveG = false;
    boolean hasZero = false;
    if (why == null) {
      for (Map.Entry<Double, Headline> e : sm.entrySet()) {
        double g = e.getKey();
        String bestName = null;
        double y = Double.NEGATIVE_INFINITY;
        for (String b : baselines) {
          Headline h = d.get(b).get(g);
          if (h != null && h.tps() > y) {
            y = h.tps();
            bestName = b;
          }
        }
        if (bestName == null) continue; // no baseline ran at this ratio
        double x = e.getValue().tps();
        Double gain = y > 0 ? x / y - 1 : null;
        ObjectNode o = by.addObject();
        o.put(Row.GLOBAL_RATIO, g);
        o.put(Row.SMETRIC_TPS, x);
        o.put(Row.SMETRIC_RATE_SCALE, e.getValue().best().spec().rateScale());
        o.put(Row.BEST_BASELINE, bestName);
        o.put(Row.BEST_BASELINE_TPS, y);
        o.put(Row.BEST_BASELINE_RATE_SCALE, d.get(bestName).get(g).best().spec().rateScale());
        putMetric(o, Row.SMETRIC_SLO_ATTAINMENT, "slo_attainment", e.getValue().best());
        putMetric(o, Row.BEST_BASELINE_SLO_ATTAINMENT, "slo_attainment", d.get(bestName).get(g).best());
        putNumber(o, Row.SMETRIC_RESOLUTION, resolution(e.getValue()));
        putNumber(o, Row.BEST_BASELINE_RESOLUTION, resolution(d.get(bestName).get(g)));
        if (gain == null) {
          o.putNull(Row.GAIN);
          o.put(Metric.NOT_APPLICABLE, "the best baseline has no token within SLO (gain undefined)");
        } else {
          o.put(Row.GAIN, gain);
        }
        if (perBaseline) {
          ObjectNode vs = o.putObject(Row.VS);
          for (String b : baselines) {
            Headline h = d.get(b).get(g);
            if (h == null) continue;
            ObjectNode v = vs.putObject(b);
            v.put(ReplayComparison.Vs.TPS_WITHIN_SLO, h.tps());
            if (h.tps() > 0) v.put(ReplayComparison.Vs.GAIN, x / h.tps() - 1);
            else v.putNull(ReplayComparison.Vs.GAIN);
          }
        }
        if (g > 0) {
          anyPositiveG = true;
          if (gain != null && (best == null || gain > best)) {
            best = gain;
            bestG = g;
          }
          if (gain != null && gain >= GAIN_THRESHOLD && minG == null) minG = g; // ascending g
        } else if (g == 0) {
          hasZero = true;
          without = gain;
        }
      }
    }
    ObjectNode w = c.putObject(ReplayComparison.BEST_GAIN_WITH_GLOBAL);
    if (best != null) {
      w.put(Metric.VALUE, best);
      w.put(ReplayComparison.Gain.GLOBAL_RATIO, bestG);
      w.put(ReplayComparison.BestGain.SELECTION, "the largest of the per-capacity gains in maximum TPS within SLO: descriptive (a maximum over "
          + "noisy gains is biased upwards); the verdict reads SMetric's gain at equal load at a declared capacity "
          + "(judged.smetric_gain_with_global_tier)");
    } else {
      w.putNull(Metric.VALUE);
      w.put(Metric.NOT_APPLICABLE, why != null ? why
          : anyPositiveG ? "gain undefined at every global ratio > 0 (no baseline token within SLO)"
          : "no global ratio > 0 with both smetric and a baseline in the sweep");
    }
    ObjectNode wo = c.putObject(ReplayComparison.GAIN_NO_GLOBAL);
    if (without != null) {
      wo.put("value", without);
    } else {
      wo.putNull("value");
      wo.put(Metric.NOT_APPLICABLE, why != null ? why
          : hasZero ? "gain undefined at global ratio 0 (no baseline token within SLO)"
          : "global ratio 0 with both smetric and a baseline is not in the sweep");
    }
    ObjectNode mg = c.putObject(ReplayComparison.MIN_GLOBAL_RATIO);
    if (minG != null) mg.put("value", minG);
    else mg.putNull("value");
    mg.put(ReplayComparison.MinGlobalRatio.THRESHOLD, GAIN_THRESHOLD);
    if (why != null) mg.put("not_applicable", why);
    else if (!anyPositiveG) mg.put("not_applicable", "no global ratio > 0 with both smetric and a baseline in the sweep");
    return c;
  }

  /**
   * Answer (a), the paper's claim: SMetric against the paper's own baselines (cache-first =
   * cache-affinity, LMetric, load balance = least-load) at every global ratio, the best of them
   * named, with SMetric's gain over each ({@code vs}).
   */
  public ObjectNode paperClaim() {
    ObjectNode c = comparison(PAPER_BASELINES, true);
    ArrayNode pb = Json.MAPPER.createArrayNode();
    PAPER_BASELINES.forEach(pb::add);
    c.set(ReplayComparison.PAPER_BASELINES, pb);
    return c;
  }

  /**
   * The comparison the verdict judges: SMetric against {@code currentRouter} (the router the user
   * runs today), or against the best of the paper's baselines at each ratio when it is null.
   */
  public ObjectNode judged(String currentRouter) {
    ObjectNode c = currentRouter == null ? comparison(PAPER_BASELINES, false) : comparison(List.of(currentRouter), false);
    if (currentRouter == null) {
      c.putNull(ReplayComparison.CURRENT_ROUTER);
      c.put(ReplayComparison.RULE, "the best of the paper's baselines (" + String.join(", ", PAPER_BASELINES)
          + ") at each global ratio (no --current-router given)");
    } else {
      c.put(ReplayComparison.CURRENT_ROUTER, currentRouter);
      c.put(ReplayComparison.RULE, currentRouter.equals(Policies.AS_RECORDED.cliName())
          ? "the trace's own recorded routing (as-recorded: the audit's default when the trace records served_instance, or --current-router)"
          : "the router named by --current-router");
    }
    return c;
  }

  /**
   * Answer (b), what to run: at every global ratio, every policy at the defaults outside SMetric's
   * ablation variants (smetric included), ranked by headline TPS within SLO; the best is named
   * with its margin over the runner-up, and SMetric's gain over the best other router.
   */
  public ObjectNode bestRouter() {
    Map<String, TreeMap<Double, Headline>> d = atDefaults();
    List<String> ranked = new ArrayList<>();
    for (String p : d.keySet()) if (!SMETRIC_FAMILY.contains(p) || p.equals(Policies.SMETRIC.cliName())) ranked.add(p);
    TreeSet<Double> gs = new TreeSet<>();
    for (String p : ranked) gs.addAll(d.get(p).keySet());
    ObjectNode o = Json.object();
    ArrayNode by = o.putArray(BestRouter.BY_GLOBAL_RATIO);
    for (double g : gs) {
      List<Headline> hs = new ArrayList<>();
      for (String p : ranked) {
        Headline h = d.get(p).get(g);
        if (h != null) hs.add(h);
      }
      if (hs.size() < 2) continue;
      // descending TPS; ties keep run order (stable sort)
      hs.sort((a, b) -> Double.compare(b.tps(), a.tps()));
      ObjectNode e = by.addObject();
      e.put(BestRouter.Row.GLOBAL_RATIO, g);
      ArrayNode rk = e.putArray(BestRouter.Row.RANKING);
      for (Headline h : hs) {
        ObjectNode x = rk.addObject().put(BestRouter.Ranked.POLICY, h.policy()).put(BestRouter.Ranked.TPS_WITHIN_SLO, h.tps())
            .put(BestRouter.Ranked.RATE_SCALE, h.best().spec().rateScale());
        putMetric(x, BestRouter.Ranked.SLO_ATTAINMENT, "slo_attainment", h.best());
        putMetric(x, BestRouter.Ranked.TTFT_P90_S, "ttft_p90_s", h.best());
        putNumber(x, BestRouter.Ranked.RESOLUTION, resolution(h));
      }
      Headline first = hs.get(0);
      Headline second = hs.get(1);
      e.put(BestRouter.Row.BEST, first.policy());
      e.put(BestRouter.Row.BEST_TPS, first.tps());
      e.put(BestRouter.Row.RUNNER_UP, second.policy());
      if (second.tps() > 0) e.put(BestRouter.Row.MARGIN, first.tps() / second.tps() - 1);
      else e.putNull(BestRouter.Row.MARGIN);
      Headline smH = d.containsKey(Policies.SMETRIC.cliName()) ? d.get(Policies.SMETRIC.cliName()).get(g) : null;
      if (smH != null) {
        Headline other = hs.get(0).policy().equals(Policies.SMETRIC.cliName()) ? hs.get(1) : hs.get(0);
        e.put(BestRouter.Row.BEST_OTHER, other.policy());
        if (other.tps() > 0) {
          double gain = smH.tps() / other.tps() - 1;
          e.put(BestRouter.Row.SMETRIC_GAIN_VS_BEST_OTHER, gain);
        } else {
          e.putNull(BestRouter.Row.SMETRIC_GAIN_VS_BEST_OTHER);
        }
      }
    }
    return o;
  }

  /**
   * The paper's preconditions at the operating point of every global ratio's headline
   * (docs/replay.md, "replay.json"): from SMetric's headline run the replayed requests per
   * instance-minute, the share of reuse within the interval threshold, the local tier's turnover
   * time and the share of reuse within it, the sessions live per instance; and whether the
   * cache-first baseline forms hot spots there: cache-affinity's mean max/mean load and
   * stickiness at its headline, against least-load's imbalance at its own. Keys:
   * {@link PreconditionsBlock}, which the report reads.
   */
  public ObjectNode preconditions(double intervalThresholdS) {
    Map<String, TreeMap<Double, Headline>> d = atDefaults();
    ObjectNode o = Json.object();
    o.put(PreconditionsBlock.REUSE_INTERVAL_THRESHOLD_S, intervalThresholdS);
    ArrayNode by = o.putArray(PreconditionsBlock.BY_GLOBAL_RATIO);
    TreeMap<Double, Headline> sm = d.get(Policies.SMETRIC.cliName());
    if (sm == null) {
      o.put(Metric.NOT_APPLICABLE, "the policy smetric was not simulated (at the default OVERLOAD and HIT_RATIO)");
      return o;
    }
    for (Map.Entry<Double, Headline> e : sm.entrySet()) {
      double g = e.getKey();
      RunResult r = e.getValue().best();
      ObjectNode x = by.addObject();
      x.put(PreconditionsBlock.Row.GLOBAL_RATIO, g);
      ObjectNode op = x.putObject(PreconditionsBlock.Row.OPERATING_POINT);
      op.put(PreconditionsBlock.OperatingPoint.POLICY, Policies.SMETRIC.cliName());
      op.put(PreconditionsBlock.OperatingPoint.RATE_SCALE, r.spec().rateScale());
      op.put(PreconditionsBlock.OperatingPoint.RUN_ID, r.spec().runId());
      for (String k : PreconditionsBlock.Row.MEASURED) {
        putMetric(x, k, r);
      }
      Headline ca = headlineOf(d, Policies.CACHE_AFFINITY.cliName(), g);
      Headline ll = headlineOf(d, Policies.LEAST_LOAD.cliName(), g);
      if (ca != null) {
        ObjectNode c = x.putObject(PreconditionsBlock.Row.CACHE_FIRST);
        c.put(PreconditionsBlock.OperatingPoint.POLICY, ca.policy());
        c.put(PreconditionsBlock.OperatingPoint.RATE_SCALE, ca.best().spec().rateScale());
        putMetric(c, PreconditionsBlock.Baseline.IMBALANCE_MEAN, ca.best());
        putMetric(c, PreconditionsBlock.Baseline.STICKINESS, ca.best());
      } else {
        x.putNull(PreconditionsBlock.Row.CACHE_FIRST);
      }
      if (ll != null) {
        ObjectNode c = x.putObject(PreconditionsBlock.Row.LOAD_BALANCE);
        c.put(PreconditionsBlock.OperatingPoint.POLICY, ll.policy());
        c.put(PreconditionsBlock.OperatingPoint.RATE_SCALE, ll.best().spec().rateScale());
        putMetric(c, PreconditionsBlock.Baseline.IMBALANCE_MEAN, ll.best());
      } else {
        x.putNull(PreconditionsBlock.Row.LOAD_BALANCE);
      }
      Double ci = ca == null ? null : ca.best().metrics().get("imbalance_mean");
      Double li = ll == null ? null : ll.best().metrics().get("imbalance_mean");
      if (ci != null && li != null && li > 0) x.put(PreconditionsBlock.Row.HOT_SPOT_RATIO, ci / li);
      else x.putNull(PreconditionsBlock.Row.HOT_SPOT_RATIO);
    }
    return o;
  }

  private static Headline headlineOf(Map<String, TreeMap<Double, Headline>> d, String policy, double g) {
    TreeMap<Double, Headline> m = d.get(policy);
    return m == null ? null : m.get(g);
  }

  /** The 2x2 guard ablation at the default thresholds, or null if fewer than two variants ran. */
  public ObjectNode ablation() {
    Map<String, TreeMap<Double, Headline>> d = atDefaults();
    List<String> variants = new ArrayList<>();
    for (Policies p : List.of(Policies.SMETRIC, Policies.SMETRIC_BASIC, Policies.SMETRIC_OVERLOAD_ONLY,
        Policies.SMETRIC_EVICTION_ONLY)) {
      if (d.containsKey(p.cliName())) variants.add(p.cliName());
    }
    if (variants.size() < 2) return null;
    ObjectNode a = Json.object();
    a.put(AblationBlock.OVERLOAD, defaultOverload);
    a.put(AblationBlock.HIT_RATIO, defaultHitRatio);
    ArrayNode vs = a.putArray(AblationBlock.VARIANTS);
    variants.forEach(vs::add);
    TreeSet<Double> gs = new TreeSet<>();
    for (String v : variants) gs.addAll(d.get(v).keySet());
    ArrayNode by = a.putArray(AblationBlock.BY_GLOBAL_RATIO);
    for (double g : gs) {
      ObjectNode o = by.addObject();
      o.put(AblationBlock.Row.GLOBAL_RATIO, g);
      ObjectNode t = o.putObject(AblationBlock.Row.HEADLINE_TPS_WITHIN_SLO);
      for (String v : variants) {
        Headline h = d.get(v).get(g);
        if (h == null) t.putNull(v);
        else t.put(v, h.tps());
      }
    }
    return a;
  }

  /**
   * Headline TPS of the SMetric variants that read OVERLOAD (resp. HIT_RATIO) for every swept
   * value, the other threshold at its default; null when neither threshold took two values.
   */
  public ObjectNode sensitivity() {
    TreeSet<Double> os = new TreeSet<>();
    TreeSet<Double> hs = new TreeSet<>();
    for (Headline h : headlines) {
      if (!Double.isNaN(h.overload())) os.add(h.overload());
      if (!Double.isNaN(h.hitRatio())) hs.add(h.hitRatio());
    }
    if (os.size() < 2 && hs.size() < 2) return null;
    ObjectNode s = Json.object();
    if (os.size() >= 2) {
      ArrayNode a = s.putArray(SensitivityBlock.OVERLOAD);
      for (Headline h : headlines) {
        if (Double.isNaN(h.overload())) continue;
        if (!Double.isNaN(h.hitRatio()) && h.hitRatio() != defaultHitRatio) continue;
        sensitivityRow(a.addObject(), h);
      }
    }
    if (hs.size() >= 2) {
      ArrayNode a = s.putArray(SensitivityBlock.HIT_RATIO);
      for (Headline h : headlines) {
        if (Double.isNaN(h.hitRatio())) continue;
        if (!Double.isNaN(h.overload()) && h.overload() != defaultOverload) continue;
        sensitivityRow(a.addObject(), h);
      }
    }
    return s;
  }

  private static void sensitivityRow(ObjectNode o, Headline h) {
    o.put(SensitivityBlock.Row.POLICY, h.policy());
    o.put(SensitivityBlock.Row.GLOBAL_RATIO, h.globalRatio());
    putNumber(o, SensitivityBlock.Row.OVERLOAD, h.overload());
    putNumber(o, SensitivityBlock.Row.HIT_RATIO, h.hitRatio());
    o.put(SensitivityBlock.Row.HEADLINE_TPS_WITHIN_SLO, h.tps());
    o.put(SensitivityBlock.Row.AT_RATE_SCALE, h.best().spec().rateScale());
    putMetric(o, SensitivityBlock.Row.STICKINESS, h.best());
  }

  /**
   * Stickiness per policy at the default thresholds: range over all its runs, and the value at
   * each global ratio's headline run (with the diagnostics stickiness_previous and
   * stickiness_extending_turn0); null when no run has it (no sessions).
   */
  public ArrayNode stickiness() {
    Map<String, TreeMap<Double, Headline>> d = atDefaults();
    ArrayNode out = Json.MAPPER.createArrayNode();
    Set<String> policies = new LinkedHashSet<>(d.keySet());
    for (String p : policies) {
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (RunResult r : runs) {
        SimSpec s = r.spec();
        if (!s.policy().equals(p)) continue;
        if (!Double.isNaN(s.overload()) && s.overload() != defaultOverload) continue;
        if (!Double.isNaN(s.hitRatio()) && s.hitRatio() != defaultHitRatio) continue;
        Double v = r.metrics().get("stickiness");
        if (v == null) continue;
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      if (min > max) continue;
      ObjectNode o = out.addObject();
      o.put(StickinessBlock.Row.POLICY, p);
      o.put(StickinessBlock.Row.MIN, min);
      o.put(StickinessBlock.Row.MAX, max);
      ArrayNode at = o.putArray(StickinessBlock.Row.AT_HEADLINE);
      for (Headline h : d.get(p).values()) {
        ObjectNode x = at.addObject();
        x.put(StickinessBlock.AtHeadline.GLOBAL_RATIO, h.globalRatio());
        x.put(StickinessBlock.AtHeadline.RATE_SCALE, h.best().spec().rateScale());
        putMetric(x, StickinessBlock.AtHeadline.STICKINESS, h.best());
        putMetric(x, StickinessBlock.AtHeadline.STICKINESS_PREVIOUS, h.best());
        putMetric(x, StickinessBlock.AtHeadline.STICKINESS_EXTENDING_TURN0, h.best());
        putMetric(x, StickinessBlock.AtHeadline.FOLLOW_UPS_EXTENDING_TURN0_SHARE, h.best());
      }
    }
    return out.isEmpty() ? null : out;
  }

  private static void putMetric(ObjectNode o, String key, String name, RunResult r) {
    Double v = r.metrics().get(name);
    if (v == null) o.putNull(key);
    else o.put(key, v);
  }

  private static void putMetric(ObjectNode o, String name, RunResult r) {
    Double v = r.metrics().get(name);
    if (v == null) o.putNull(name);
    else o.put(name, v);
  }

  /** NaN (not used by the policy) becomes null; Infinity (guard off) is written as the string "Infinity". */
  public static void putNumber(ObjectNode o, String k, double v) {
    if (Double.isNaN(v)) o.putNull(k);
    else if (Double.isInfinite(v)) o.put(k, v > 0 ? "Infinity" : "-Infinity");
    else o.put(k, v);
  }
}
