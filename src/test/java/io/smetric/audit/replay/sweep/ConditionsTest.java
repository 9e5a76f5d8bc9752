package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.replay.ReplaySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conditions sweep's rounds and block on a synthetic throughput model. Main sweep at 1.6x:
 * smetric and lmetric at x0.2 (95% within SLO) and x0.3 (80%), so lmetric's reference rate (90%
 * within SLO) is x0.2 and the verdict's operating point 1.5 x 0.2 = x0.3, where smetric makes 10
 * and lmetric 10.5. Every point runs both routers there, once. Every simulation returns
 * base(policy) x read factor x OVERLOAD factor:
 *   read factors (25 GB/s is the default, 1): smetric 1.1 at 1.12 GB/s, 1.05 at 6.8; lmetric 0.9, 0.95
 *   OVERLOAD factors for smetric (1.5 the default, 1): 1.02 at 1.0, 0.98 at 3, 0.97 at Infinity.
 */
class ConditionsTest {
  private static final double NAN = Double.NaN;
  private int id;
  private static final String READ = SweepVariable.GLOBAL_READ_GBPS.key();

  private RunResult result(SimSpec s, double tps) {
    double att = s.rateScale() <= 0.2 ? 0.95 : 0.8;
    return new RunResult(s.withRunId(id++), Map.of("tps_within_slo", tps, "slo_attainment", att), Map.of(), new double[0],
        new double[0], new double[0], new double[0][], 1, 1);
  }

  private static double shape(double x) {
    return x == 0.3 ? 1.0 : 0.6;
  }

  /** The main sweep at 1.6x and its equal-load plan. */
  private List<RunResult> mainSweep() {
    List<RunResult> all = new ArrayList<>();
    for (double x : new double[] {0.2, 0.3}) {
      all.add(result(new SimSpec(-1, "smetric", 1.6, x, 1.5, 0.5), 10 * shape(x)));
      all.add(result(new SimSpec(-1, "lmetric", 1.6, x, NAN, NAN), 10.5 * shape(x)));
    }
    return all;
  }

  private static EqualLoad equalLoad(List<RunResult> all) {
    return EqualLoad.plan(new SweepSummary(all, 1.5, 0.5), null, all);
  }

  private static double model(SimSpec s) {
    boolean sm = s.policy().equals("smetric");
    double t = sm ? 10 : 10.5;
    for (Map.Entry<String, Double> e : s.overrides().entrySet()) {
      if (!e.getKey().equals(READ)) continue;
      double v = e.getValue();
      t *= v == 1.12 ? (sm ? 1.1 : 0.9) : v == 6.8 ? (sm ? 1.05 : 0.95) : 1;
    }
    if (sm) t *= s.overload() == 1.0 ? 1.02 : s.overload() == 3.0 ? 0.98 : Double.isInfinite(s.overload()) ? 0.97 : 1;
    return t * shape(s.rateScale());
  }

