package io.smetric.audit.replay.sweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.SweepBlock;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The audit sweep preset ({@code replay --sweep audit}): everything the verdict needs. Its
 * <em>curves</em> (one policy at one global ratio and one OVERLOAD / HIT_RATIO): the production
 * policies and SMetric at every global ratio of the paper (0, 0.4, 0.8, 1.6, 3.2); the 2x2 guard
 * ablation (smetric-basic, smetric-overload-only, smetric-eviction-only) at every ratio; OVERLOAD
 * {1, 2, 3, Infinity} and HIT_RATIO {0, 0.25, 0.75} sensitivity of smetric at global ratio 1.6.
 *
 * <p>Offered rates are relative to a reference derived from the trace: {@code x_ref} is the rate
 * scale at which a cluster <em>without any cache</em> would saturate on prefill compute, N x
 * tokenBudget / (a + max(R + W f(budget), b x budget)) prompt tokens per second against the trace's prompt tokens
 * per second at x1. The {@link RateGrid#ADAPTIVE} grid (default) finds each curve's knee in rounds
 * ({@link KneeSearch}): SMetric's curve at each global ratio from round 0, every other curve there
 * from SMetric's knee once it is found ({@link #mainSweep}, issue 29); the {@link RateGrid#FIXED} grid runs {@link #RATE_MULTIPLIERS} x x_ref for
 * every curve in one round (the grid before issue 15). A headline found at the lowest or highest
 * sampled rate is flagged in replay.json ({@code at_edge}).
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

  /** How the offered rates of a curve are chosen. */
  public enum RateGrid {
    /** Rounds of {@link KneeSearch}: refine around each curve's maximum until it is bracketed. */
    ADAPTIVE,
    /** {@link #RATE_MULTIPLIERS} x x_ref for every curve, in one round. */
    FIXED
  }

  /** One policy at one global ratio and guard setting: a TPS-within-SLO curve over offered rates. */
  public record Curve(String policy, double globalRatio, double overload, double hitRatio) {
    static Curve of(SimSpec s) {
      return new Curve(s.policy(), s.globalRatio(), s.overload(), s.hitRatio());
    }

    SimSpec at(double rate) {
      return new SimSpec(-1, policy, globalRatio, rate, overload, hitRatio);
    }
  }

  private final List<Curve> curves;
  private final double rateReference;
  private final RateGrid grid;
  private int rounds;

  private AuditPlan(List<Curve> curves, double rateReference, RateGrid grid) {
    this.curves = curves;
    this.rateReference = rateReference;
    this.grid = grid;
  }

  /** A plan of the given curves over a given x_ref (tests). */
  static AuditPlan of(List<Curve> curves, double rateReference, RateGrid grid) {
    return new AuditPlan(List.copyOf(curves), rateReference, grid);
  }

  public List<Curve> curves() {
    return curves;
  }

  public double rateReference() {
    return rateReference;
  }

  public RateGrid grid() {
    return grid;
  }

  /** The fixed grid's rates (x_ref x {@link #RATE_MULTIPLIERS}). */
  public List<Double> rates() {
    List<Double> r = new ArrayList<>();
    for (double m : RATE_MULTIPLIERS) r.add(round(m * rateReference));
    return r;
  }

  /** x_ref: the rate scale at which a cache-less cluster saturates on prefill compute (1 if the trace has no span). */
  public static double rateReference(ReplayTrace t, ReplaySettings base) {
    double span = t.n < 2 ? 0 : t.arrival[t.n - 1] - t.arrival[0];
    long tokens = t.totalInputTokens();
    if (span <= 0 || tokens <= 0) return 1.0;
    int budget = base.profile.tokenBudget;
    double perInstance = budget / base.profile.prefillStepS(budget);
    return base.instances * perInstance / (tokens / span);
  }

  public static AuditPlan of(ReplayTrace t, ReplaySettings base) {
    return of(t, base, RateGrid.ADAPTIVE);
  }

  public static AuditPlan of(ReplayTrace t, ReplaySettings base, RateGrid grid) {
    List<Curve> cs = new ArrayList<>();
    for (SimSpec s : Sweep.grid(POLICIES, GLOBAL_RATIOS, List.of(1.0), List.of(base.overload), List.of(base.hitRatio))) {
      cs.add(Curve.of(s));
    }
    for (SimSpec s : Sweep.grid(ABLATION, GLOBAL_RATIOS, List.of(1.0), List.of(base.overload), List.of(base.hitRatio))) {
      cs.add(Curve.of(s));
    }
    List<Double> os = new ArrayList<>(OVERLOADS);
    os.remove((Double) base.overload);
    List<Double> hs = new ArrayList<>(HIT_RATIOS);
    hs.remove((Double) base.hitRatio);
    for (SimSpec s : Sweep.grid(List.of(Policies.SMETRIC), List.of(SENSITIVITY_GLOBAL_RATIO), List.of(1.0), os,
        List.of(base.hitRatio))) {
      cs.add(Curve.of(s));
    }
    for (SimSpec s : Sweep.grid(List.of(Policies.SMETRIC), List.of(SENSITIVITY_GLOBAL_RATIO), List.of(1.0),
        List.of(base.overload), hs)) {
      cs.add(Curve.of(s));
    }
    return new AuditPlan(List.copyOf(cs), rateReference(t, base), grid);
  }

  /**
   * The audit's default replay pace (issue 15): session-tree rate scaling (the time between an
   * agent's turns stays as traced; the number of concurrent sessions scales with the offered rate)
   * with the closed loop (a follow-up is sent when its previous response is complete, up to the
   * agent timeout). Applied before a settings file and the command line, which may override it.
   */
  public static void applyPace(ReplaySettings.Builder s) {
    s.rateScaling = ReplaySettings.RateScaling.SESSIONS;
    s.followUpsWaitForPrevious = true;
  }

  /**
   * A plan over the given policies and global ratios only (each at the default OVERLOAD and
   * HIT_RATIO), e.g. {@code audit --policies ... --global-ratio ...} without {@code --rate-scale}.
   */
  public static AuditPlan custom(ReplayTrace t, ReplaySettings base, RateGrid grid, List<Policies> policies,
      List<Double> globalRatios) {
    List<Curve> cs = new ArrayList<>();
    for (SimSpec s : Sweep.grid(policies, globalRatios, List.of(1.0), List.of(base.overload), List.of(base.hitRatio))) {
      cs.add(Curve.of(s));
    }
    return new AuditPlan(List.copyOf(cs), rateReference(t, base), grid);
  }

  /**
   * The curve whose knee warm-starts {@code c}'s search (issue 29): the first SMetric curve of the
   * plan at {@code c}'s global ratio whose policy is in {@code runnable}, the curve the verdict is
   * about, searched cold; null when {@code c} is searched cold (it is that curve, no SMetric curve
   * runs at its ratio, or the grid is fixed). On the 200k agent trace every curve's knee at one
   * global ratio lay within a factor 1.2-1.6 of SMetric's there, and the sensitivity curves' knees
   * at SMetric's exactly (docs/lab/benchmarks.md).
   */
  public Curve anchorOf(Curve c, Set<String> runnable) {
    if (grid != RateGrid.ADAPTIVE) return null;
    for (Curve a : curves) {
      if (a.policy().equals(Policies.SMETRIC.cliName()) && a.globalRatio() == c.globalRatio()
          && runnable.contains(a.policy())) {
        return a.equals(c) ? null : a;
      }
    }
    return null;
  }

  /**
   * The hint a warm curve starts from: its anchor's knee, the rate of the anchor's highest sampled
   * TPS within SLO (the lowest on ties) once its search is done; NaN (the curve goes cold) when the
   * curve has no anchor or the anchor has nothing within SLO.
   */
  public double hint(Curve c, List<RunResult> results, Set<String> runnable) {
    Curve a = anchorOf(c, runnable);
    if (a == null) return Double.NaN;
    double best = 0;
    double at = Double.NaN;
    for (var e : sampled(a, results).entrySet()) {
      if (e.getValue() > best) {
        best = e.getValue();
        at = e.getKey();
      }
    }
    return at;
  }

  /**
   * The main sweep's curves (those whose policy is in {@code runnable}) as schedule groups: the
   * cold curves (the anchors and every curve without one) in one group, whose continuation starts
   * the warm curves, each from its anchor's knee read from the then complete anchors' results,
   * whose continuation is {@code then}. Without warm curves, one group continued by {@code then}.
   * A warm curve's first batch depends only on curves finished before it starts, so the
   * simulations run never depend on which finished first ({@link Schedule}). {@code wrap} wraps
   * each curve's track (the replay counts batches for its progress line).
   */
  public Schedule.Group mainSweep(Set<String> runnable, BiFunction<Curve, Schedule.Track, Schedule.Track> wrap,
      Function<List<RunResult>, List<Schedule.Group>> then) {
    List<Schedule.Track> cold = new ArrayList<>();
    List<Curve> warm = new ArrayList<>();
    for (Curve c : curves) {
      if (!runnable.contains(c.policy())) continue;
      if (anchorOf(c, runnable) != null) warm.add(c);
      else cold.add(wrap.apply(c, all -> next(c, all, Double.NaN)));
    }
    warmCurves = warm.size();
    if (warm.isEmpty()) return new Schedule.Group(0, cold, then);
    return new Schedule.Group(0, cold, anchors -> {
      List<Schedule.Track> tracks = new ArrayList<>();
      for (Curve c : warm) {
        double h = hint(c, anchors, runnable);
        tracks.add(wrap.apply(c, all -> next(c, all, h)));
      }
      return List.of(new Schedule.Group(0, tracks, then));
    });
  }

  /**
   * The simulations of the next round (run ids -1: the caller numbers them) given every main-sweep
   * result so far, for the curves whose policy is in {@code runnable}; empty when the sweep is done.
   * The round-by-round sweep: the concatenation of every cold curve's {@link #next} in curve order,
   * then, once those are all done, of every warm curve's (what {@link #mainSweep} runs as tracks).
   */
  public List<SimSpec> nextRound(List<RunResult> results, Set<String> runnable) {
    List<SimSpec> out = new ArrayList<>();
    for (Curve c : curves) {
      if (runnable.contains(c.policy()) && anchorOf(c, runnable) == null) out.addAll(next(c, results, Double.NaN));
    }
    if (out.isEmpty()) {
      for (Curve c : curves) {
        if (runnable.contains(c.policy()) && anchorOf(c, runnable) != null) {
          out.addAll(next(c, results, hint(c, results, runnable)));
        }
      }
    }
    if (!out.isEmpty()) rounds++;
    return out;
  }

  /** The cold search of one curve ({@link #next(Curve, List, double)} without a hint). */
  public List<SimSpec> next(Curve c, List<RunResult> results) {
    return next(c, results, Double.NaN);
  }

  /**
   * The next rates of one curve (run ids -1) given every result so far, of which it reads only
   * that curve's main-sweep points: empty when its knee is bracketed (the fixed grid: after its
   * one round). {@code hint}: the knee to start from ({@link KneeSearch#next(java.util.NavigableMap,
   * double, double)}), NaN for the cold search. A curve's next batch depends on no other curve
   * (the hint is fixed when its track starts), which lets the sweep run curves as independent
   * tracks ({@link Schedule}).
   */
  public List<SimSpec> next(Curve c, List<RunResult> results, double hint) {
    TreeMap<Double, Double> cur = sampled(c, results);
    List<SimSpec> out = new ArrayList<>();
    if (grid == RateGrid.FIXED) {
      if (cur.isEmpty()) for (double x : rates()) out.add(c.at(x));
    } else {
      for (double x : KneeSearch.next(cur, rateReference, hint)) out.add(c.at(x));
    }
    return out;
  }

  private static TreeMap<Double, Double> sampled(Curve c, List<RunResult> results) {
    TreeMap<Double, Double> cur = new TreeMap<>();
    for (RunResult r : results) {
      if (!r.spec().isSearch() || !c.equals(Curve.of(r.spec()))) continue;
      Double tps = r.metrics().get("tps_within_slo");
      cur.put(r.spec().rateScale(), tps == null ? 0.0 : tps);
    }
    return cur;
  }

  /**
   * How many simulations one curve's rate search is expected to take, for the progress line
   * ({@link SweepProgress}); the one number the progress estimate takes from the plan. The fixed
   * grid: its rates. The adaptive grid: the knee search's own rules run on model curves with a
   * single peak, the mean over peaks spread evenly (log scale) over round 0's range (assumption:
   * the knee lies where round 0 looks, x_ref x [0.125, 1]; a knee outside it costs extension
   * rounds, which the progress line counts as they are submitted). 8.12 with the search of 5 Dec
   * (a peak inside round 0's range: 4 + 2 + 2 refinements, 9 near its ends; the sample audit's 67
   * curves took 538, 8.03 each; at most 14 anywhere, KneeSearchTest).
   */
  public double expectedPoints(Curve c) {
    if (grid == RateGrid.FIXED) return RATE_MULTIPLIERS.length;
    double[] r0 = KneeSearch.INITIAL;
    return SweepProgress.meanModelPoints(List.of(), rateReference, r0[0] * rateReference,
        r0[r0.length - 1] * rateReference);
  }

  /**
   * Knees of warm curves are assumed to lie within this factor of their anchor's, evenly in log
   * scale (an assumption with its range: 1.2-1.6 on the 200k agent trace, docs/lab/benchmarks.md;
   * a knee further away costs extension rounds, which the progress line counts as submitted).
   */
  public static final double WARM_SPREAD = 2;

  /**
   * {@link #expectedPoints(Curve)}, warm where {@link #mainSweep} starts {@code c} warm: the warm
   * search's rules on the same model curves, knees spread evenly (log scale) over the anchor's knee
   * / {@link #WARM_SPREAD} to x {@link #WARM_SPREAD}.
   */
  public double expectedPoints(Curve c, Set<String> runnable) {
    if (anchorOf(c, runnable) == null) return expectedPoints(c);
    return SweepProgress.meanWarmPoints(rateReference, WARM_SPREAD);
  }

  /** How many curves {@link #mainSweep} started warm (replay.json's sweep block). */
  private int warmCurves;

  /** Records the rounds a sweep run track by track took (what {@link #nextRound} counts itself). */
  public void rounds(int n) {
    rounds = n;
  }

  /** Four significant digits: rates appear in tables and must compare equal across runs. */
  static double round(double x) {
    if (x <= 0 || !Double.isFinite(x)) return x;
    double scale = Math.pow(10, 3 - Math.floor(Math.log10(x)));
    return Math.round(x * scale) / scale;
  }

  /** The plan as replay.json's {@code sweep} block (keys: {@link SweepBlock}). */
  public ObjectNode describe() {
    ObjectNode o = Json.object();
    o.put(SweepBlock.PRESET, "audit");
    o.put(SweepBlock.RATE_GRID, grid.name().toLowerCase(java.util.Locale.ROOT));
    o.put(SweepBlock.CURVES, curves.size());
    o.put(SweepBlock.ROUNDS, rounds);
    o.put(SweepBlock.RATE_REFERENCE, rateReference);
    o.put(SweepBlock.RATE_REFERENCE_RULE, "N x tokenBudget / (time of a step prefilling tokenBudget tokens: a + max(R + W f(budget), b x budget)) / (trace prompt tokens per second at x1): "
        + "where a cluster without cache would saturate on prefill");
    if (grid == RateGrid.FIXED) {
      ArrayNode m = o.putArray(SweepBlock.RATE_MULTIPLIERS);
      for (double x : RATE_MULTIPLIERS) m.add(x);
      ArrayNode r = o.putArray(SweepBlock.RATES);
      rates().forEach(r::add);
    } else {
      ArrayNode m = o.putArray(SweepBlock.INITIAL_MULTIPLIERS);
      for (double x : KneeSearch.INITIAL) m.add(x);
      o.put(SweepBlock.RESOLUTION, KneeSearch.RESOLUTION);
      o.put(SweepBlock.FLOOR_MULTIPLIER, KneeSearch.FLOOR);
      o.put(SweepBlock.CAP_MULTIPLIER, KneeSearch.CAP);
      ObjectNode w = o.putObject(SweepBlock.WARM_START);
      w.put(SweepBlock.WarmStart.CURVES, warmCurves);
      w.put(SweepBlock.WarmStart.RULE, "SMetric's curve at each global ratio (the first in the plan) is searched cold and is the anchor there; every "
          + "other curve at that ratio starts after the anchors are done, from the anchor's knee h: first h x {2^-0.25, 1, 2^0.25}, "
          + "then the cold rules with an extension step of the distance from h to the maximum's end, within [2^0.25, 2]; the "
          + "same stopping rule (maximum bracketed within the resolution on both sides, or a bound). A ratio without an "
          + "SMetric curve, or whose SMetric curve has nothing within SLO, stays cold");
      w.put(SweepBlock.WarmStart.STEP, KneeSearch.WARM_STEP);
    }
    ArrayNode p = o.putArray(SweepBlock.POLICIES);
    POLICIES.forEach(x -> p.add(x.cliName()));
    ArrayNode a = o.putArray(SweepBlock.ABLATION);
    ABLATION.forEach(x -> a.add(x.cliName()));
    ArrayNode g = o.putArray(SweepBlock.GLOBAL_RATIOS);
    GLOBAL_RATIOS.forEach(g::add);
    o.put(SweepBlock.SENSITIVITY_GLOBAL_RATIO, SENSITIVITY_GLOBAL_RATIO);
    ArrayNode os = o.putArray(SweepBlock.SENSITIVITY_OVERLOADS);
    OVERLOADS.forEach(x -> SweepSummary.putNumber(os.addObject(), SweepBlock.Overload.OVERLOAD, x));
    ArrayNode hs = o.putArray(SweepBlock.SENSITIVITY_HIT_RATIOS);
    HIT_RATIOS.forEach(hs::add);
    return o;
  }
}
