package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.ConditionsBlock;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.knowm.xchart.HeatMapChart;

/**
 * The conditions chart (docs/report.md, "Charts"; docs/replay.md, "Conditions"): SMetric's gain over
 * the judged router on the grid of the two swept conditions that move it most, read from
 * replay.json's conditions block, one cell per pair of documented values.
 */
final class ConditionsChart {
  private final ReportCharts charts;
  private final JsonNode replay;

  ConditionsChart(ReportCharts charts) {
    this.charts = charts;
    this.replay = charts.replay();
  }

  /** Draws this family's charts in page order. */
  void render() {
    conditionsGrid();
  }

  /**
   * SMetric's gain over the judged router over the two conditions that move it most (replay.json
   * "conditions.grid"): one cell per pair of documented values, the gain printed in it; green =
   * gain, red = loss, one symmetric colour scale.
   */
  private void conditionsGrid() {
    String title = "Conditions: SMetric's gain over the judged router";
    String fig = "issue 15, conditions";
    if (charts.replayMissing(title, fig)) return;
    ConditionsBlock cond = ConditionsBlock.of(replay);
    ConditionsBlock.Grid grid = cond == null ? null : cond.grid();
    if (grid == null) {
      charts.missing(ReportCharts.REPLAY, title, fig, cond != null && cond.notApplicable() != null ? cond.notApplicable()
          : "fewer than two swept conditions moved the gain");
      return;
    }
    ConditionsBlock.Parameter px = cond.parameter(Objects.toString(grid.x(), ""));
    ConditionsBlock.Parameter py = cond.parameter(Objects.toString(grid.y(), ""));
    if (px == null || py == null) {
      charts.missing(ReportCharts.REPLAY, title, fig, "the grid names a parameter the conditions block does not list");
      return;
    }
    List<String> xs = new ArrayList<>();
    for (ConditionsBlock.Level v : grid.xs()) xs.add(level(v.v(), px));
    List<String> ys = new ArrayList<>();
    for (ConditionsBlock.Level v : grid.ys()) ys.add(level(v.v(), py));
    List<Number[]> heat = new ArrayList<>();
    double top = 0.01;
    for (int i = 0; i < ys.size(); i++) {
      for (int j = 0; j < xs.size(); j++) {
        Double g = grid.gainAt(i, j);
        if (g == null || !Double.isFinite(g)) continue;
        heat.add(new Number[] {j, i, 100 * g});
        top = Math.max(top, Math.abs(100 * g));
      }
    }
    if (heat.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, "no grid point has a gain");
      return;
    }
    top = Math.ceil(top * 10) / 10; // a legend bound that prints short
    String t = title + " at " + Numbers.sig4(cond.globalRatio() == null ? 0 : cond.globalRatio()) + "x ("
        + Objects.toString(cond.judgedRouter(), "") + ")";
    HeatMapChart c = new org.knowm.xchart.HeatMapChartBuilder().width(Charts.W).height(Charts.H).title(t)
        .xAxisTitle(label(px) + unitSuffix(px)).yAxisTitle(label(py) + unitSuffix(py)).build();
    c.getStyler().setChartBackgroundColor(Color.WHITE);
    c.getStyler().setLegendVisible(true);
    c.getStyler().setRangeColors(new Color[] {new Color(0xC0392B), Color.WHITE, new Color(0x1E8449)});
    c.getStyler().setMin(-top);
    c.getStyler().setMax(top);
    c.getStyler().setShowValue(true);
    c.getStyler().setHeatMapValueDecimalPattern("+0.0;-0.0");
    c.addSeries("gain %", xs, ys, heat);
    charts.draw(ReportCharts.REPLAY, "conditions_grid.png", t, fig, "SMetric's TPS within SLO over the judged router's, minus 1, in percent, for "
        + "each pair of documented values of the two conditions that move it most (each point: maximum over offered rates). "
        + "The audit's defaults: " + label(px) + " " + level(px.baseValue(), px) + ", "
        + label(py) + " " + level(py.baseValue(), py) + ". Sources of the ranges: " + Objects.toString(px.source(), "")
        + "; " + Objects.toString(py.source(), "") + ".", c);
  }

  /** A grid level in the parameter's display unit, without the unit (the axis title has it). */
  private static String level(JsonNode v, ConditionsBlock.Parameter p) {
    return Numbers.withUnit(ConditionsBlock.number(v), p.scale(), "", "inf");
  }

  private static String label(ConditionsBlock.Parameter p) {
    return Objects.toString(p.label(), "");
  }

  private static String unitSuffix(ConditionsBlock.Parameter p) {
    String u = p.unitOrEmpty();
    return u.isEmpty() ? "" : " (" + u + ")";
  }
}