  @Test
  void roundsAndBlock_handComputedGains() {
    List<RunResult> all = mainSweep();
    ReplaySettings base = ReplaySettings.defaults().with(sb -> sb.profile = sb.profile.with(p -> p.sources.remove("globalReadGBps")));
    base = SweepVariable.GLOBAL_READ_GBPS.with(base, 25.0);
    List<Conditions.Param> params = List.of(
        new Conditions.Param("read", "read rate", SweepVariable.GLOBAL_READ_GBPS, List.of(1.12, 6.8, 25.0), "GB/s", 1, "test",
            false, Map.of()),
        new Conditions.Param("overload", "OVERLOAD", SweepVariable.OVERLOAD, List.of(1.0, 1.5, 3.0, Double.POSITIVE_INFINITY), "",
            1, "test", true, Map.of()));
    Conditions c = Conditions.plan(new SweepSummary(all, 1.5, 0.5), base, equalLoad(all), params);
    // round 1: read 1.12 and 6.8 for both policies, OVERLOAD 1, 3, Infinity for smetric, each once at x0.3
    List<SimSpec> r1 = c.nextRound(all);
    assertEquals(2 * 2 + 3, r1.size());
    assertTrue(r1.stream().allMatch(s -> s.globalRatio() == 1.6 && s.rateScale() == 0.3 && s.variant().startsWith("param:")));
    for (SimSpec s : r1) all.add(result(s, model(s)));
    // round 2: every point ran, so the grid over the two parameters that move the gain most
    // (read: 0.164 - (-0.048) = 0.212; OVERLOAD: -0.029 - (-0.076) = 0.048): 2 x 3 cells for smetric; lmetric's
    // read points are the one-at-a-time ones already run
    List<SimSpec> r2 = c.nextRound(all);
    assertEquals(2 * 3, r2.size());
    assertTrue(r2.stream().allMatch(s -> s.policy().equals("smetric") && s.variant().equals("grid")));
    for (SimSpec s : r2) all.add(result(s, model(s)));
    assertEquals(List.of(), c.nextRound(all));

    JsonNode o = c.describe(all);
    assertEquals(1.6, o.get("global_ratio").asDouble());
    assertEquals(0.3, o.get("rate_scale").asDouble());
    assertEquals("lmetric", o.get("judged_router").asText());
    assertEquals(2, o.get("parameters").size());
    JsonNode read = o.get("parameters").get(0);
    assertEquals("profile.globalReadGBps", read.get("path").asText(), "the name replay.json has always carried");
    assertEquals(25.0, read.get("base_value").asDouble());
    // 1.12: 11 / 9.45 - 1; 6.8: 10.5 / 9.975 - 1; 25 (the defaults): 10 / 10.5 - 1
    assertEquals(11.0 / 9.45 - 1, read.get("points").get(0).get("gain").asDouble(), 1e-12);
    assertEquals(10.5 / 9.975 - 1, read.get("points").get(1).get("gain").asDouble(), 1e-12);
    assertEquals(10.0 / 10.5 - 1, read.get("points").get(2).get("gain").asDouble(), 1e-12);
    assertEquals(11.0 / 9.45 - 10.0 / 10.5, read.get("gain_range").asDouble(), 1e-12);
    JsonNode ov = o.get("parameters").get(1);
    // OVERLOAD 1.0: 10.2 / 10.5 - 1, the router unchanged
    assertEquals(10.2 / 10.5 - 1, ov.get("points").get(0).get("gain").asDouble(), 1e-12);
    assertEquals(10.5, ov.get("points").get(0).get("router_tps_within_slo").asDouble(), 1e-12);
    assertEquals("Infinity", ov.get("points").get(3).get("value").asText());
    JsonNode g = o.get("grid");
    assertEquals("read", g.get("x").asText());
    assertEquals("overload", g.get("y").asText());
    // cell (1.12 GB/s, OVERLOAD 1.0): 10 x 1.1 x 1.02 / (10.5 x 0.9) - 1; (25, 1.5) is the defaults' -0.0476
    assertEquals(11.22 / 9.45 - 1, g.get("gain").get(0).get(0).asDouble(), 1e-12);
    assertEquals(10.0 / 10.5 - 1, g.get("gain").get(1).get(2).asDouble(), 1e-12);
    // cells on the axes are the one-at-a-time points: (25 GB/s, OVERLOAD 1.0) and (6.8 GB/s, OVERLOAD 1.5)
    assertEquals(10.2 / 10.5 - 1, g.get("gain").get(0).get(2).asDouble(), 1e-12);
    assertEquals(10.5 / 9.975 - 1, g.get("gain").get(1).get(1).asDouble(), 1e-12);
  }

