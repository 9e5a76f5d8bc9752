package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
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
    JsonNode cond = replay.path("conditions");
    JsonNode grid = cond.path("grid");
    if (!grid.isObject()) {
      charts.missing(ReportCharts.REPLAY, title, fig, cond.has("not_applicable") ? cond.path("not_applicable").asText()
          : "fewer than two swept conditions moved the gain");
      return;
    }
    JsonNode px = null;
    JsonNode py = null;
    for (JsonNode p : cond.path("parameters")) {
      if (p.path("name").asText().equals(grid.path("x").asText())) px = p;
      if (p.path("name").asText().equals(grid.path("y").asText())) py = p;
    }
    if (px == null || py == null) {
      charts.missing(ReportCharts.REPLAY, title, fig, "the grid names a parameter the conditions block does not list");
      return;
    }
    List<String> xs = new ArrayList<>();
    for (JsonNode v : grid.path("x_levels")) xs.add(level(v.path("v"), px));
    List<String> ys = new ArrayList<>();
    for (JsonNode v : grid.path("y_levels")) ys.add(level(v.path("v"), py));
    List<Number[]> heat = new ArrayList<>();
    double top = 0.01;
    for (int i = 0; i < ys.size(); i++) {
      for (int j = 0; j < xs.size(); j++) {
        JsonNode g = grid.path("gain").path(i).path(j);
        if (!g.isNumber()) continue;
        heat.add(new Number[] {j, i, 100 * g.asDouble()});
        top = Math.max(top, Math.abs(100 * g.asDouble()));
      }
    }
    if (heat.isEmpty()) {
      charts.missing(ReportCharts.REPLAY, title, fig, "no grid point has a gain");
      return;
    }
    top = Math.ceil(top * 10) / 10; // a legend bound that prints short
    String t = title + " at " + Numbers.sig4(cond.path("global_ratio").asDouble()) + "x (" + cond.path("judged_router").asText() + ")";
    HeatMapChart c = new org.knowm.xchart.HeatMapChartBuilder().width(Charts.W).height(Charts.H).title(t)
        .xAxisTitle(px.path("label").asText() + unitSuffix(px)).yAxisTitle(py.path("label").asText() + unitSuffix(py)).build();
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
        + "The audit's defaults: " + px.path("label").asText() + " " + level(px.path("base_value"), px) + ", "
        + py.path("label").asText() + " " + level(py.path("base_value"), py) + ". Sources of the ranges: " + px.path("source").asText()
        + "; " + py.path("source").asText() + ".", c);
  }

  /** A grid level in the parameter's display unit, without the unit (the axis title has it). */
  private static String level(JsonNode v, JsonNode p) {
    return Numbers.withUnit(Numbers.parse(v), p.path("unit_scale").asDouble(1), "", "inf");
  }

  private static String unitSuffix(JsonNode p) {
    String u = p.path("unit").asText("");
    return u.isEmpty() ? "" : " (" + u + ")";
  }
}
