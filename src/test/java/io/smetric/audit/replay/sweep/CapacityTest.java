package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.replay.ReplaySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The capacity search's tracks on EqualLoadTest's hand-made sweep (4 instances; SMetric and
 * LMetric keep 90% within SLO up to rate 0.2 at 1.6x, SMetric and least-load up to 0.1 at 0x),
 * with a made-up pass rule: a count passes at traffic x iff it is at least ceil(12 x).
 */
class CapacityTest {
  private int id = 1000;

  private static RunResult main(String policy, double g, double x, double tps, double att, int id) {
    double o = policy.equals("smetric") ? 1.5 : Double.NaN;
    double h = policy.equals("smetric") ? 0.5 : Double.NaN;
    return new RunResult(new SimSpec(id, policy, g, x, o, h, 0, null, null), Map.of("tps_within_slo", tps, "slo_attainment", att),
        Map.of(), new double[0], new double[0], new double[0], new double[0][], 1, 1);
  }

  private static List<RunResult> sweep() {
    List<RunResult> r = new ArrayList<>();
    int i = 0;
    double[][] sm = {{0.1, 10, 1.0}, {0.2, 19, 0.95}, {0.3, 24, 0.80}, {0.4, 20, 0.5}};
    double[][] lm = {{0.1, 10, 1.0}, {0.2, 18, 0.92}, {0.3, 25, 0.85}, {0.4, 21, 0.6}};
    double[][] ll = {{0.1, 10, 1.0}, {0.2, 17, 0.88}, {0.3, 22, 0.75}};
    for (double[] p : sm) r.add(main("smetric", 1.6, p[0], p[1], p[2], i++));
    for (double[] p : lm) r.add(main("lmetric", 1.6, p[0], p[1], p[2], i++));
    for (double[] p : ll) r.add(main("least-load", 1.6, p[0], p[1], p[2], i++));
    r.add(main("smetric", 0, 0.1, 9, 0.95, i++));
    r.add(main("smetric", 0, 0.2, 15, 0.70, i++));
    r.add(main("least-load", 0, 0.1, 9, 0.91, i++));
    r.add(main("least-load", 0, 0.2, 16, 0.80, i++));
    return r;
  }

  /** Pass/fail runs the fake oracle answered. */
  private int calls;

  /** Runs every track to its end, answering each pass/fail run by the rule; returns every result. */
  private List<RunResult> drive(Capacity c, List<RunResult> all) {
    for (Schedule.Track t : c.tracks()) {
      for (List<SimSpec> next = t.next(all); !next.isEmpty(); next = t.next(all)) {
        for (SimSpec s : next) {
          calls++;
          int n = (int) Math.round(s.overrides().get("instances"));
          boolean pass = n >= Math.ceil(12 * s.rateScale() - 1e-9);
          all.add(new RunResult(s.withRunId(id++), Map.of(RunResult.PASS, pass ? 1.0 : 0.0, "stopped_early", 1.0,
              "requests_decided", 100.0, "requests_met", 90.0), Map.of(), new double[0], new double[0], new double[0],
              new double[0][], 1, 0.5));
        }
      }
    }
    return all;
  }

