package io.smetric.audit.replay.sweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
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
  public record Options(boolean enabled, double attainment, List<Double> growth, double gpuHourUsd) {
    public Options {
      if (!(attainment > 0 && attainment <= 1)) throw new IllegalArgumentException("attainment must be in (0, 1], got " + attainment);
      growth = List.copyOf(growth);
      for (double f : growth) if (!(f > 1)) throw new IllegalArgumentException("growth factors must be > 1, got " + f);
    }

    public static final Options DEFAULT = new Options(true, EqualLoad.TARGET_ATTAINMENT, GROWTH, Double.NaN);
    public static final Options OFF = new Options(false, EqualLoad.TARGET_ATTAINMENT, GROWTH, Double.NaN);
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
     * The chain this one follows (SMetric's at the same capacity), null for a lead: at each factor
     * this chain waits for the lead's answer there and starts next to it (issue 29's cost bound:
     * on the 200k agent trace the two routers' answers were 0-1 apart with the 1.6x tier and 8-13
     * without, against a first guess 2-3x off and linear growth guesses 9-16 too high).
     */
    Chain lead;
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
      while (f < factors.size()) {
        double x = factors.get(f);
        if (!starts.containsKey(x) && waitsForLead(x)) return List.of();
        int s0 = starts.computeIfAbsent(x, k -> startFor(k));
        int cap = caps.computeIfAbsent(x, k -> Math.max(64, MAX_FACTOR * s0));
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
     * The first count of factor x: the guess at x1; else the previous answer x the factor ratio.
     * The previous answer's neighbour below failed at the lower traffic, so it fails here too
     * (monotone in load, assumed): a probe without a run that bounds this search from below.
     */
    private int startFor(double x) {
      Integer led = lead == null ? null : lead.answers.get(x);
      if (f == 0) {
        if (led != null) {
          near.put(x, true);
          startRules.put(x, lead.curve.policy() + "'s answer at x" + x);
          return led;
        }
        startRules.put(x, "instances / the router's " + pct(options.attainment()) + "-attainment rate at --instances");
        return start;
      }
      double prev = factors.get(f - 1);
      int a = answers.get(prev); // the chain stops at a factor without an answer
      if (a > 1) probes.add(new Probe(x, a - 1, false, "implied: failed at x" + prev, null));
      Integer ledPrev = lead == null ? null : lead.answers.get(prev);
      if (led != null && ledPrev != null) {
        // the lead's growth from prev to x, applied to this chain's own answer at prev
        near.put(x, true);
        startRules.put(x, "this router's answer at x" + prev + " x " + lead.curve.policy() + "'s growth from x" + prev + " to x" + x);
        return Math.max(a, (int) Math.round((double) a * led / ledPrev));
      }
      startRules.put(x, "the answer at x" + prev + " x " + x / prev);
      return Math.max(a, (int) Math.ceil(a * x / prev - 1e-9));
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
      for (String[] pr : new String[][] {{Policies.SMETRIC.cliName(), "smetric"}, {a.judged(), "judged"}}) {
        SweepSummary.Headline h = d.containsKey(pr[0]) ? d.get(pr[0]).get(g) : null;
        if (h == null) continue;
        AuditPlan.Curve curve = new AuditPlan.Curve(pr[0], g, h.overload(), h.hitRatio());
        double rate = KneeSearch.attainmentRate(EqualLoad.attainment(curve, all), options.attainment());
        if (Double.isNaN(rate) && options.attainment() == EqualLoad.TARGET_ATTAINMENT) rate = a.referenceRate();
        int start = Double.isNaN(rate) || rate <= 0 ? base.instances : Math.max(1, (int) Math.ceil(base.instances / rate - 1e-9));
        Chain ch = c.new Chain(pr[1], curve, start, rate);
        // the judged router follows SMetric at the same capacity, unless they are the same curve
        if (pr[1].equals("judged") && !c.chains.isEmpty()) {
          Chain prev = c.chains.get(c.chains.size() - 1);
          if (prev.role.equals("smetric") && prev.curve.globalRatio() == g) ch.lead = prev;
        }
        c.chains.add(ch);
      }
    }
    return c;
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
      if (ch.role.equals("judged") && ch.curve.globalRatio() == g) return ch.answers.get(1.0);
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
        if (ch.curve.globalRatio() != g) continue;
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
      e.put("global_ratio", g);
      e.put("instances", n);
      e.put("rate_scale", 1.0);
      e.put("judged_router", judged.get(g));
      e.put("sized_for", "the judged router's answer at x1");
      ObjectNode pol = e.putObject("policies");
      Map<String, Double> tps = new LinkedHashMap<>();
      for (RunResult r : results) {
        SimSpec s = r.spec();
        if (!SIZED.equals(s.variant()) || s.globalRatio() != g) continue;
        ObjectNode m = pol.putObject(s.policy());
        m.put("run_id", s.runId());
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
      if (sm != null && j != null && j > 0) e.put("smetric_gain_vs_judged", sm / j - 1);
      else e.putNull("smetric_gain_vs_judged");
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

  /** One router's x1 answer on bootstrap replicate k: a search next to the point estimate. */
  final class Replicate {
    final Chain of;
    final int k;
    int guess;
    /** SMetric's search on the same replicate, which this one (the judged router's) waits for and starts from; null for a lead. */
    Replicate lead;
    final TreeMap<Integer, Boolean> tested = new TreeMap<>();
    final List<SimSpec> pending = new ArrayList<>();
    final List<SimSpec> specs = new ArrayList<>();
    boolean done;

    Replicate(Chain of, int k, int guess) {
      this.of = of;
      this.k = k;
      this.guess = guess;
    }

    SimSpec spec(int n) {
      TreeMap<String, Double> ov = new TreeMap<>();
      ov.put("instances", (double) n);
      ov.put("decideAttainment", options.attainment());
      return new SimSpec(-1, of.curve.policy(), of.curve.globalRatio(), 1.0, of.curve.overload(), of.curve.hitRatio(), k, VARIANT, ov);
    }

    List<SimSpec> next(Map<String, RunResult> back) {
      if (done) return List.of();
      if (lead != null && tested.isEmpty() && pending.isEmpty()) {
        // as in the main search: the judged router starts from SMetric's answer on the same resample
        if (!lead.done) return List.of();
        if (lead.answer() != null) guess = lead.answer();
      }
      for (SimSpec p : pending) {
        RunResult r = back.get(specKey(p));
        if (r == null) throw new IllegalStateException("capacity replicate probe not back: " + p.label());
        tested.put((int) Math.round(p.overrides().get("instances")), r.metrics().getOrDefault(RunResult.PASS, 0.0) == 1.0);
      }
      pending.clear();
      int cap = Math.max(64, MAX_FACTOR * guess);
      if (tested.isEmpty() && guess > 1) {
        // the point estimate and its neighbour below in one batch: most replicates end there
        pending.add(spec(guess));
        pending.add(spec(guess - 1));
      } else {
        OptionalInt n = CapacitySearch.nextNear(tested, guess, cap);
        if (n.isEmpty()) {
          done = true;
          return List.of();
        }
        pending.add(spec(n.getAsInt()));
      }
      specs.addAll(pending);
      return List.copyOf(pending);
    }

    Integer answer() {
      return CapacitySearch.answer(tested);
    }
  }

  private final List<Replicate> replicates = new ArrayList<>();
  private int intervalReplicates;

  /**
   * The bootstrap interval of the x1 answer (issue 29 item 1): for each of the B replicates the
   * gain's interval uses (session trees resampled, {@link Sweep#traceFor}; a replicate runs at the
   * original's offered token rate), SMetric's and the judged router's smallest passing count at
   * the interval's capacity, searched next to the point estimate (N and N - 1 first, widening only
   * when needed); the judged router's search on a replicate starts from SMetric's answer on that
   * replicate once it is known (the two were 0-1 apart on the sample's replicates). One track per
   * capacity, every replicate of both routers in each batch. Planned once the searches are done;
   * none when b is 0 or a router has no x1 answer.
   */
  public List<Schedule.Track> intervalTracks(int b) {
    intervalReplicates = b;
    List<Schedule.Track> out = new ArrayList<>();
    double g = intervalRatio();
    if (b <= 0 || Double.isNaN(g)) return out;
    List<Replicate> mine = new ArrayList<>();
    for (Chain ch : chains) {
      if (ch.curve.globalRatio() != g) continue;
      Integer n = ch.answers.get(1.0);
      if (n == null) continue;
      for (int k = 1; k <= b; k++) {
        Replicate r = new Replicate(ch, k, n);
        for (Replicate o : mine) if (ch.lead != null && o.of == ch.lead && o.k == k) r.lead = o;
        mine.add(r);
      }
    }
    if (mine.isEmpty()) return out;
    replicates.addAll(mine);
    out.add(all -> {
      Map<String, RunResult> back = new LinkedHashMap<>();
      for (RunResult r : all) if (VARIANT.equals(r.spec().variant()) && r.spec().replicate() > 0) back.put(specKey(r.spec()), r);
      List<SimSpec> batch = new ArrayList<>();
      // leads first, so that a follower whose lead ends in this call starts in the same batch
      for (Replicate rep : mine) if (rep.lead == null) batch.addAll(rep.next(back));
      for (Replicate rep : mine) if (rep.lead != null) batch.addAll(rep.next(back));
      return batch;
    });
    return out;
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
    if (iv[0] == null) o.putNull("low");
    else o.put("low", iv[0]);
    if (iv[1] == null) o.putNull("high");
    else o.put("high", iv[1]);
    o.put("level", INTERVAL_LEVEL);
    o.put("replicates", answers.size());
    ArrayNode a = o.putArray("replicate_answers");
    for (Integer x : answers) {
      if (x == null) a.addNull();
      else a.add(x);
    }
    o.put("method", "nearest-rank percentile interval (the ceil(0.025 B)-th and ceil(0.975 B)-th smallest of the B "
        + "replicates' answers) over the session-tree resamples of the gain's interval, each replicate at the original's "
        + "offered token rate; each replicate's answer searched next to the point estimate"
        + (rangeOnly(answers.size())
            ? "; with " + answers.size() + " replicates these are the smallest and largest answer, whose coverage is below the "
                + "nominal level" : ""));
    o.put("simulations", n);
    o.put("cpu_s", c);
    Integer point = ch.answers.get(1.0);
    if (point != null && iv[0] != null && (point < iv[0] || (iv[1] != null && point > iv[1]))) {
      // the resamples replay differently from the trace (as the gain's replicates do): say so, do not hide it
      o.put("note", "the point estimate " + point + " lies outside the replicates' interval: the session-tree resamples need "
          + (point < iv[0] ? "more" : "fewer") + " instances than the trace itself, so the interval describes the resamples "
          + "rather than a band around the point estimate");
    }
    return o;
  }

  /**
   * One track per capacity: SMetric's chain and the judged router's, which follows it (each batch
   * holds at most one probe of each). A chain without a partner is a track alone.
   */
  public List<Schedule.Track> tracks() {
    List<Schedule.Track> out = new ArrayList<>();
    for (Chain ch : chains) {
      if (ch.lead != null) continue;
      Chain follower = null;
      for (Chain o : chains) if (o.lead == ch) follower = o;
      if (follower == null) {
        out.add(ch::next);
        continue;
      }
      Chain fo = follower;
      out.add(all -> {
        List<SimSpec> b = new ArrayList<>(ch.next(all));
        b.addAll(fo.next(all));
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
   * bracket per factor (5 at x1, 3 per growth factor on the sample), a follower about 2-3 per factor.
   */
  public double expectedSimulations() {
    double e = 0;
    for (Chain ch : chains) e += ch.lead == null ? 5.0 + 3.0 * options.growth().size() : 3.0 + 2.0 * options.growth().size();
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
    o.put("target_attainment", options.attainment());
    o.put("rule", "the smallest instance count at which the router keeps at least " + pct(options.attainment())
        + " of the trace's requests within the audit's TTFT and TPOT SLO at the traffic factor (x1 = the trace's own "
        + "pace; more traffic by session-tree scaling: more sessions, each at its own pace); SMetric: bracket from the count "
        + "the router's attainment rate at --instances implies (doubling / halving), then bisection on the count; the judged "
        + "router: from SMetric's answer at the same traffic (at growth: its own previous answer x SMetric's growth), "
        + "stepping 1, 2, 4, ... counts away until bracketed, then bisection; each run stops as soon as its pass or fail is "
        + "certain");
    double gi = intervalRatio();
    if (replicates.isEmpty()) {
      o.put("interval", intervalReplicates <= 0 ? "point estimates: no bootstrap replicates (--bootstrap 0, or none possible)"
          : "point estimates: no answer at x1 to resample around");
    } else {
      o.put("interval", "at x1 and global ratio " + gi + ": " + (rangeOnly(intervalReplicates)
          ? "the range (smallest to largest answer, the " + Math.round(INTERVAL_LEVEL * 100) + "% nearest ranks at this B) "
          : Math.round(INTERVAL_LEVEL * 100) + "% nearest-rank percentile interval ")
          + "over " + intervalReplicates + " bootstrap replicates (session trees resampled); other rows point estimates");
    }
    ArrayNode fs = o.putArray("traffic_factors");
    factors.forEach(fs::add);
    Object[] g = gpus(base.profile.hardware);
    o.put("profile", base.profile.name);
    if (g != null) {
      o.put("gpus_per_instance", (Integer) g[0]);
      o.put("gpu", (String) g[1]);
    } else {
      o.putNull("gpus_per_instance");
      o.put("gpu_not_applicable", "the profile's hardware line (" + base.profile.hardware + ") does not read as 'N x GPU'");
    }
    if (Double.isNaN(options.gpuHourUsd())) o.putNull("gpu_hour_usd");
    else o.put("gpu_hour_usd", options.gpuHourUsd());
    o.put("recorded_instances", base.instances);
    Map<Integer, RunResult> byId = new LinkedHashMap<>();
    Map<String, RunResult> bySpec = new LinkedHashMap<>();
    for (RunResult r : results) {
      if (VARIANT.equals(r.spec().variant())) bySpec.put(specKey(r.spec()), r);
      byId.put(r.spec().runId(), r);
    }
    int sims = 0;
    int early = 0;
    double cpu = 0;
    ArrayNode arr = o.putArray("searches");
    for (Chain ch : chains) {
      for (double x : factors) {
        if (!ch.starts.containsKey(x)) continue;
        ObjectNode s = arr.addObject();
        s.put("policy", ch.curve.policy());
        s.put("role", ch.role);
        s.put("global_ratio", ch.curve.globalRatio());
        s.put("judged_router", judged.get(ch.curve.globalRatio()));
        s.put("traffic_factor", x);
        Integer a = ch.answers.get(x);
        if (a == null) {
          s.putNull("instances");
          s.put("not_found", "no count up to " + ch.caps.get(x) + " instances passed");
        } else {
          s.put("instances", a);
          if (g != null) {
            int gpus = a * (Integer) g[0];
            s.put("gpus", gpus);
            if (!Double.isNaN(options.gpuHourUsd())) s.put("usd_per_day", gpus * options.gpuHourUsd() * 24);
          }
        }
        s.put("start", ch.starts.get(x));
        if (ch.startRules.containsKey(x)) s.put("start_rule", ch.startRules.get(x));
        if (x == 1.0 && !Double.isNaN(ch.startRate)) s.put("start_from_rate_scale", ch.startRate);
        TreeMap<Integer, Boolean> t = ch.tested(x);
        Integer hi = CapacitySearch.lowestPass(t);
        Integer lo = CapacitySearch.highestFailBelow(t, hi);
        ObjectNode br = s.putObject("bracket");
        if (lo == null) br.putNull("highest_fail");
        else br.put("highest_fail", lo);
        if (hi == null) br.putNull("lowest_pass");
        else br.put("lowest_pass", hi);
        ArrayNode ps = s.putArray("probes");
        int n = 0;
        double c = 0;
        for (Probe p : ch.probes) {
          if (p.factor() != x) continue;
          ObjectNode q = ps.addObject();
          q.put("instances", p.instances());
          q.put("pass", p.pass());
          q.put("source", p.source());
          if (p.spec() != null) {
            RunResult r = bySpec.get(specKey(p.spec()));
            if (r != null) {
              q.put("run_id", r.spec().runId());
              q.put("stopped_early", r.metrics().getOrDefault("stopped_early", 0.0) == 1.0);
              q.put("requests_decided", r.metrics().getOrDefault("requests_decided", Double.NaN).longValue());
              q.put("requests_met", r.metrics().getOrDefault("requests_met", Double.NaN).longValue());
              q.put("cpu_s", r.cpuSeconds());
              n++;
              c += r.cpuSeconds();
              if (r.metrics().getOrDefault("stopped_early", 0.0) == 1.0) early++;
            }
          }
        }
        s.put("simulations", n);
        s.put("cpu_s", c);
        sims += n;
        cpu += c;
        if (x == 1.0 && ch.curve.globalRatio() == gi) {
          ObjectNode iv = describeInterval(ch, bySpec);
          if (iv != null) s.set("interval", iv);
        }
      }
    }
    o.put("simulations", sims);
    o.put("simulations_stopped_early", early);
    o.put("cpu_s", cpu);
    int ivN = 0;
    double ivC = 0;
    for (RunResult r : results) {
      if (VARIANT.equals(r.spec().variant()) && r.spec().replicate() > 0) {
        ivN++;
        ivC += r.cpuSeconds();
      }
    }
    o.put("interval_simulations", ivN);
    o.put("interval_cpu_s", ivC);
    ArrayNode sized = describeSized(results);
    int sizedRuns = 0;
    double sizedCpu = 0;
    for (RunResult r : results) {
      if (SIZED.equals(r.spec().variant())) {
        sizedRuns++;
        sizedCpu += r.cpuSeconds();
      }
    }
    o.set("sized_point", sized);
    o.put("sized_point_simulations", sizedRuns);
    o.put("sized_point_cpu_s", sizedCpu);
    return o;
  }

  private static String specKey(SimSpec s) {
    return s.policy() + "|" + s.globalRatio() + "|" + s.rateScale() + "|" + s.replicate() + "|" + s.overrides();
  }

  private static String pct(double x) {
    return io.smetric.audit.common.Numbers.percent(x);
  }
}
