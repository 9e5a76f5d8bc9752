package io.smetric.audit.replay.sweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.CapacityBlock;
import io.smetric.audit.contract.CapacityBlock.Bracket;
import io.smetric.audit.contract.CapacityBlock.Interval;
import io.smetric.audit.contract.CapacityBlock.Search;
import io.smetric.audit.contract.CapacityBlock.Sized;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The capacity answer (issue 29; docs/replay.md, "Capacity"): for SMetric and the judged router
 * at the declared global-tier capacity and at 0, the smallest instance count that serves the
 * trace at its own pace (rate x1) with at least the target share of requests within the audit's
 * SLO, then the same at the growth factors of the trace's traffic (session-tree scaling, the
 * audit's rate scaling: more sessions, each at its own pace). Each (router, capacity) is one
 * track: {@link CapacitySearch} on pass/fail runs ({@link ReplaySettings#decideAttainment}, which
 * stop as soon as the answer is known), started at the count the router's 90%-attainment rate at
 * --instances implies (instances / that rate, linear scaling: a guess, the bracket corrects it),
 * each growth factor started at the previous answer x the factor ratio. A count that failed at a
 * lower traffic fails at a higher one (monotone in load, assumed), so it bounds the next search
 * from below without a run. A main-sweep run at --instances and exactly that rate is read instead
 * of simulated. The judged router's chain follows SMetric's at the same capacity (one track):
 * each factor starts next to SMetric's answer there ({@link CapacitySearch#nextNear}). The x1
 * answer at the interval's capacity gets a percentile interval over the bootstrap replicates
 * ({@link #intervalTracks}).
 */
public final class Capacity {
  /** The variant of the capacity search's pass/fail runs. */
  public static final String VARIANT = "capacity";
  /** Growth of the trace's traffic the search also sizes for (issue 29 item 2). */
  public static final List<Double> GROWTH = List.of(1.25, 1.5, 2.0);
  /** The largest count a search tries, as a multiple of its starting guess (and at least 64). */
  static final int MAX_FACTOR = 16;

  /** What the capacity search is asked for. */
  public record Options(boolean enabled, double attainment, List<Double> growth, double gpuHourUsd, boolean allRouters) {
    public Options {
      if (!(attainment > 0 && attainment <= 1)) throw new IllegalArgumentException("attainment must be in (0, 1], got " + attainment);
      growth = List.copyOf(growth);
      for (double f : growth) if (!(f > 1)) throw new IllegalArgumentException("growth factors must be > 1, got " + f);
    }

    /** Without the other routers' x1 answers (the default: {@link #allRouters}). */
    public Options(boolean enabled, double attainment, List<Double> growth, double gpuHourUsd) {
      this(enabled, attainment, growth, gpuHourUsd, false);
    }

    public static final Options DEFAULT = new Options(true, EqualLoad.TARGET_ATTAINMENT, GROWTH, Double.NaN);
    public static final Options OFF = new Options(false, EqualLoad.TARGET_ATTAINMENT, GROWTH, Double.NaN);

    public Options withAllRouters(boolean all) {
      return new Options(enabled, attainment, growth, gpuHourUsd, all);
    }
  }

  /** One probe: a count at a traffic factor, and how its answer was obtained. */
  record Probe(double factor, int instances, boolean pass, String source, SimSpec spec) {}

  /** One search chain: a router at one capacity over the traffic factors. */
  final class Chain {
    final String role;
    final AuditPlan.Curve curve;
    final int start;
    final double startRate;
    final List<Probe> probes = new ArrayList<>();
    final Map<Double, Integer> answers = new LinkedHashMap<>();
    final Map<Double, Integer> starts = new LinkedHashMap<>();
    final Map<Double, Integer> caps = new LinkedHashMap<>();
    /** How each factor's first count was chosen (replay.json {@code start_rule}). */
    final Map<Double, String> startRules = new LinkedHashMap<>();
    /** Factors searched from a guess next to the answer ({@link CapacitySearch#nextNear}) rather than bracketed. */
    final Map<Double, Boolean> near = new LinkedHashMap<>();
    /**
     * The chain this one follows, null for the first SMetric chain: the judged router and the other
     * routers follow SMetric's chain at the same capacity, SMetric's chain at the second capacity
     * follows SMetric's at the first. At each factor this chain waits for the lead's answer there
     * and starts next to it (issue 29's cost bound: on the 200k agent trace the two routers'
     * answers were 0-1 apart with the 1.6x tier and 8-13 without, SMetric's answers at the two
     * capacities 71 and 86, against a first guess 2-3x off and linear growth guesses 9-16 too high).
     */
    Chain lead;
    /** How many of the traffic factors this chain searches (the other routers: x1 only). */
    int limit = Integer.MAX_VALUE;
    /**
     * The count each factor's cap is a multiple of: for SMetric's chains the rate-based or linear
     * growth guess whatever the first count tested, so that a start from a lead cannot lower the
     * cap (and change an answer) below what the bracket search from that guess would have tried.
     */
    final Map<Double, Integer> capBase = new LinkedHashMap<>();
    /** The factor searched now (index into factors), the probe in flight. */
    int f;
    SimSpec pending;
    int pendingN;

    Chain(String role, AuditPlan.Curve curve, int start, double startRate) {
      this.role = role;
      this.curve = curve;
      this.start = start;
      this.startRate = startRate;
    }

    TreeMap<Integer, Boolean> tested(double factor) {
      TreeMap<Integer, Boolean> t = new TreeMap<>();
      for (Probe p : probes) if (p.factor() == factor) t.put(p.instances(), p.pass());
      return t;
    }

    /** Set once the chain has nothing more to search (a pair track keeps asking its lead after that). */
    boolean done;

    List<SimSpec> next(List<RunResult> all) {
      if (done) return List.of();
      if (pending != null) {
        RunResult got = null;
        for (RunResult r : all) {
          SimSpec s = r.spec();
          if (VARIANT.equals(s.variant()) && s.replicate() == 0 && s.policy().equals(pending.policy()) && s.globalRatio() == pending.globalRatio()
              && s.rateScale() == pending.rateScale() && s.overrides().equals(pending.overrides())) {
            got = r;
          }
        }
        if (got == null) throw new IllegalStateException("capacity probe not back: " + pending.label());
        probes.add(new Probe(factors.get(f), pendingN, got.metrics().getOrDefault(RunResult.PASS, 0.0) == 1.0, "simulated", pending));
        pending = null;
      }
      while (f < Math.min(limit, factors.size())) {
        double x = factors.get(f);
        if (!starts.containsKey(x) && waitsForLead(x)) return List.of();
        int s0 = starts.computeIfAbsent(x, k -> startFor(k));
        int cap = caps.computeIfAbsent(x, k -> Math.max(64, MAX_FACTOR * capBase.getOrDefault(k, s0)));
        TreeMap<Integer, Boolean> t = tested(x);
        OptionalInt n = near.getOrDefault(x, false) ? CapacitySearch.nextNear(t, s0, cap) : CapacitySearch.next(t, s0, cap);
        if (n.isEmpty()) {
          Integer a = CapacitySearch.answer(t);
          answers.put(x, a);
          f++;
          if (a == null) break; // not within the cap: a larger traffic needs more still
          continue;
        }
        int k = n.getAsInt();
        Boolean reused = mainRun(all, x, k);
        if (reused != null) {
          probes.add(new Probe(x, k, reused, "main sweep run", null));
          continue;
        }
        pendingN = k;
        TreeMap<String, Double> ov = new TreeMap<>();
        ov.put(SweepVariable.INSTANCES.key(), (double) k);
        ov.put(SweepVariable.DECIDE_ATTAINMENT.key(), options.attainment());
        pending = new SimSpec(-1, curve.policy(), curve.globalRatio(), x, curve.overload(), curve.hitRatio(), 0, VARIANT, ov);
        return List.of(pending);
      }
      done = true;
      return List.of();
    }

    /**
     * The first count of factor x: the guess at x1 (the lead's answer there, else the rate-based
     * guess); else the previous answer x the lead's growth, else x this chain's own growth between
     * the two previous factors (as an elasticity), else x the factor ratio (linear).
     * The previous answer's neighbour below failed at the lower traffic, so it fails here too
     * (monotone in load, assumed): a probe without a run that bounds this search from below.
     */
    private int startFor(double x) {
      Integer led = lead == null ? null : lead.answers.get(x);
      String leadName = lead == null ? null : lead.curve.policy() + (lead.curve.globalRatio() == curve.globalRatio() ? ""
          : lead.curve.globalRatio() > 0 ? " (" + lead.curve.globalRatio() + "x global tier)" : " (no global tier)");
      if (f == 0) {
        if (role.equals(Search.SMETRIC)) capBase.put(x, start);
        if (led != null) {
          near.put(x, true);
          startRules.put(x, leadName + "'s answer at x" + x);
          return led;
        }
        startRules.put(x, "instances / the router's " + pct(options.attainment()) + "-attainment rate at --instances");
        return start;
      }
      double prev = factors.get(f - 1);
      int a = answers.get(prev); // the chain stops at a factor without an answer
      if (a > 1) probes.add(new Probe(x, a - 1, false, "implied: failed at x" + prev, null));
      int linear = Math.max(a, (int) Math.ceil(a * x / prev - 1e-9));
      if (role.equals(Search.SMETRIC)) capBase.put(x, linear);
      Integer ledPrev = lead == null ? null : lead.answers.get(prev);
      if (led != null && ledPrev != null) {
        // the lead's growth from prev to x, applied to this chain's own answer at prev
        near.put(x, true);
        startRules.put(x, "this router's answer at x" + prev + " x " + leadName + "'s growth from x" + prev + " to x" + x);
        return Math.max(a, (int) Math.round((double) a * led / ledPrev));
      }
      Integer before = f >= 2 ? answers.get(factors.get(f - 2)) : null;
      if (before != null) {
        // this chain's own growth between the two previous factors, as an elasticity (answer ~ traffic^e),
        // carried one factor further: on the 200k trace x1 -> x1.25 -> x1.5 gave 71 -> 80 -> 87, e = 0.53 and
        // 0.46, where the linear guesses were 96 and 116 for answers of 87 and 100
        double pp = factors.get(f - 2);
        double e = Math.log((double) a / before) / Math.log(prev / pp);
        near.put(x, true);
        startRules.put(x, String.format(java.util.Locale.ROOT, "the answer at x%s x (x%s / x%s)^%.3f, this router's growth "
            + "from x%s to x%s", prev, x, prev, e, pp, prev));
        return Math.max(a, (int) Math.round(a * Math.pow(x / prev, e)));
      }
      startRules.put(x, "the answer at x" + prev + " x " + x / prev);
      return linear;
    }

    /** Whether the lead is still searching factor x (its answer there is this chain's first guess). */
    private boolean waitsForLead(double x) {
      if (lead == null || lead.answers.containsKey(x)) return false;
      return !lead.done && lead.f <= factors.indexOf(x);
    }

    /** A main-sweep run of this curve at --instances and exactly this rate: its attainment, read instead of simulated. */
    private Boolean mainRun(List<RunResult> all, double x, int k) {
      if (k != base.instances) return null;
      for (RunResult r : all) {
        SimSpec s = r.spec();
        if (s.isMain() && s.overrides().isEmpty() && AuditPlan.Curve.of(s).equals(curve) && s.rateScale() == x) {
          Double a = r.metrics().get("slo_attainment");
          if (a != null) return a >= options.attainment();
        }
      }
      return null;
    }
  }

  private final Options options;
  private final ReplaySettings base;
  private final List<Double> factors;
  private final List<Chain> chains = new ArrayList<>();
  private final Map<Double, String> judged = new LinkedHashMap<>();

  private Capacity(Options options, ReplaySettings base) {
    this.options = options;
    this.base = base;
    List<Double> fs = new ArrayList<>();
    fs.add(1.0);
    fs.addAll(options.growth());
    this.factors = List.copyOf(fs);
  }

  /**
   * The searches: SMetric and the judged router at the declared capacity and at 0 (those the
   * equal-load comparison anchored), from the refined main sweep's curves.
   */
  public static Capacity plan(Options options, ReplaySettings base, EqualLoad eq, SweepSummary refined, List<RunResult> all) {
    Capacity c = new Capacity(options, base);
    Map<String, TreeMap<Double, SweepSummary.Headline>> d = refined.atDefaults();
    List<Double> gs = new ArrayList<>();
    if (!Double.isNaN(eq.declaredGlobalRatio())) gs.add(eq.declaredGlobalRatio());
    if (eq.anchors().containsKey(0.0) && !gs.contains(0.0)) gs.add(0.0);
    for (double g : gs) {
      EqualLoad.Anchor a = eq.anchors().get(g);
      if (a == null) continue;
      c.judged.put(g, a.judged());
      for (String[] pr : new String[][] {{Policies.SMETRIC.cliName(), Search.SMETRIC}, {a.judged(), Search.JUDGED}}) {
        SweepSummary.Headline h = d.containsKey(pr[0]) ? d.get(pr[0]).get(g) : null;
        if (h == null) continue;
        AuditPlan.Curve curve = new AuditPlan.Curve(pr[0], g, h.overload(), h.hitRatio());
        double rate = KneeSearch.attainmentRate(EqualLoad.attainment(curve, all), options.attainment());
        if (Double.isNaN(rate) && options.attainment() == EqualLoad.TARGET_ATTAINMENT) rate = a.referenceRate();
        int start = Double.isNaN(rate) || rate <= 0 ? base.instances : Math.max(1, (int) Math.ceil(base.instances / rate - 1e-9));
        Chain ch = c.new Chain(pr[1], curve, start, rate);
        // the judged router follows SMetric at the same capacity, unless they are the same curve
        if (pr[1].equals(Search.JUDGED) && !c.chains.isEmpty()) {
          Chain prev = c.chains.get(c.chains.size() - 1);
          if (prev.role.equals(Search.SMETRIC) && prev.curve.globalRatio() == g) ch.lead = prev;
        }
        // SMetric at the second capacity follows SMetric at the first (its x1 answer there is a better
        // first guess than the rate-based one: 71 vs 166 for an answer of 86 on the 200k agent trace)
        if (pr[1].equals(Search.SMETRIC)) ch.lead = c.smetricChain(Double.NaN);
        c.chains.add(ch);
      }
    }
    if (options.allRouters()) c.planOthers(d, all);
    return c;
  }

  /** SMetric's chain at capacity g (NaN: the first one planned), null when none. */
  private Chain smetricChain(double g) {
    for (Chain ch : chains) if (ch.role.equals(Search.SMETRIC) && (Double.isNaN(g) || ch.curve.globalRatio() == g)) return ch;
    return null;
  }

  /**
   * The other routers (issue 29 item 1: "for each router"; {@link Options#allRouters}): every
   * baseline outside the SMetric family that is neither the judged router nor the recorded routing,
   * at x1 at each capacity SMetric is sized at, starting from SMetric's answer there
   * ({@link CapacitySearch#nextNear}); without one, from its own rate-based guess by the bracket.
   */
  private void planOthers(Map<String, TreeMap<Double, SweepSummary.Headline>> d, List<RunResult> all) {
    List<Chain> others = new ArrayList<>();
    for (double g : judged.keySet()) {
      Chain sm = smetricChain(g);
      if (sm == null) continue;
      for (String p : d.keySet()) {
        if (SweepSummary.isSmetricFamily(p) || p.equals(judged.get(g)) || p.equals(Policies.AS_RECORDED.cliName())) continue;
        SweepSummary.Headline h = d.get(p).get(g);
        if (h == null) continue;
        AuditPlan.Curve curve = new AuditPlan.Curve(p, g, h.overload(), h.hitRatio());
        double rate = KneeSearch.attainmentRate(EqualLoad.attainment(curve, all), options.attainment());
        int start = Double.isNaN(rate) || rate <= 0 ? base.instances : Math.max(1, (int) Math.ceil(base.instances / rate - 1e-9));
        Chain ch = new Chain(Search.OTHER, curve, start, rate);
        ch.lead = sm;
        ch.limit = 1;
        others.add(ch);
      }
    }
    chains.addAll(others);
  }

  /** The variant of the full runs at the sized cluster (issue 29 item 3). */
  public static final String SIZED = "sized";
  /** Metrics the sized point reports per router: service, and the paper's preconditions there. */
  static final List<String> SIZED_METRICS = List.of("tps_within_slo", "slo_attainment", "ttft_p90_s", "tpot_p90_s",
      "requests_per_instance_minute_median", "imbalance_mean", "stickiness", "stickiness_previous",
      "reuse_within_threshold_share", "live_sessions_per_instance", "local_hit_ratio", "global_hit_ratio");

  /** The judged router's answer at x1 at capacity g, null when it has none. */
  private Integer judgedAnswer(double g) {
    for (Chain ch : chains) {
      if (ch.role.equals(Search.JUDGED) && ch.curve.globalRatio() == g) return ch.answers.get(1.0);
    }
    return null;
  }

  /**
   * The second operating point (issue 29 item 3): at each capacity, SMetric and the judged router
   * as full runs (series and all metrics) on the cluster sized for the judged router (its x1
   * answer) at the trace's own pace; run ids -1, variant {@link #SIZED}. Planned once every
   * search is done.
   */
  public List<SimSpec> sizedSpecs() {
    List<SimSpec> out = new ArrayList<>();
    for (double g : judged.keySet()) {
      Integer n = judgedAnswer(g);
      if (n == null) continue;
      for (Chain ch : chains) {
        if (ch.curve.globalRatio() != g || ch.role.equals(Search.OTHER)) continue;
        TreeMap<String, Double> ov = new TreeMap<>();
        ov.put(SweepVariable.INSTANCES.key(), (double) n);
        out.add(new SimSpec(-1, ch.curve.policy(), g, 1.0, ch.curve.overload(), ch.curve.hitRatio(), 0, SIZED, ov));
      }
    }
    return out;
  }

  /** The sized point's block: per capacity, each router's metrics there and SMetric's gain over the judged router. */
  ArrayNode describeSized(List<RunResult> results) {
    ArrayNode arr = Json.MAPPER.createArrayNode();
    for (double g : judged.keySet()) {
      Integer n = judgedAnswer(g);
      if (n == null) continue;
      ObjectNode e = arr.addObject();
      e.put(Sized.GLOBAL_RATIO, g);
      e.put(Sized.INSTANCES, n);
      e.put(Sized.RATE_SCALE, 1.0);
      e.put(Sized.JUDGED_ROUTER, judged.get(g));
      e.put(Sized.SIZED_FOR, "the judged router's answer at x1");
      ObjectNode pol = e.putObject(Sized.POLICIES);
      Map<String, Double> tps = new LinkedHashMap<>();
      for (RunResult r : results) {
        SimSpec s = r.spec();
        if (!SIZED.equals(s.variant()) || s.globalRatio() != g) continue;
        ObjectNode m = pol.putObject(s.policy());
        m.put(Sized.RUN_ID, s.runId());
        for (String k : SIZED_METRICS) {
          Double v = r.metrics().get(k);
          if (v == null || Double.isNaN(v)) m.putNull(k);
          else m.put(k, v);
        }
        Double t = r.metrics().get("tps_within_slo");
        if (t != null) tps.put(s.policy(), t);
      }
      Double sm = tps.get(Policies.SMETRIC.cliName());
      Double j = tps.get(judged.get(g));
      if (sm != null && j != null && j > 0) e.put(Sized.SMETRIC_GAIN_VS_JUDGED, sm / j - 1);
      else e.putNull(Sized.SMETRIC_GAIN_VS_JUDGED);
    }
    return arr;
  }

  /** Coverage of the instance count's percentile interval. */
  static final double INTERVAL_LEVEL = 0.95;

  /**
   * The capacity the interval is computed at: the declared one (the page's first sentence reads
   * it), else 0; NaN without a search there.
   */
  double intervalRatio() {
    double g0 = Double.NaN;
    for (Chain ch : chains) {
      double g = ch.curve.globalRatio();
      if (g > 0) return g;
      if (Double.isNaN(g0)) g0 = g;
    }
    return g0;
  }

  /**
   * One router's x1 answer on bootstrap replicate k: {@link CapacitySearch#nextNear} from a guess
   * (the point estimate in the first wave, the second-wave guess after it), with a cap fixed by
   * the point estimate, so that the answer is the one a search from any start finds.
   */
  final class Replicate {
    final Chain of;
    final int k;
    final int cap;
    /** The point estimate in the first wave; the second wave's guess once the first wave is back. */
    int guess;
    final TreeMap<Integer, Boolean> tested = new TreeMap<>();
    SimSpec pending;
    final List<SimSpec> specs = new ArrayList<>();
    boolean done;

    Replicate(Chain of, int k, int guess, int cap) {
      this.of = of;
      this.k = k;
      this.guess = guess;
      this.cap = cap;
    }

    SimSpec spec(int n) {
      TreeMap<String, Double> ov = new TreeMap<>();
      ov.put(SweepVariable.INSTANCES.key(), (double) n);
      ov.put(SweepVariable.DECIDE_ATTAINMENT.key(), options.attainment());
      return new SimSpec(-1, of.curve.policy(), of.curve.globalRatio(), 1.0, of.curve.overload(), of.curve.hitRatio(), k, VARIANT, ov);
    }

    /** A track of its own: one probe per batch, the next chosen from this replicate's results only. */
    List<SimSpec> next(List<RunResult> all) {
      if (done) return List.of();
      if (pending != null) {
        String key = specKey(pending);
        RunResult got = null;
        for (RunResult r : all) if (VARIANT.equals(r.spec().variant()) && key.equals(specKey(r.spec()))) got = r;
        if (got == null) throw new IllegalStateException("capacity replicate probe not back: " + pending.label());
        tested.put((int) Math.round(pending.overrides().get(SweepVariable.INSTANCES.key())),
            got.metrics().getOrDefault(RunResult.PASS, 0.0) == 1.0);
        pending = null;
      }
      OptionalInt n = CapacitySearch.nextNear(tested, guess, cap);
      if (n.isEmpty()) {
        done = true;
        return List.of();
      }
      pending = spec(n.getAsInt());
      specs.add(pending);
      return List.of(pending);
    }

    Integer answer() {
      return CapacitySearch.answer(tested);
    }
  }

  private final List<Replicate> replicates = new ArrayList<>();
  private int intervalReplicates;
  /** Per interval search (SMetric's, the judged router's): the second wave's first guess. */
  private final Map<Chain, Integer> secondWaveGuess = new LinkedHashMap<>();

  /**
   * The size of the first wave for B replicates: odd (its nearest-rank median is one of its
   * answers) and about sqrt(B), so that the replicates searched from the point estimate, which the
   * resamples can miss in either direction (on the sample and the 200k agent trace every replicate
   * needed 1-3 instances more), are a shrinking share as B grows: 1 for B <= 3, 3 for B = 4..15
   * (the default 10), 11 for B = 100.
   */
  static int firstWave(int b) {
    if (b <= 0) return 0;
    return Math.min(b, 2 * (int) Math.floor(Math.sqrt(b) / 2) + 1);
  }

  /**
   * The second wave's first guess from the first wave's answers: the start from which
   * {@link CapacitySearch#nextNear} would have needed the fewest runs in total to find those
   * answers (each counted by running the rule against its answer as a threshold; an answer not
   * found up to the cap counts as the cap + 1), over each answer and its two neighbours (within
   * [1, cap]); ties go to the count nearest the answers' nearest-rank median, then to the
   * smaller. Nothing here prefers more or fewer instances than the point estimate: the rule's own
   * cost decides (it is not symmetric: from a guess 1 too high it takes 4 runs, 1 too low 2).
   */
  static int secondWaveGuess(List<Integer> firstWave, int cap) {
    if (firstWave.isEmpty()) throw new IllegalArgumentException("no first-wave answer");
    List<Integer> a = new ArrayList<>();
    for (Integer x : firstWave) a.add(x == null ? cap + 1 : x);
    List<Integer> sorted = new ArrayList<>(a);
    sorted.sort(null);
    int median = sorted.get((int) Math.ceil(0.5 * sorted.size()) - 1);
    java.util.TreeSet<Integer> candidates = new java.util.TreeSet<>();
    for (int x : a) for (int c = x - 1; c <= x + 1; c++) if (c >= 1 && c <= cap) candidates.add(c);
    int best = Math.min(Math.max(median, 1), cap);
    long bestCost = Long.MAX_VALUE;
    for (int g : candidates) {
      long cost = 0;
      for (int th : a) cost += nearRuns(th, g, cap);
      long d = Math.abs((long) g - median);
      long bd = Math.abs((long) best - median);
      if (cost < bestCost || (cost == bestCost && (d < bd || (d == bd && g < best)))) {
        bestCost = cost;
        best = g;
      }
    }
    return best;
  }

  /** Runs {@link CapacitySearch#nextNear} from {@code guess} takes when exactly the counts >= {@code threshold} pass. */
  static int nearRuns(int threshold, int guess, int cap) {
    TreeMap<Integer, Boolean> t = new TreeMap<>();
    int runs = 0;
    for (OptionalInt n = CapacitySearch.nextNear(t, guess, cap); n.isPresent(); n = CapacitySearch.nextNear(t, guess, cap)) {
      t.put(n.getAsInt(), n.getAsInt() >= threshold);
      if (++runs > 4 * 64) throw new IllegalStateException("the search does not end");
    }
    return runs;
  }

  /**
   * The bootstrap interval of the x1 answer (issue 29 item 1): for each of the B replicates the
   * gain's interval uses (session trees resampled, {@link Sweep#traceFor}; a replicate runs at the
   * original's offered token rate), SMetric's and the judged router's smallest passing count at
   * the interval's capacity. Each router's replicates run in two waves, each replicate a track of
   * its own: the first {@link #firstWave} replicates searched from the point estimate, then the
   * rest from {@link #secondWaveGuess} of the first wave's answers (a group continuation, so which
   * runs are made never depends on which finished first). Every search uses the cap of the point
   * estimate, so each replicate's answer is the one any start finds (monotone pass/fail). One
   * group for the first waves; {@code counted} wraps each track for the progress count (its part name).
   * Planned once the searches are done; none when b is 0 or a router has no x1 answer.
   */
  public List<Schedule.Group> intervalGroups(int b, java.util.function.BiFunction<String, Schedule.Track, Schedule.Track> counted) {
    intervalReplicates = b;
    double g = intervalRatio();
    if (b <= 0 || Double.isNaN(g)) return List.of();
    int w = firstWave(b);
    Map<Chain, List<Replicate>> first = new LinkedHashMap<>();
    Map<Chain, List<Replicate>> rest = new LinkedHashMap<>();
    List<Schedule.Track> t1 = new ArrayList<>();
    for (Chain ch : chains) {
      if (ch.curve.globalRatio() != g || ch.role.equals(Search.OTHER)) continue;
      Integer n = ch.answers.get(1.0);
      if (n == null) continue;
      int cap = Math.max(64, MAX_FACTOR * n);
      first.put(ch, new ArrayList<>());
      rest.put(ch, new ArrayList<>());
      for (int k = 1; k <= b; k++) {
        Replicate r = new Replicate(ch, k, n, cap);
        replicates.add(r);
        (k <= w ? first : rest).get(ch).add(r);
        if (k <= w) t1.add(counted.apply(part(r), r::next));
      }
    }
    if (t1.isEmpty()) return List.of();
    // one group for both routers' first waves: a single continuation, so the second wave's group is
    // numbered the same whichever router's first wave ends first (Schedule numbers groups as they start)
    return List.of(new Schedule.Group(3, t1, all -> {
      List<Schedule.Track> t2 = new ArrayList<>();
      for (Chain ch : first.keySet()) {
        List<Integer> answers = new ArrayList<>();
        for (Replicate r : first.get(ch)) answers.add(r.answer());
        int guess = secondWaveGuess(answers, first.get(ch).get(0).cap);
        secondWaveGuess.put(ch, guess);
        for (Replicate r : rest.get(ch)) {
          r.guess = guess;
          t2.add(counted.apply(part(r), r::next));
        }
      }
      return t2.isEmpty() ? List.of() : List.of(Schedule.Group.of(3, t2));
    }));
  }

  private static String part(Replicate r) {
    return "capacity interval " + r.of.curve.policy() + " " + r.k;
  }

  /** The interval's searches as planned: how many replicate tracks {@link #intervalGroups} made or will make. */
  public int intervalSearches() {
    return replicates.size();
  }

  /**
   * The nearest-rank percentile interval of the replicates' answers: the ceil(q B)-th smallest for
   * q = 2.5% and 97.5% (with B = 10: the smallest and the largest); a replicate without an answer
   * (none up to the cap) counts as above every answer, so the high end is then null.
   */
  static Integer[] percentileInterval(List<Integer> answers, double level) {
    int b = answers.size();
    if (b == 0) return null;
    List<Integer> sorted = new ArrayList<>(answers);
    sorted.sort(java.util.Comparator.nullsLast(java.util.Comparator.naturalOrder()));
    double q = (1 - level) / 2;
    int lo = Math.max(1, (int) Math.ceil(q * b - 1e-9));
    int hi = Math.max(1, (int) Math.ceil((1 - q) * b - 1e-9));
    return new Integer[] {sorted.get(lo - 1), sorted.get(hi - 1)};
  }

  /** Whether B replicates are too few for the percentile's tails: its nearest ranks are then the 1st and B-th. */
  static boolean rangeOnly(int replicates) {
    return (1 - INTERVAL_LEVEL) / 2 * replicates < 1 - 1e-9;
  }

  /** The interval block of one search (SMetric or the judged router at x1 at the interval's capacity), null when none. */
  private ObjectNode describeInterval(Chain ch, Map<String, RunResult> bySpec) {
    List<Integer> answers = new ArrayList<>();
    int n = 0;
    double c = 0;
    for (Replicate rep : replicates) {
      if (rep.of != ch) continue;
      answers.add(rep.answer());
      for (SimSpec p : rep.specs) {
        RunResult r = bySpec.get(specKey(p));
        if (r == null) continue;
        n++;
        c += r.cpuSeconds();
      }
    }
    if (answers.isEmpty()) return null;
    Integer[] iv = percentileInterval(answers, INTERVAL_LEVEL);
    ObjectNode o = Json.object();
    o.put(Interval.FIRST_WAVE, firstWave(answers.size()));
    if (secondWaveGuess.containsKey(ch)) o.put(Interval.SECOND_WAVE_START, secondWaveGuess.get(ch));
    else o.putNull(Interval.SECOND_WAVE_START);
    if (iv[0] == null) o.putNull(Interval.LOW);
    else o.put(Interval.LOW, iv[0]);
    if (iv[1] == null) o.putNull(Interval.HIGH);
    else o.put(Interval.HIGH, iv[1]);
    o.put(Interval.LEVEL, INTERVAL_LEVEL);
    o.put(Interval.REPLICATES, answers.size());
    ArrayNode a = o.putArray(Interval.REPLICATE_ANSWERS);
    for (Integer x : answers) {
      if (x == null) a.addNull();
      else a.add(x);
    }
    o.put(Interval.METHOD, "nearest-rank percentile interval (the ceil(0.025 B)-th and ceil(0.975 B)-th smallest of the B "
        + "replicates' answers) over the session-tree resamples of the gain's interval, each replicate at the original's "
        + "offered token rate; each replicate's answer searched by stepping from a guess (CapacitySearch.nextNear, the cap "
        + "of the point estimate): the first " + firstWave(answers.size()) + " from the point estimate, the rest from the "
        + "count that search would have needed the fewest runs from for the first wave's answers"
        + (rangeOnly(answers.size())
            ? "; with " + answers.size() + " replicates these are the smallest and largest answer, whose coverage is below the "
                + "nominal level" : ""));
    o.put(Interval.SIMULATIONS, n);
    o.put(Interval.CPU_S, c);
    Integer point = ch.answers.get(1.0);
    if (point != null && iv[0] != null && (point < iv[0] || (iv[1] != null && point > iv[1]))) {
      // the resamples replay differently from the trace (as the gain's replicates do): say so, do not hide it
      o.put(Interval.NOTE, "the point estimate " + point + " lies outside the replicates' interval: the session-tree resamples need "
          + (point < iv[0] ? "more" : "fewer") + " instances than the trace itself, so the interval describes the resamples "
          + "rather than a band around the point estimate");
    }
    return o;
  }

  /**
   * One track per chain that follows no other, holding every chain that follows it directly or
   * through another (SMetric at the first capacity with the judged router, SMetric at the second
   * capacity and, with {@link Options#allRouters}, the other routers): each batch holds at most one
   * probe of each, asked in planning order, leads before their followers, so a follower whose lead
   * answers in this call starts in the same batch. A chain waits only while its lead has a probe in
   * the same batch, so a batch is never empty while a chain of the track is still searching.
   */
  public List<Schedule.Track> tracks() {
    Map<Chain, List<Chain>> byRoot = new LinkedHashMap<>();
    for (Chain ch : chains) {
      Chain root = ch;
      while (root.lead != null) root = root.lead;
      byRoot.computeIfAbsent(root, k -> new ArrayList<>()).add(ch);
    }
    List<Schedule.Track> out = new ArrayList<>();
    for (List<Chain> group : byRoot.values()) {
      if (group.size() == 1) {
        out.add(group.get(0)::next);
        continue;
      }
      out.add(all -> {
        List<SimSpec> b = new ArrayList<>();
        for (Chain ch : group) b.addAll(ch.next(all));
        return b;
      });
    }
    return out;
  }

  public int chainCount() {
    return chains.size();
  }

  /**
   * Pass/fail runs a track may be expected to take (progress estimate): a lead about log2 of the
   * bracket per factor (5 at x1, 3 per growth factor on the sample), a follower about 2-3 per
   * factor, another router 3 (x1 only).
   */
  public double expectedSimulations() {
    double e = 0;
    for (Chain ch : chains) {
      e += ch.role.equals(Search.OTHER) ? 3.0 : ch.lead == null ? 5.0 + 3.0 * options.growth().size() : 3.0 + 2.0 * options.growth().size();
    }
    return e;
  }

  /** GPUs per instance and the GPU's name from a profile's hardware line ("2 x NVIDIA H100 SXM 80 GB (TP2)"); null when unreadable. */
  public static Object[] gpus(String hardware) {
    if (hardware == null) return null;
    Matcher m = Pattern.compile("^\\s*(\\d+)\\s*[xX×]\\s*(.+?)\\s*(\\(.*\\))?\\s*$").matcher(hardware);
    if (!m.matches()) return null;
    return new Object[] {Integer.parseInt(m.group(1)), m.group(2)};
  }

  /** replay.json's {@code capacity} block, from the sweep's final results (run ids as numbered). */
  public ObjectNode describe(List<RunResult> results) {
    ObjectNode o = Json.object();
    o.put(CapacityBlock.TARGET_ATTAINMENT, options.attainment());
    o.put(CapacityBlock.RULE, "the smallest instance count at which the router keeps at least " + pct(options.attainment())
        + " of the trace's requests within the audit's TTFT and TPOT SLO at the traffic factor (x1 = the trace's own "
        + "pace; more traffic by session-tree scaling: more sessions, each at its own pace); SMetric at the first capacity: "
        + "bracket from the count the router's attainment rate at --instances implies (doubling / halving), then bisection "
        + "on the count, each growth factor from the previous answer x the factor ratio (the first) or x its own growth "
        + "between the two previous factors as an elasticity (the others); SMetric at the other capacity: from SMetric's answer at the first capacity and the same traffic "
        + "(at growth: its own previous answer x that answer's growth); the judged router"
        + (options.allRouters() ? " and, at x1, every other router" : "") + ": from SMetric's answer at the same capacity "
        + "and traffic (at growth: its own previous answer x SMetric's growth); a search from an answer steps 1, 2, 4, ... "
        + "counts away until bracketed, then bisects; SMetric's cap is 16x its rate-based (x1) or linear-growth guess (at "
        + "least 64) whatever its first count, another router's 16x its first count; each run stops as soon as its pass or fail is certain");
    double gi = intervalRatio();
    if (replicates.isEmpty()) {
      o.put(CapacityBlock.INTERVAL, intervalReplicates <= 0 ? "point estimates: no bootstrap replicates (--bootstrap 0, or none possible)"
          : "point estimates: no answer at x1 to resample around");
    } else {
      o.put(CapacityBlock.INTERVAL, "at x1 and global ratio " + gi + ": " + (rangeOnly(intervalReplicates)
          ? "the range (smallest to largest answer, the " + Math.round(INTERVAL_LEVEL * 100) + "% nearest ranks at this B) "
          : Math.round(INTERVAL_LEVEL * 100) + "% nearest-rank percentile interval ")
          + "over " + intervalReplicates + " bootstrap replicates (session trees resampled); other rows point estimates");
    }
    ArrayNode fs = o.putArray(CapacityBlock.TRAFFIC_FACTORS);
    factors.forEach(fs::add);
    Object[] g = gpus(base.profile.hardware);
    o.put(CapacityBlock.PROFILE, base.profile.name);
    if (g != null) {
      o.put(CapacityBlock.GPUS_PER_INSTANCE, (Integer) g[0]);
      o.put(CapacityBlock.GPU, (String) g[1]);
    } else {
      o.putNull(CapacityBlock.GPUS_PER_INSTANCE);
      o.put(CapacityBlock.GPU_NOT_APPLICABLE, "the profile's hardware line (" + base.profile.hardware + ") does not read as 'N x GPU'");
    }
    if (Double.isNaN(options.gpuHourUsd())) o.putNull(CapacityBlock.GPU_HOUR_USD);
    else o.put(CapacityBlock.GPU_HOUR_USD, options.gpuHourUsd());
    o.put(CapacityBlock.RECORDED_INSTANCES, base.instances);
    Map<Integer, RunResult> byId = new LinkedHashMap<>();
    Map<String, RunResult> bySpec = new LinkedHashMap<>();
    for (RunResult r : results) {
      if (VARIANT.equals(r.spec().variant())) bySpec.put(specKey(r.spec()), r);
      byId.put(r.spec().runId(), r);
    }
    int sims = 0;
    int early = 0;
    double cpu = 0;
    ArrayNode arr = o.putArray(CapacityBlock.SEARCHES);
    for (Chain ch : chains) {
      for (double x : factors) {
        if (!ch.starts.containsKey(x)) continue;
        ObjectNode s = arr.addObject();
        s.put(Search.POLICY, ch.curve.policy());
        s.put(Search.ROLE, ch.role);
        s.put(Search.GLOBAL_RATIO, ch.curve.globalRatio());
        s.put(Search.JUDGED_ROUTER, judged.get(ch.curve.globalRatio()));
        s.put(Search.TRAFFIC_FACTOR, x);
        Integer a = ch.answers.get(x);
        if (a == null) {
          s.putNull(Search.INSTANCES);
          s.put(Search.NOT_FOUND, "no count up to " + ch.caps.get(x) + " instances passed");
        } else {
          s.put(Search.INSTANCES, a);
          if (g != null) {
            int gpus = a * (Integer) g[0];
            s.put(Search.GPUS, gpus);
            if (!Double.isNaN(options.gpuHourUsd())) s.put(Search.USD_PER_DAY, gpus * options.gpuHourUsd() * 24);
          }
        }
        s.put(Search.START, ch.starts.get(x));
        if (ch.startRules.containsKey(x)) s.put(Search.START_RULE, ch.startRules.get(x));
        if (x == 1.0 && !Double.isNaN(ch.startRate)) s.put(Search.START_FROM_RATE_SCALE, ch.startRate);
        TreeMap<Integer, Boolean> t = ch.tested(x);
        Integer hi = CapacitySearch.lowestPass(t);
        Integer lo = CapacitySearch.highestFailBelow(t, hi);
        ObjectNode br = s.putObject(Search.BRACKET);
        if (lo == null) br.putNull(Bracket.HIGHEST_FAIL);
        else br.put(Bracket.HIGHEST_FAIL, lo);
        if (hi == null) br.putNull(Bracket.LOWEST_PASS);
        else br.put(Bracket.LOWEST_PASS, hi);
        ArrayNode ps = s.putArray(Search.PROBES);
        int n = 0;
        double c = 0;
        for (Probe p : ch.probes) {
          if (p.factor() != x) continue;
          ObjectNode q = ps.addObject();
          q.put(CapacityBlock.Probe.INSTANCES, p.instances());
          q.put(CapacityBlock.Probe.PASS, p.pass());
          q.put(CapacityBlock.Probe.SOURCE, p.source());
          if (p.spec() != null) {
            RunResult r = bySpec.get(specKey(p.spec()));
            if (r != null) {
              q.put(CapacityBlock.Probe.RUN_ID, r.spec().runId());
              q.put(CapacityBlock.Probe.STOPPED_EARLY, r.metrics().getOrDefault("stopped_early", 0.0) == 1.0);
              q.put(CapacityBlock.Probe.REQUESTS_DECIDED, r.metrics().getOrDefault("requests_decided", Double.NaN).longValue());
              q.put(CapacityBlock.Probe.REQUESTS_MET, r.metrics().getOrDefault("requests_met", Double.NaN).longValue());
              q.put(CapacityBlock.Probe.CPU_S, r.cpuSeconds());
              n++;
              c += r.cpuSeconds();
              if (r.metrics().getOrDefault("stopped_early", 0.0) == 1.0) early++;
            }
          }
        }
        s.put(Search.SIMULATIONS, n);
        s.put(Search.CPU_S, c);
        sims += n;
        cpu += c;
        if (x == 1.0 && ch.curve.globalRatio() == gi) {
          ObjectNode iv = describeInterval(ch, bySpec);
          if (iv != null) s.set(Search.INTERVAL, iv);
        }
      }
    }
    o.put(CapacityBlock.SIMULATIONS, sims);
    o.put(CapacityBlock.SIMULATIONS_STOPPED_EARLY, early);
    o.put(CapacityBlock.CPU_S, cpu);
    int ivN = 0;
    double ivC = 0;
    for (RunResult r : results) {
      if (VARIANT.equals(r.spec().variant()) && r.spec().replicate() > 0) {
        ivN++;
        ivC += r.cpuSeconds();
      }
    }
    o.put(CapacityBlock.INTERVAL_SIMULATIONS, ivN);
    o.put(CapacityBlock.INTERVAL_CPU_S, ivC);
    ArrayNode sized = describeSized(results);
    int sizedRuns = 0;
    double sizedCpu = 0;
    for (RunResult r : results) {
      if (SIZED.equals(r.spec().variant())) {
        sizedRuns++;
        sizedCpu += r.cpuSeconds();
      }
    }
    o.set(CapacityBlock.SIZED_POINT, sized);
    o.put(CapacityBlock.SIZED_POINT_SIMULATIONS, sizedRuns);
    o.put(CapacityBlock.SIZED_POINT_CPU_S, sizedCpu);
    return o;
  }

  private static String specKey(SimSpec s) {
    return s.policy() + "|" + s.globalRatio() + "|" + s.rateScale() + "|" + s.replicate() + "|" + s.overrides();
  }

  private static String pct(double x) {
    return io.smetric.audit.common.Numbers.percent(x);
  }
}