  /**
   * SMetric at 1.6x: start ceil(4 / 0.2) = 20; x1: 20 P, 10 F, 15 P, 12 P, 11 F -> 12 (5 runs);
   * x1.25 (needs 15): start ceil(12 x 1.25) = 15, 11 carried over as failed: 15 P, 13 F, 14 F -> 15
   * (3); x1.5 (18): its growth 12 -> 15 from x1 to x1.25 is an elasticity of 1, so start 15 x 1.2
   * = 18, 14 carried: 18 P, 17 F -> 18 (2; the linear guess's bracket took 3); x2 (24): elasticity
   * 1 again, start 24, 17 carried: 24 P, 23 F -> 24 (2; the bracket took 4). SMetric at 0x starts
   * from SMetric's answers at 1.6x.
   */
  @Test
  void searches_probesInOrder_answersAndCounts() {
    List<RunResult> all = sweep();
    Capacity c = plan(4, all, new Capacity.Options(true, 0.9, Capacity.GROWTH, 2.0));
    assertEquals(4, c.chainCount(), "SMetric and the judged router at 1.6x and 0x");
    drive(c, all);
    JsonNode d = c.describe(all);
    JsonNode s = null;
    for (JsonNode x : d.get("searches")) {
      if (x.get("policy").asText().equals("smetric") && x.get("global_ratio").asDouble() == 1.6 && x.get("traffic_factor").asDouble() == 1.0) s = x;
    }
    assertEquals(20, s.get("start").asInt());
    assertEquals(12, s.get("instances").asInt());
    assertEquals(List.of(20, 10, 15, 12, 11), ints(s.get("probes")));
    assertEquals(5, s.get("simulations").asInt());
    assertEquals(11, s.get("bracket").get("highest_fail").asInt());
    List<Integer> answers = new ArrayList<>();
    List<Integer> sims = new ArrayList<>();
    for (JsonNode x : d.get("searches")) {
      if (x.get("policy").asText().equals("smetric") && x.get("global_ratio").asDouble() == 1.6) {
        answers.add(x.get("instances").asInt());
        sims.add(x.get("simulations").asInt());
      }
    }
    assertEquals(List.of(12, 15, 18, 24), answers);
    assertEquals(List.of(5, 3, 2, 2), sims);
    // LMetric (judged) follows SMetric at 1.6x: x1 from SMetric's 12: 12 P, 11 F (2 runs, not 5);
    // x1.25: 11 carried, its 12 x SMetric's growth 15/12 = 15: 15 P, 14 F; x1.5: 18 P, 17 F; x2: 24 P, 23 F
    List<List<Integer>> lm = new ArrayList<>();
    List<Integer> lmAnswers = new ArrayList<>();
    for (JsonNode x : d.get("searches")) {
      if (x.get("policy").asText().equals("lmetric")) {
        lm.add(ints(x.get("probes")));
        lmAnswers.add(x.get("instances").asInt());
      }
    }
    assertEquals(List.of(List.of(12, 11), List.of(11, 15, 14), List.of(14, 18, 17), List.of(17, 24, 23)), lm);
    assertEquals(List.of(12, 15, 18, 24), lmAnswers, "the same answers as its own bracket search gives");
    // 1.6x: 12 + 8; 0x: SMetric from its answer at 1.6x, 12 (12 P, 11 F), then its own answer x SMetric-at-1.6x's
    // growth, each on the answer (15 P 14 F, 18 P 17 F, 24 P 23 F): 8 (from its rate-based guess 40 it took 6 + 3 + 3 + 4
    // = 16), least-load 8. Each chain on its own bracket search (before any chain followed another): 15 + 15 + 16 + 16 = 62
    assertEquals(12 + 8 + 8 + 8, calls);
    JsonNode g15 = d.get("searches").get(1);
    assertEquals("implied: failed at x1.0", g15.get("probes").get(0).get("source").asText());
    assertEquals(11, g15.get("probes").get(0).get("instances").asInt());
    // 1 GPU per instance on the default profile (an H20); 24 GPUs x $2 x 24 h
    assertEquals(24 * 2.0 * 24, d.get("searches").get(3).get("usd_per_day").asDouble(), 1e-9);
    for (JsonNode x : d.get("searches")) {
      if (x.get("global_ratio").asDouble() != 0.0 || x.get("traffic_factor").asDouble() != 1.0) continue;
      // SMetric from its answer with the 1.6x tier (not 4 / 0.1 = 40); least-load (judged at 0x) from SMetric's answer there
      boolean sm = x.get("policy").asText().equals("smetric");
      assertEquals(12, x.get("start").asInt());
      assertEquals(sm ? "smetric (1.6x global tier)'s answer at x1.0" : "smetric's answer at x1.0", x.get("start_rule").asText());
      assertEquals(List.of(12, 11), ints(x.get("probes")));
    }
    // the sized point: both routers at the judged router's x1 answer (12) at each capacity
    List<String> sized = c.sizedSpecs().stream().map(x -> x.policy() + "@" + x.globalRatio() + "x" + x.overrides().get("instances")).toList();
    assertEquals(List.of("smetric@1.6x12.0", "lmetric@1.6x12.0", "smetric@0.0x12.0", "least-load@0.0x12.0"), sized);
  }

