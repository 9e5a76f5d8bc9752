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
   * (3); x1.5 (18): start 18, 14 carried: 18 P, 16 F, 17 F -> 18 (3); x2 (24): start 24, 17
   * carried: 24 P, 20 F, 22 F, 23 F -> 24 (4). At 0x the start is ceil(4 / 0.1) = 40.
   */
  @Test
  void searches_probesInOrder_answersAndCounts() {
    ReplaySettings base = new ReplaySettings();
    base.instances = 4;
    List<RunResult> all = sweep();
    EqualLoad eq = EqualLoad.plan(new SweepSummary(all, 1.5, 0.5), null, all);
    Capacity c = Capacity.plan(new Capacity.Options(true, 0.9, Capacity.GROWTH, 2.0), base, eq, new SweepSummary(all, 1.5, 0.5), all);
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
    assertEquals(List.of(5, 3, 3, 4), sims);
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
    // 1.6x: 15 + 8; 0x: SMetric from 40 (40 P, 20 P, 10 F, 15 P, 12 P, 11 F, then 3 + 3 + 4) = 16, least-load 8.
    // Each chain on its own bracket search (before the judged router followed SMetric): 15 + 15 + 16 + 16 = 62
    assertEquals(15 + 8 + 16 + 8, calls);
    JsonNode g15 = d.get("searches").get(1);
    assertEquals("implied: failed at x1.0", g15.get("probes").get(0).get("source").asText());
    assertEquals(11, g15.get("probes").get(0).get("instances").asInt());
    // 1 GPU per instance on the default profile (an H20); 24 GPUs x $2 x 24 h
    assertEquals(24 * 2.0 * 24, d.get("searches").get(3).get("usd_per_day").asDouble(), 1e-9);
    for (JsonNode x : d.get("searches")) {
      if (x.get("global_ratio").asDouble() != 0.0 || x.get("traffic_factor").asDouble() != 1.0) continue;
      // SMetric from 4 / 0.1; least-load (judged at 0x) from SMetric's answer there, 12
      boolean sm = x.get("policy").asText().equals("smetric");
      assertEquals(sm ? 40 : 12, x.get("start").asInt());
      assertEquals(sm ? "instances / the router's 90.0%-attainment rate at --instances" : "smetric's answer at x1.0",
          x.get("start_rule").asText());
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
   * The interval's replicates at 1.6x, with a made-up pass rule per replicate k: a count passes
   * iff it is at least 12 + (k mod 3) - 1 (replicates 1..4 need 12, 13, 11, 12). Both routers'
   * point estimate is 12; each replicate first runs 12 and 11 in one batch: k = 1, 4 end there
   * (12 P, 11 F); k = 2: both fail, then 13 passes (2 + 1 runs); k = 3: both pass, then 9 (3
   * below the guess) and 10 fail (2 + 2). Per router 2 + 3 + 4 + 2 = 11 runs; interval over B = 4:
   * the 1st and 4th smallest of 12 13 11 12 = [11, 13]. SMetric: 2 + 3 + 4 + 2 = 11 runs; LMetric
   * starts each replicate from SMetric's answer there (12, 13, 11, 12), right each time: 2 x 4 = 8.
   */
  @Test
  void interval_replicatesNextToPointEstimate_runsCountedAndInterval() {
    ReplaySettings base = new ReplaySettings();
    base.instances = 4;
    List<RunResult> all = sweep();
    EqualLoad eq = EqualLoad.plan(new SweepSummary(all, 1.5, 0.5), null, all);
    Capacity c = Capacity.plan(new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN), base, eq, new SweepSummary(all, 1.5, 0.5), all);
    drive(c, all);
    List<Schedule.Track> tracks = c.intervalTracks(4);
    assertEquals(1, tracks.size(), "SMetric and LMetric at 1.6x, one track");
    int before = calls;
    List<Integer> firstBatch = null;
    for (Schedule.Track t : tracks) {
      for (List<SimSpec> next = t.next(all); !next.isEmpty(); next = t.next(all)) {
        if (firstBatch == null) firstBatch = next.stream().map(x -> (int) Math.round(x.overrides().get("instances"))).toList();
        for (SimSpec s : next) {
          calls++;
          int n = (int) Math.round(s.overrides().get("instances"));
          assertEquals(1.0, s.rateScale());
          assertEquals(1.6, s.globalRatio());
          boolean pass = n >= 12 + (s.replicate() % 3) - 1;
          all.add(new RunResult(s.withRunId(id++), Map.of(RunResult.PASS, pass ? 1.0 : 0.0, "stopped_early", 1.0,
              "requests_decided", 100.0, "requests_met", 90.0), Map.of(), new double[0], new double[0], new double[0],
              new double[0][], 1, 0.25));
        }
      }
    }
    assertEquals(List.of(12, 11, 12, 11, 12, 11, 12, 11), firstBatch, "SMetric's replicates 1..4, each at N and N - 1");
    assertEquals(19, calls - before);
    JsonNode d = c.describe(all);
    assertEquals(19, d.get("interval_simulations").asInt());
    assertEquals(19 * 0.25, d.get("interval_cpu_s").asDouble(), 1e-9);
    for (JsonNode x : d.get("searches")) {
      boolean here = x.get("global_ratio").asDouble() == 1.6 && x.get("traffic_factor").asDouble() == 1.0;
      assertEquals(here, x.has("interval"), x.get("policy").asText() + " " + x.get("global_ratio") + " " + x.get("traffic_factor"));
      if (!here) continue;
      JsonNode iv = x.get("interval");
      assertEquals(11, iv.get("low").asInt());
      assertEquals(13, iv.get("high").asInt());
      assertEquals(List.of(12, 13, 11, 12), ints2(iv.get("replicate_answers")));
      assertEquals(x.get("policy").asText().equals("smetric") ? 11 : 8, iv.get("simulations").asInt());
      assertEquals(false, iv.has("note"), "12 lies inside [11, 13]");
      assertEquals(12, x.get("instances").asInt(), "the point estimate is the search's, unchanged");
    }
    assertEquals(0, c.intervalTracks(0).size(), "--bootstrap 0: no interval");
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
    ReplaySettings base = new ReplaySettings();
    base.instances = 4;
    List<RunResult> all = sweep();
    EqualLoad eq = EqualLoad.plan(new SweepSummary(all, 1.5, 0.5), null, all);
    Capacity c = Capacity.plan(new Capacity.Options(true, 0.9, Capacity.GROWTH, Double.NaN), base, eq, new SweepSummary(all, 1.5, 0.5), all);
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
