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
 * of simulated.
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

    List<SimSpec> next(List<RunResult> all) {
      if (pending != null) {
        RunResult got = null;
        for (RunResult r : all) {
          SimSpec s = r.spec();
          if (VARIANT.equals(s.variant()) && s.policy().equals(pending.policy()) && s.globalRatio() == pending.globalRatio()
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
        int s0 = starts.computeIfAbsent(x, k -> startFor(k));
        int cap = caps.computeIfAbsent(x, k -> Math.max(64, MAX_FACTOR * s0));
        TreeMap<Integer, Boolean> t = tested(x);
        OptionalInt n = CapacitySearch.next(t, s0, cap);
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
      return List.of();
    }

    /**
     * The first count of factor x: the guess at x1; else the previous answer x the factor ratio.
     * The previous answer's neighbour below failed at the lower traffic, so it fails here too
     * (monotone in load, assumed): a probe without a run that bounds this search from below.
     */
    private int startFor(double x) {
      if (f == 0) return start;
      double prev = factors.get(f - 1);
      int a = answers.get(prev); // the chain stops at a factor without an answer
      if (a > 1) probes.add(new Probe(x, a - 1, false, "implied: failed at x" + prev, null));
      return Math.max(a, (int) Math.ceil(a * x / prev - 1e-9));
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
        c.chains.add(c.new Chain(pr[1], curve, start, rate));
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

  /** One track per search chain. */
  public List<Schedule.Track> tracks() {
    List<Schedule.Track> out = new ArrayList<>();
    for (Chain ch : chains) out.add(ch::next);
    return out;
  }

  public int chainCount() {
    return chains.size();
  }

  /** Pass/fail runs a search may be expected to take (progress estimate): about log2 of the bracket, per factor. */
  public double expectedSimulations() {
    return chains.size() * (5.0 + 3.0 * options.growth().size());
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
        + "pace; more traffic by session-tree scaling: more sessions, each at its own pace); bracket from the count the "
        + "router's attainment rate at --instances implies (doubling / halving), then bisection on the count; each run "
        + "stops as soon as its pass or fail is certain");
    o.put("interval", "point estimate: no bootstrap over session trees for the capacity answer (each replicate would "
        + "repeat the whole search)");
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
      }
    }
    o.put("simulations", sims);
    o.put("simulations_stopped_early", early);
    o.put("cpu_s", cpu);
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
    return s.policy() + "|" + s.globalRatio() + "|" + s.rateScale() + "|" + s.overrides();
  }

  private static String pct(double x) {
    return io.smetric.audit.common.Numbers.percent(x);
  }
}