  private static List<Integer> ints(JsonNode probes) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode p : probes) out.add(p.get("instances").asInt());
    return out;
  }

  /**
   * Nearest-rank percentiles by hand: B = 10 answers 12 11 13 12 12 14 12 11 12 13, sorted 11 11
   * 12 12 12 12 12 13 13 14; the ceil(0.25) = 1st and ceil(9.75) = 10th smallest: [11, 14]. B = 40:
   * the 1st and 39th smallest; a replicate without an answer sorts last (the high end is unknown).
   */
  @Test
  void percentileInterval_nearestRank_byHand() {
    assertEquals(List.of(11, 14), List.of(Capacity.percentileInterval(List.of(12, 11, 13, 12, 12, 14, 12, 11, 12, 13), 0.95)));
    List<Integer> forty = new ArrayList<>();
    for (int k = 1; k <= 40; k++) forty.add(100 + k); // 101 .. 140
    assertEquals(List.of(101, 139), List.of(Capacity.percentileInterval(forty, 0.95)));
    // with 10 the ends are the smallest and largest answer (a range), with 40 the 39th is not the largest;
    // 39 replicates: ceil(0.975 x 39) = 39 is still the largest
    assertEquals(true, Capacity.rangeOnly(10));
    assertEquals(true, Capacity.rangeOnly(39));
    assertEquals(false, Capacity.rangeOnly(40));
    List<Integer> withNull = new ArrayList<>(List.of(12, 11, 13));
    withNull.add(null);
    Integer[] iv = Capacity.percentileInterval(withNull, 0.95);
    assertEquals(11, iv[0]);
    assertEquals(null, iv[1]);
  }

  /**
   * Runs groups through the real {@link Schedule} with an engine that answers each pass/fail run
   * by {@code pass} at once; records each submission's specs (policy, replicate, instances).
   */
  private List<RunResult> schedule(List<Schedule.Group> groups, java.util.function.Predicate<SimSpec> pass, List<String> submitted) {
    Schedule s = new Schedule(specs -> {
      List<RunResult> out = new ArrayList<>();
      for (SimSpec x : specs) {
        calls++;
        submitted.add(x.policy() + "/" + x.replicate() + "@" + Math.round(x.overrides().get("instances")));
        out.add(new RunResult(x, Map.of(RunResult.PASS, pass.test(x) ? 1.0 : 0.0, "stopped_early", 1.0, "requests_decided", 100.0,
            "requests_met", 90.0), Map.of(), new double[0], new double[0], new double[0], new double[0][], 1, 0.25));
      }
      return java.util.concurrent.CompletableFuture.completedFuture(out);
    });
    return s.run(groups);
  }

  /**
   * The interval's replicates at 1.6x in two waves, with a made-up pass rule per replicate k: a
   * count passes iff it is at least 12 + (k mod 3) - 1 (replicates 1..4 need 12, 13, 11, 12). Both
   * routers' point estimate is 12. B = 4: the first wave is replicates 1..3, each from 12 by
   * nextNear: k = 1: 12 P, 11 F (2); k = 2: 12 F, 13 P (2); k = 3: 12 P, 11 P, 9 F, 10 F (4).
   * Second-wave guess from the answers 12, 13, 11: from 11 the three searches take 2 + 4 + 2 = 8
   * runs, from 12 2 + 2 + 4 = 8, from 10 or 13 10; the tie goes to the median 12; k = 4 from 12:
   * 12 P, 11 F (2). 10 runs per router (the old rule, N and N - 1 first, took 11 for SMetric);
   * interval over B = 4: the 1st and 4th smallest of 12 13 11 12 = [11, 13].
   */
  @Test
  void interval_twoWaves_runsCountedAndInterval() {
    List<RunResult> all = sweep();
    Capacity c = plan(4, all, new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN));
    drive(c, all);
    List<String> parts = new ArrayList<>();
    List<Schedule.Group> groups = c.intervalGroups(4, (part, t) -> {
      parts.add(part);
      return t;
    });
    assertEquals(1, groups.size(), "one group for both routers' first waves at 1.6x");
    assertEquals(List.of("capacity interval smetric 1", "capacity interval smetric 2", "capacity interval smetric 3",
        "capacity interval lmetric 1", "capacity interval lmetric 2", "capacity interval lmetric 3"), parts, "the first wave");
    int before = calls;
    List<String> submitted = new ArrayList<>();
    List<RunResult> ivRuns = schedule(groups, s -> {
      assertEquals(1.0, s.rateScale());
      assertEquals(1.6, s.globalRatio());
      return Math.round(s.overrides().get("instances")) >= 12 + (s.replicate() % 3) - 1;
    }, submitted);
    assertEquals(8, parts.size(), "the second wave's tracks made once the first is back");
    assertEquals(20, calls - before);
    // replicate 4 (the second wave) is submitted after every first-wave run of its router is back
    int lastFirst = -1;
    for (int i = 0; i < submitted.size(); i++) if (submitted.get(i).startsWith("smetric/") && !submitted.get(i).startsWith("smetric/4")) lastFirst = i;
    assertEquals(true, submitted.indexOf("smetric/4@12") > lastFirst, submitted.toString());
    all.addAll(ivRuns);
    JsonNode d = c.describe(all);
    assertEquals(20, d.get("interval_simulations").asInt());
    assertEquals(20 * 0.25, d.get("interval_cpu_s").asDouble(), 1e-9);
    for (JsonNode x : d.get("searches")) {
      boolean here = x.get("global_ratio").asDouble() == 1.6 && x.get("traffic_factor").asDouble() == 1.0;
      assertEquals(here, x.has("interval"), x.get("policy").asText() + " " + x.get("global_ratio") + " " + x.get("traffic_factor"));
      if (!here) continue;
      JsonNode iv = x.get("interval");
      assertEquals(11, iv.get("low").asInt());
      assertEquals(13, iv.get("high").asInt());
      assertEquals(List.of(12, 13, 11, 12), ints2(iv.get("replicate_answers")));
      assertEquals(10, iv.get("simulations").asInt());
      assertEquals(3, iv.get("first_wave").asInt());
      assertEquals(12, iv.get("second_wave_start").asInt());
      assertEquals(false, iv.has("note"), "12 lies inside [11, 13]");
      assertEquals(12, x.get("instances").asInt(), "the point estimate is the search's, unchanged");
    }
    assertEquals(0, c.intervalGroups(0, (p, t) -> t).size(), "--bootstrap 0: no interval");
  }

  /**
   * The interval's runs do not depend on which run finishes first: the same groups run on an
   * engine that completes each submission at once and on one that holds every submission back
   * and completes them last first give the same runs (spec by spec, in run-id order).
   */
  @Test
  void interval_sameRunsWhateverFinishesFirst() {
    List<List<String>> seen = new ArrayList<>();
    for (boolean lastFirst : new boolean[] {false, true}) {
      List<RunResult> all = sweep();
      Capacity c = plan(4, all, new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN));
      drive(c, all);
      java.util.function.Predicate<SimSpec> pass = s -> Math.round(s.overrides().get("instances")) >= 10 + (s.replicate() * 7 % 5);
      int[] sent = {0};
      Schedule.Engine engine = specs -> {
        List<RunResult> out = new ArrayList<>();
        for (SimSpec x : specs) out.add(new RunResult(x, Map.of(RunResult.PASS, pass.test(x) ? 1.0 : 0.0), Map.of(), new double[0],
            new double[0], new double[0], new double[0][], 1, 0.25));
        if (!lastFirst) return java.util.concurrent.CompletableFuture.completedFuture(out);
        // later submissions come back sooner
        long delay = Math.max(0, 80 - 10L * sent[0]++);
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> out,
            java.util.concurrent.CompletableFuture.delayedExecutor(delay, java.util.concurrent.TimeUnit.MILLISECONDS));
      };
      List<RunResult> runs = new Schedule(engine).run(c.intervalGroups(10, (p, t) -> t));
      List<String> ids = new ArrayList<>();
      for (RunResult r : runs) ids.add(r.spec().runId() + ":" + r.spec().policy() + "/" + r.spec().replicate() + "@"
          + Math.round(r.spec().overrides().get("instances")));
      seen.add(ids);
    }
    assertEquals(seen.get(0), seen.get(1));
  }

  /**
   * The 200k agent trace's capacity block replayed against the rules (docs/lab/benchmarks.md,
   * "Capacity: fewer runs for the same answers"): each search's recorded answer is its oracle (a
   * count passes iff it is at least the answer; pass/fail is monotone in the count), the main
   * sweep's 90%-attainment rates at 32 instances are the recorded ones (SMetric x0.1933 at 1.6x,
   * x0.1367 at 0x, so the rate-based starts 166 and 235). Recorded with the old rules: 76 search
   * runs and 76 interval runs. Now: SMetric 1.6x 9 + 5 as before, then from its own growth as an
   * elasticity (71 -> 80: e = 0.535, 80 x 1.2^e = 88: 88 87 P, 85 86 F: 4 instead of 5; 80 -> 87: e =
   * 0.460, 87 x (4/3)^e = 99: 99 F, 100 P: 2 instead of 6); lmetric 4 + 2 + 2 + 2 as before;
   * SMetric 0x from 71 (71 72 74 78 F, 86 P, 82 84 85 F: 8, not 9), then from 86 x 80/71 = 97 (97
   * 96 P, 94 F, 95 P: 4), 95 x 87/80 = 103 (2), 103 x 100/87 = 118 (2): 16 instead of 27; lmetric
   * 0x 8 + 2 + 2 + 2 as before: 60. Interval, first wave (replicates 1-3) from the point
   * estimates: SMetric 72 72 72 from 71 (2 each), lmetric 71 71 71 from 70 (2 each); second-wave
   * starts 72 and 71 (a tie with 71 and 70 at 6 runs, broken by the median); then SMetric 72 73 73
   * 73 73 73 72 from 72 (2 each: 14), lmetric 71 73 72 72 73 72 71 from 71 (2 4 2 2 4 2 2: 18): 6 +
   * 14 + 6 + 18 = 44. Every answer as recorded.
   */
  @Test
  void recorded200k_fewerRuns_sameAnswers() {
    List<RunResult> all = new ArrayList<>();
    int i = 0;
    double[][][] curves = {{{0.1, 50, 1.0}, {0.1933, 80, 0.941}, {0.2299, 90, 0.891}}, {{0.1, 50, 1.0}, {0.2261, 90, 0.901}, {0.2274, 91, 0.898}},
        {{0.1, 50, 1.0}, {0.1367, 60, 0.976}, {0.2, 70, 0.8}}, {{0.1, 50, 1.0}, {0.2008, 80, 0.9}, {0.2019, 81, 0.899}}};
    String[] pol = {"smetric", "lmetric", "smetric", "lmetric"};
    double[] gs = {1.6, 1.6, 0, 0};
    for (int k = 0; k < 4; k++) for (double[] p : curves[k]) all.add(main(pol[k], gs[k], p[0], p[1], p[2], i++));
    Map<String, int[]> answers = Map.of("smetric@1.6", new int[] {71, 80, 87, 100}, "lmetric@1.6", new int[] {70, 79, 86, 99},
        "smetric@0.0", new int[] {86, 95, 103, 118}, "lmetric@0.0", new int[] {75, 83, 91, 105});
    int[] smReps = {72, 72, 72, 72, 73, 73, 73, 73, 73, 72};
    int[] lmReps = {71, 71, 71, 71, 73, 72, 72, 73, 72, 71};
    List<Double> fs = List.of(1.0, 1.25, 1.5, 2.0);
    java.util.function.Predicate<SimSpec> pass = s -> {
      long n = Math.round(s.overrides().get("instances"));
      if (s.replicate() > 0) return n >= (s.policy().equals("smetric") ? smReps : lmReps)[s.replicate() - 1];
      return n >= answers.get(s.policy() + "@" + s.globalRatio())[fs.indexOf(s.rateScale())];
    };
    Capacity c = plan(32, all, new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN));
    assertEquals(4, c.chainCount());
    List<String> submitted = new ArrayList<>();
    all.addAll(schedule(List.of(Schedule.Group.of(3, c.tracks())), pass, submitted));
    assertEquals(60, calls, "search runs (76 recorded with the old rules)");
    all.addAll(schedule(c.intervalGroups(10, (p, t) -> t), pass, submitted));
    assertEquals(60 + 44, calls, "interval runs (76 recorded with the old rules)");
    JsonNode d = c.describe(all);
    assertEquals(60, d.get("simulations").asInt());
    assertEquals(44, d.get("interval_simulations").asInt());
    for (JsonNode x : d.get("searches")) {
      String key = x.get("policy").asText() + "@" + x.get("global_ratio").asDouble();
      assertEquals(answers.get(key)[fs.indexOf(x.get("traffic_factor").asDouble())], x.get("instances").asInt(), key);
      if (!x.has("interval")) continue;
      int[] reps = x.get("policy").asText().equals("smetric") ? smReps : lmReps;
      List<Integer> want = new ArrayList<>();
      for (int r : reps) want.add(r);
      assertEquals(want, ints2(x.get("interval").get("replicate_answers")), key);
      assertEquals(x.get("policy").asText().equals("smetric") ? 20 : 24, x.get("interval").get("simulations").asInt(), key);
      assertEquals(x.get("policy").asText().equals("smetric") ? 72 : 71, x.get("interval").get("second_wave_start").asInt(), key);
    }
    assertEquals(List.of(9, 5, 4, 2), sims(d, "smetric@1.6"));
    assertEquals(List.of(4, 2, 2, 2), sims(d, "lmetric@1.6"));
    assertEquals(List.of(8, 4, 2, 2), sims(d, "smetric@0.0"));
    assertEquals(List.of(8, 2, 2, 2), sims(d, "lmetric@0.0"));
  }

  private static List<Integer> sims(JsonNode d, String key) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode x : d.get("searches")) {
      if ((x.get("policy").asText() + "@" + x.get("global_ratio").asDouble()).equals(key)) out.add(x.get("simulations").asInt());
    }
    return out;
  }

  /**
   * --capacity-all-routers: least-load, neither SMetric nor the judged router at 1.6x (lmetric),
   * is sized at x1 from SMetric's answer there, 12 (12 P, 11 F: 2 runs), and only at x1; at 0x it
   * is the judged router. It gets no sized-point run and no interval. Without the option it is
   * not searched.
   */
  @Test
  void allRouters_otherRoutersAtX1FromSmetricsAnswer() {
    List<RunResult> all = sweep();
    Capacity.Options o = new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN).withAllRouters(true);
    Capacity c = plan(4, all, o);
    assertEquals(5, c.chainCount());
    assertEquals(1, c.tracks().size(), "every chain follows SMetric at 1.6x");
    drive(c, all);
    assertEquals(12 + 8 + 8 + 8 + 2, calls);
    JsonNode d = c.describe(all);
    int others = 0;
    for (JsonNode x : d.get("searches")) {
      if (!x.get("role").asText().equals("other")) continue;
      others++;
      assertEquals("least-load", x.get("policy").asText());
      assertEquals(1.6, x.get("global_ratio").asDouble());
      assertEquals(1.0, x.get("traffic_factor").asDouble());
      assertEquals(12, x.get("instances").asInt());
      assertEquals(List.of(12, 11), ints(x.get("probes")));
      assertEquals("smetric's answer at x1.0", x.get("start_rule").asText());
      assertEquals(false, x.has("interval"));
    }
    assertEquals(1, others);
    assertEquals(4, c.sizedSpecs().size(), "the sized point stays SMetric and the judged router");
    assertEquals(true, d.get("rule").asText().contains("and, at x1, every other router"));
    Capacity without = plan(4, sweep(), new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN));
    assertEquals(4, without.chainCount());
  }

  /** The capacity plan over a main sweep's results at {@code instances} (the equal-load plan from the same results). */
  private static Capacity plan(int instances, List<RunResult> all, Capacity.Options o) {
    ReplaySettings base = ReplaySettings.defaults().with(sb -> sb.instances = instances);
    EqualLoad eq = EqualLoad.plan(new SweepSummary(all, 1.5, 0.5), null, all);
    return Capacity.plan(o, base, eq, new SweepSummary(all, 1.5, 0.5), all);
  }

  private static List<Integer> ints2(JsonNode a) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode p : a) out.add(p.asInt());
    return out;
  }

  /**
   * SMetric never passes (up to its cap 320 = 16 x its start 20: 20 40 80 160 320 fail, no answer,
   * its chain stops): LMetric, which follows it, must not wait for ever; it searches on its own
   * from its own start 20 by the bracket rule (20 P, 10 F, 15 P, 12 P, 11 F -> 12), and its growth
   * factors go on from there (15, 18, 24 as in the first test).
   */
  @Test
  void leadWithoutAnswer_followerSearchesOnItsOwn() {
    List<RunResult> all = sweep();
    Capacity c = plan(4, all, new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN));
    Schedule.Track t = c.tracks().get(0);
    int rounds = 0;
    for (List<SimSpec> next = t.next(all); !next.isEmpty(); next = t.next(all)) {
      if (++rounds > 100) throw new AssertionError("does not end");
      for (SimSpec s : next) {
        int n = (int) Math.round(s.overrides().get("instances"));
        boolean pass = !s.policy().equals("smetric") && n >= Math.ceil(12 * s.rateScale() - 1e-9);
        all.add(new RunResult(s.withRunId(id++), Map.of(RunResult.PASS, pass ? 1.0 : 0.0), Map.of(), new double[0], new double[0],
            new double[0], new double[0][], 1, 0.5));
      }
    }
    List<Integer> lmAnswers = new ArrayList<>();
    for (JsonNode x : c.describe(all).get("searches")) {
      if (x.get("global_ratio").asDouble() != 1.6) continue;
      if (x.get("policy").asText().equals("smetric")) {
        assertEquals(true, x.get("instances").isNull());
        assertEquals(List.of(20, 40, 80, 160, 320), ints(x.get("probes")));
      } else {
        lmAnswers.add(x.get("instances").asInt());
        if (x.get("traffic_factor").asDouble() == 1.0) assertEquals(List.of(20, 10, 15, 12, 11), ints(x.get("probes")));
      }
    }
    assertEquals(List.of(12, 15, 18, 24), lmAnswers);
  }
}
