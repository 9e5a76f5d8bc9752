package io.smetric.audit.report;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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

/**
 * The report's chart kinds drawn with XChart and saved as PNG (headless): lines, stacked areas,
 * grouped bars and heatmaps. One consistent look: white background, legend inside, no markers.
 */
public final class Charts {
  private Charts() {}

  public static final int W = 900;
  public static final int H = 420;

  /** One named series of (x, y) points. */
  public record Series(String name, double[] x, double[] y) {}

  public static XYChart lines(String title, String xTitle, String yTitle, List<Series> series) {
    XYChart c = new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    style(c.getStyler());
    c.getStyler().setMarkerSize(0);
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    for (Series s : series) if (s.x().length > 0) c.addSeries(s.name(), s.x(), s.y());
    return c;
  }

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

  /** A heatmap of {@code z[row][col]}: rows are instances, columns time windows. */
  public static HeatMapChart heatmap(String title, String xTitle, String yTitle, double[][] z) {
    return heatmap(title, xTitle, yTitle, z, Double.NaN, Double.NaN);
  }

  /** A heatmap with a fixed colour range (so several heatmaps share one scale); NaN = from the data. */
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

  public static void png(IChart chart, Path file) {
    try {
      BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write chart " + file + ": " + e.getMessage(), e);
    }
  }
}
