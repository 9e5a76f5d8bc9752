package io.smetric.audit.report;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.IChart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report's chart kinds drawn with XChart and saved as PNG (headless): lines, stacked areas,
 * grouped bars and heatmaps, and the helpers every chart family draws with (one palette, one
 * line style, legends that move out of the plot when they would hide lines). One consistent look:
 * white background, legend inside, no markers.
 */
public final class Charts {
  private Charts() {}

  public static final int W = 900;
  public static final int H = 420;

  /** Fixed series colours so a policy (or an audit, in compare) keeps its colour across charts (SMetric first, red). */
  static final Color[] PALETTE = {
    new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C), new Color(0x9467BD), new Color(0xFF7F0E),
    new Color(0x17BECF), new Color(0x7F7F7F), new Color(0xE377C2), new Color(0x8C564B), new Color(0xBCBD22),
    new Color(0x000000), new Color(0x393B79), new Color(0xAD494A)
  };

  /**
   * Stacked areas: series are drawn cumulatively (the second on top of the first...), as the
   * paper's Figure 5 stacks reuse by source.
   */
  public static XYChart stacked(String title, String xTitle, String yTitle, double[] x, List<String> names, List<double[]> ys) {
    XYChart c = new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    style(c.getStyler());
    c.getStyler().setMarkerSize(0);
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Area);
    double[] cum = new double[x.length];
    List<double[]> tops = new ArrayList<>();
    for (double[] y : ys) {
      double[] t = new double[x.length];
      for (int i = 0; i < x.length; i++) {
        cum[i] += Double.isNaN(y[i]) ? 0 : y[i];
        t[i] = cum[i];
      }
      tops.add(t);
    }
    // draw the tallest first so that lower layers stay visible on top of it
    for (int k = ys.size() - 1; k >= 0; k--) if (x.length > 0) c.addSeries(names.get(k), x, tops.get(k));
    return c;
  }

  /** Grouped bars: one series per name, one group per category; NaN values stay gaps. */
  public static CategoryChart bars(String title, String xTitle, String yTitle, List<String> categories, List<String> names, List<double[]> values) {
    CategoryChart c = new CategoryChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    style(c.getStyler());
    for (int k = 0; k < names.size(); k++) {
      List<Double> v = new ArrayList<>();
      // a missing value stays a gap (null), never a drawn zero
      for (double d : values.get(k)) v.add(Double.isNaN(d) ? null : d);
      c.addSeries(names.get(k), categories, v);
    }
    return c;
  }

  /**
   * A heatmap of {@code z[row][col]} (rows are instances, columns time windows) with a fixed colour
   * range, so that several heatmaps share one scale; NaN bounds = from the data.
   */
  public static HeatMapChart heatmap(String title, String xTitle, String yTitle, double[][] z, double min, double max) {
    HeatMapChart c = new HeatMapChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    c.getStyler().setChartBackgroundColor(Color.WHITE);
    c.getStyler().setLegendVisible(true);
    c.getStyler().setRangeColors(new Color[] {new Color(0xF7FBFF), new Color(0x6BAED6), new Color(0x08306B), new Color(0xD7301F)});
    int rows = z.length;
    int cols = rows == 0 ? 0 : z[0].length;
    List<Integer> xs = new ArrayList<>();
    List<Integer> ys = new ArrayList<>();
    for (int j = 0; j < cols; j++) xs.add(j);
    for (int i = 0; i < rows; i++) ys.add(i);
    List<Number[]> heat = new ArrayList<>();
    for (int i = 0; i < rows; i++) for (int j = 0; j < cols; j++) heat.add(new Number[] {j, i, z[i][j]});
    c.getStyler().setShowValue(false);
    c.getStyler().setHeatMapValueDecimalPattern("0.##");
    if (!Double.isNaN(min)) c.getStyler().setMin(min);
    if (!Double.isNaN(max)) c.getStyler().setMax(max);
    c.getStyler().setXAxisTicksVisible(cols <= 40);
    if (rows > 0 && cols > 0) c.addSeries("load / mean", xs, ys, heat);
    return c;
  }

  /** The report's look: white background, legend inside the plot, anti-aliased. */
  static void style(Styler s) {
    s.setChartBackgroundColor(Color.WHITE);
    s.setPlotBackgroundColor(Color.WHITE);
    s.setLegendPosition(Styler.LegendPosition.InsideNE);
    s.setAntiAlias(true);
  }

  /** The chart as PNG bytes (written through Hadoop FileSystem by the report). */
  public static byte[] pngBytes(IChart chart) {
    try {
      return BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode chart: " + e.getMessage(), e);
    }
  }

  /** Legends with many entries go outside the plot (they would hide lines); fewer, sparser y ticks. */
  static void tidy(IChart chart) {
    if (chart instanceof XYChart c) {
      if (c.getSeriesCollection().size() > 4) c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
      c.getStyler().setYAxisTickMarkSpacingHint(60);
    } else if (chart instanceof CategoryChart c) {
      if (c.getSeriesCollection().size() > 4) c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
      c.getStyler().setYAxisTickMarkSpacingHint(60);
    }
  }

  /** An empty line chart in the report's look, markers of size 6. */
  static XYChart xy(String title, String xTitle, String yTitle) {
    XYChart c = new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    style(c.getStyler());
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    c.getStyler().setMarkerSize(6);
    return c;
  }

  /** A line series with circle markers in one colour and stroke. */
  static void series(XYChart c, String name, List<double[]> pts, Color color, java.awt.BasicStroke line) {
    double[][] xy = columns(pts);
    XYSeries s = c.addSeries(name, xy[0], xy[1]);
    s.setLineColor(color);
    s.setMarkerColor(color);
    s.setLineStyle(line);
    s.setMarker(SeriesMarkers.CIRCLE);
  }

  /** Points [x, y] as the two arrays XChart takes. */
  static double[][] columns(List<double[]> pts) {
    double[][] xy = new double[2][pts.size()];
    for (int i = 0; i < pts.size(); i++) {
      xy[0][i] = pts.get(i)[0];
      xy[1][i] = pts.get(i)[1];
    }
    return xy;
  }
}