  @Test
  void profileFieldWithAStatedRange_sweepsItsLowAndHigh() {
    ReplaySettings base = ReplaySettings.defaults().with(sb -> sb.profile = sb.profile.with(p -> {
      p.globalReadGBps = 2.0;
      p.sources.put("globalReadGBps", new io.smetric.audit.replay.ModelProfile.Source("measured", "test range", 0.5, 8.0));
      p.sources.remove("globalLookupLatencyS");
    }));
    assertEquals(List.of(0.5, 8.0), Conditions.profileRange(base, SweepVariable.GLOBAL_READ_GBPS));
    assertEquals(List.of(), Conditions.profileRange(base, SweepVariable.GLOBAL_LOOKUP_LATENCY_S), "no source: default levels");
    assertEquals(List.of(), Conditions.profileRange(base, SweepVariable.OVERLOAD), "not a profile field");

    List<RunResult> all = mainSweep();
    List<Conditions.Param> params = List.of(new Conditions.Param("read", "read rate", SweepVariable.GLOBAL_READ_GBPS,
        List.of(1.12, 6.8, 25.0), "GB/s", 1, "default source", false, Map.of()));
    Conditions c = Conditions.plan(new SweepSummary(all, 1.5, 0.5), base, equalLoad(all), params);
    List<SimSpec> r1 = c.nextRound(all);
    // levels 0.5 and 8 (2.0 is the base, already run), both policies, once each at the operating point
    assertEquals(2 * 2, r1.size());
    assertEquals(java.util.Set.of(0.5, 8.0),
        r1.stream().map(s -> s.overrides().get("profile.globalReadGBps")).collect(java.util.stream.Collectors.toSet()));
    for (SimSpec s : r1) all.add(result(s, 10));
    JsonNode read = c.describe(all).get("parameters").get(0);
    assertTrue(read.get("source").asText().contains("test range"), read.get("source").asText());
    assertEquals(3, read.get("points").size());
  }

  @Test
  void prefillCost_sweptOverTheProfilesStatedRange_leftOutWithoutOne() {
    List<RunResult> all = mainSweep();
    Conditions.Param prefill = Conditions.DEFAULTS.stream().filter(p -> p.name().equals("prefill_cost")).findFirst()
        .orElseThrow(() -> new AssertionError("the prefill cost is a conditions dimension"));
    ReplaySettings base = ReplaySettings.defaults().with(sb -> sb.profile = sb.profile.with(p -> {
      p.prefillPerTokenS = 1.2e-4;
      p.sources.put("prefillPerTokenS", new io.smetric.audit.replay.ModelProfile.Source("derived", "test rule", 1.0e-4, 1.5e-4));
    }));
    Conditions c = Conditions.plan(new SweepSummary(all, 1.5, 0.5), base, equalLoad(all), List.of(prefill));
    List<SimSpec> r1 = c.nextRound(all);
    // levels 1.0e-4 and 1.5e-4 (1.2e-4 is the base), both policies, once each at the operating point
    assertEquals(2 * 2, r1.size());
    assertEquals(java.util.Set.of(1.0e-4, 1.5e-4),
        r1.stream().map(s -> s.overrides().get("profile.prefillPerTokenS")).collect(java.util.stream.Collectors.toSet()));
    for (SimSpec s : r1) all.add(result(s, s.policy().equals("smetric") ? 10 : 10.5));
    JsonNode b = c.describe(all).get("parameters").get(0);
    assertEquals("profile.prefillPerTokenS", b.get("path").asText());
    assertEquals(1.2e-4, b.get("base_value").asDouble());
    assertEquals(3, b.get("points").size());
    assertEquals("120", Conditions.display(1.2e-4, b.get("unit_scale").asDouble()));

    ReplaySettings unranged = base.with(sb -> sb.profile = sb.profile.with(p -> p.sources.remove("prefillPerTokenS")));
    Conditions none = Conditions.plan(new SweepSummary(all, 1.5, 0.5), unranged, equalLoad(all), List.of(prefill));
    assertEquals(List.of(), none.nextRound(all), "no stated range: nothing to vary");
    assertEquals(0, none.describe(all).get("parameters").size(), "and no one-level parameter that would read as 'does not matter'");
  }
}
