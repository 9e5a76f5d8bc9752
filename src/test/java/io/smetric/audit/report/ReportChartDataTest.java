package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.testing.TestSpark;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data each replay chart plots (Charts.Plot, read back from the chart drawn), checked against
 * values computed by hand from {@link AuditFixture}'s tables, not its pixels. One report of the
 * fixture with the judged block (SMetric's best gain at 0.4x) and a legacy comparison block that
 * says 0x, instance loads with a warm-up and a drain window, and session-tree rate scaling.
 */
class ReportChartDataTest {
  private static final double EPS = 1e-9;
  /** One folder for the class (JUnit removes it after the last test). */
  @TempDir static Path tmp;
  private static ReportJob.Result report;

  static synchronized ReportJob.Result report() throws IOException {
    if (report == null) {
      AuditFixture f = new AuditFixture();
      f.withAnswers = true;
      f.comparisonBestAt = 0.0;
      f.rampLoad = true;
      f.sessionScaling = true;
      Path dir = f.write(tmp.resolve("audit"));
      report = new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    }
    return report;
  }

  static ReportCharts.Entry chart(String file) throws IOException {
    for (ReportCharts.Entry e : report().charts()) if (file.equals(e.file())) return e;
    throw new AssertionError(file + " not drawn; entries: " + report().charts().stream().map(ReportCharts.Entry::title).toList());
  }

  static void assertNaNsExcept(double[] y, int i, double expected) {
    for (int k = 0; k < y.length; k++) {
      if (k == i) assertEquals(expected, y[k], EPS);
      else assertTrue(Double.isNaN(y[k]), "no bar at " + k + ": " + y[k]);
    }
  }

  @Test
  void perPolicyCharts_followTheJudgedComparisonsCapacity_notTheLegacyBlock() throws IOException {
    // judged: the verdict's capacity 0.4x (the headline's); the legacy comparison block says 0x
    assertEquals(0.4, report().auditJson().path("headline").path("smetric_gain_at_global_ratio").asDouble(), 0);
    assertTrue(chart("stickiness.png").plot().title().endsWith("global tier 0.4x"), chart("stickiness.png").plot().title());
    assertTrue(chart("ttft_cdf.png").plot().title().contains("global tier 0.4x"), chart("ttft_cdf.png").plot().title());
    assertTrue(chart("imbalance_01_smetric.png").title().contains("(global tier 0.4x)"));
  }

  @Test
  void hitRatioByCapacity_localAndGlobalPerPolicy_oneLegendEntryPerPolicy() throws IOException {
    Charts.Plot p = chart("hit_ratio_by_capacity.png").plot();
    // every run: local 0.6 / global 0 at 0x, local 0.5 / global 0.3 at 0.4x
    for (String policy : List.of("smetric", "least-load", "smetric-basic")) {
      Charts.Series local = p.series(policy);
      Charts.Series global = p.series(policy + " global");
      assertArrayEquals(new double[] {0, 0.4}, local.x(), EPS);
      assertArrayEquals(new double[] {0.6, 0.5}, local.y(), EPS);
      assertArrayEquals(new double[] {0.0, 0.3}, global.y(), EPS);
      assertTrue(local.inLegend(), policy);
      assertFalse(global.inLegend(), policy + " global: its line style, not a legend entry, says global");
    }
    assertEquals(6, p.series().size());
  }

  @Test
  void tpsByCapacity_bestRunPerCapacity_yAxisNotForcedToZero() throws IOException {
    ReportCharts.Entry e = chart("tps_by_capacity.png");
    // smetric at its default OVERLOAD 1.5: 90 / 112 at rate 2; least-load 100 / 100; smetric-basic 95 / 96
    assertArrayEquals(new double[] {90, 112}, e.plot().series("smetric").y(), EPS);
    assertArrayEquals(new double[] {100, 100}, e.plot().series("least-load").y(), EPS);
    assertArrayEquals(new double[] {95, 96}, e.plot().series("smetric-basic").y(), EPS);
    assertNull(e.plot().yMin(), "from 0 the few-percent gains the verdict judges are invisible");
    assertTrue(e.caption().contains("TPS within SLO counts every input token (cached or prefix-hit ones included) and every output "
        + "token of the requests that meet both SLOs"), e.caption());
  }

  @Test
  void heatmaps_leaveOutWarmUpAndDrain_ownScale_minuteAxis() throws IOException {
    ReportCharts.Entry e = chart("imbalance_01_smetric.png");
    Charts.Series s = e.plot().series().get(0);
    // windows 0-4 summed over instances: 10, 150, 250, 350, 5; median 150, half of it 75: windows 0 and 4 left out
    assertEquals(List.of("1", "2", "3"), s.labels());
    assertEquals(List.of("0", "1"), s.rows());
    // window 1: (100, 50) / 75; window 2: (200, 50) / 125; window 3: (300, 50) / 175
    assertArrayEquals(new double[] {100 / 75.0, 200 / 125.0, 300 / 175.0}, s.z()[0], EPS);
    assertArrayEquals(new double[] {50 / 75.0, 50 / 125.0, 50 / 175.0}, s.z()[1], EPS);
    // this chart's own scale: 0 to its largest cell 1.714 rounded up to a tenth
    assertEquals(0.0, e.plot().yMin(), 0);
    assertEquals(1.8, e.plot().yMax(), EPS);
    assertTrue(e.plot().xTitle().startsWith("minute of the run"), e.plot().xTitle());
    assertTrue(e.caption().contains("Left out: the warm-up, minutes 0-1 (1 window) and the drain, minutes 4-5 (1 window)"), e.caption());
    // mean max/mean over the windows shown: (4/3 + 8/5 + 12/7) / 3
    assertTrue(e.caption().contains("Mean max/mean over the windows shown: 1.549 (the replay's imbalance_mean, over every window "
        + "with load: 1.5)"), e.caption());
  }

  @Test
  void stickiness_oneBarPerPolicy_eachInItsOwnColourAndSlot() throws IOException {
    Charts.Plot p = chart("stickiness.png").plot();
    List<String> cats = List.of("smetric", "least-load", "smetric-basic");
    double[] expected = {0.9, 0.04, 0.97};
    assertEquals(cats, p.names());
    for (int i = 0; i < cats.size(); i++) {
      Charts.Series s = p.series(cats.get(i));
      assertEquals(cats, s.labels());
      assertNaNsExcept(s.y(), i, expected[i]);
    }
    assertEquals(0.0, p.yMin(), 0);
    assertEquals(1.0, p.yMax(), 0);
  }

  @Test
  void latencyCdfs_equalOfferedRate_withSloMarkers() throws IOException {
    ReportCharts.Entry ttft = chart("ttft_cdf.png");
    // every policy ran rates 1 and 2 at 0.4x; SMetric's best is 2: runs 3 (smetric), 11 (least-load), 15 (smetric-basic)
    double[] q = {0.25, 0.5, 0.75, 1.0};
    assertArrayEquals(new double[] {0.1, 0.2, 0.3, 0.4}, ttft.plot().series("smetric").x(), EPS);
    assertArrayEquals(q, ttft.plot().series("smetric").y(), EPS);
    assertArrayEquals(new double[] {0.3, 0.6, 0.9, 1.2}, ttft.plot().series("least-load").x(), EPS);
    assertArrayEquals(new double[] {0.1, 0.2, 0.3, 0.4}, ttft.plot().series("smetric-basic").x(), EPS);
    // TTFT SLO at the mean prompt (270,000 tokens / 270 requests): 2 s + 0.25 ms x 1,000 = 2.25 s
    Charts.Series slo = ttft.plot().series("TTFT SLO at the mean prompt 2.25 s");
    assertArrayEquals(new double[] {2.25, 2.25, 2.25}, slo.x(), EPS);
    assertEquals(0.0, slo.y()[0], 0);
    assertEquals(1.0, slo.y()[2], 0);
    assertTrue(ttft.caption().contains("every policy at the same offered rate, x2 (10 session trees/min)"), ttft.caption());
    assertTrue(ttft.caption().contains("the TTFT SLO of a request with the trace's mean prompt (1,000 tokens): 2 s + 0.25 ms per "
        + "input token = 2.25 s"), ttft.caption());
    Charts.Plot tpot = chart("tpot_cdf.png").plot();
    assertArrayEquals(new double[] {0.03, 0.03, 0.03}, tpot.series("TPOT SLO 30 ms").x(), EPS);
    assertArrayEquals(new double[] {0.01, 0.02, 0.03, 0.04}, tpot.series("least-load").x(), EPS);
  }

  @Test
  void ablation_variantsRelativeToSmetric_inPercent() throws IOException {
    Charts.Plot p = chart("ablation.png").plot();
    assertEquals(List.of("smetric-basic"), p.names());
    Charts.Series s = p.series("smetric-basic");
    assertEquals(List.of("0x", "0.4x"), s.labels());
    // 95 / 90 - 1 and 96 / 112 - 1
    assertArrayEquals(new double[] {100 * (95 / 90.0 - 1), 100 * (96 / 112.0 - 1)}, s.y(), EPS);
    assertTrue(p.yTitle().contains("vs smetric (%"), p.yTitle());
  }

  @Test
  void sensitivity_relativeToTheDefaultThreshold_inPercent() throws IOException {
    Charts.Plot p = chart("sensitivity_overload.png").plot();
    // smetric at OVERLOAD 1.5 (default) and 3: 90 and 80 at 0x, 112 and 100 at 0.4x
    assertEquals(List.of("1.5", "3"), p.series("global tier 0x").labels());
    assertArrayEquals(new double[] {0, 100 * (80 / 90.0 - 1)}, p.series("global tier 0x").y(), EPS);
    assertArrayEquals(new double[] {0, 100 * (100 / 112.0 - 1)}, p.series("global tier 0.4x").y(), EPS);
  }

  @Test
  void everyChart_drawsEachRouterInItsOneColour() throws IOException {
    int checked = 0;
    for (ReportCharts.Entry e : report().charts()) {
      if (!e.drawn() || e.plot() == null) continue;
      for (Charts.Series s : e.plot().series()) {
        String policy = s.name().replace(" global", "");
        if (!List.of("smetric", "least-load", "smetric-basic").contains(policy) || s.color() == null) continue;
        // faint lines keep the hue (alpha aside)
        assertEquals(Charts.policyColor(policy).getRGB() & 0xFFFFFF, s.color().getRGB() & 0xFFFFFF, e.file() + ": " + s.name());
        checked++;
      }
    }
    // hit ratio 6, TPS by capacity 3, TPS by rate 2 x 3, stickiness 3, TTFT 3, TPOT 3, ablation 1
    assertEquals(25, checked);
    assertEquals(java.awt.Color.BLACK, Charts.policyColor("smetric"));
  }

  // ------------------------------------------------------------------ the equal-rate selection, by hand

  private static final StructType RUNS = new StructType().add("run_id", DataTypes.IntegerType).add("policy", DataTypes.StringType)
      .add("global_ratio", DataTypes.DoubleType).add("rate_scale", DataTypes.DoubleType).add("overload", DataTypes.DoubleType)
      .add("hit_ratio", DataTypes.DoubleType).add("not_applicable", DataTypes.StringType).add("tps_within_slo", DataTypes.DoubleType);

  private static Row run(int id, String policy, double rate, double tps) {
    return new GenericRowWithSchema(new Object[] {id, policy, 0.8, rate, null, null, null, tps}, RUNS);
  }

  @Test
  void equalRateRuns_commonRateNearestSmetricsBest_elseEachPolicysBest() {
    // smetric best at x2 (90), least-load best at x1 (100); both ran x1 and x2: x2 for both
    List<Row> rows = new ArrayList<>(List.of(run(0, "smetric", 1, 50), run(1, "smetric", 2, 90), run(2, "least-load", 1, 100),
        run(3, "least-load", 2, 80), run(4, "least-load", 4, 70)));
    Map<String, ReplayRuns.Run> m = PolicyCharts.equalRateRuns(new ReplayRuns(rows, null), 0.8);
    assertEquals(1, m.get("smetric").runId());
    assertEquals(3, m.get("least-load").runId());
    // least-load never ran smetric's rates: no common rate, so each policy's best run
    List<Row> apart = List.of(run(0, "smetric", 1, 50), run(1, "smetric", 2, 90), run(4, "least-load", 4, 70));
    Map<String, ReplayRuns.Run> b = PolicyCharts.equalRateRuns(new ReplayRuns(apart, null), 0.8);
    assertEquals(1, b.get("smetric").runId());
    assertEquals(4, b.get("least-load").runId());
    assertNotNull(b);
  }
}
