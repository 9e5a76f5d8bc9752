package io.smetric.audit.report;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.HeatMapSeries;
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

  /**
   * Series colours for what has no fixed colour (the audits in compare, unknown policy labels);
   * policies take theirs from {@link #policyColor}.
   */
  static final Color[] PALETTE = {
    new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C), new Color(0x9467BD), new Color(0xFF7F0E),
    new Color(0x17BECF), new Color(0x7F7F7F), new Color(0xE377C2), new Color(0x8C564B), new Color(0xBCBD22),
    new Color(0x000000), new Color(0x393B79), new Color(0xAD494A)
  };

  /**
   * One fixed colour per router name, the same in every chart of every audit (keyed by name, not by
   * the order the runs list them, which changes with --policies): SMetric black, its ablation
   * variants in muted tones, the baselines in distinct hues.
   */
  static final Map<String, Color> POLICY_COLORS = Map.ofEntries(
      Map.entry("smetric", Color.BLACK),
      Map.entry("smetric-basic", new Color(0x7F7F7F)),
      Map.entry("smetric-overload-only", new Color(0x8C564B)),
      Map.entry("smetric-eviction-only", new Color(0xBCBD22)),
      Map.entry("least-load", new Color(0x1F77B4)),
      Map.entry("round-robin", new Color(0x2CA02C)),
      Map.entry("random", new Color(0xAD494A)),
      Map.entry("cache-affinity", new Color(0x9467BD)),
      Map.entry("lmetric", new Color(0xFF7F0E)),
      Map.entry("lmetric-blocks", new Color(0xFFBB78)),
      Map.entry("dynamo-kv", new Color(0x17BECF)),
      Map.entry("llm-d", new Color(0xE377C2)),
      Map.entry("sglang-cache-aware", new Color(0xD62728)),
      Map.entry("session-hash", new Color(0x393B79)));

  /** Colours for router names outside {@link #POLICY_COLORS}, picked by a hash of the name (stable across charts and runs). */
  private static final Color[] OTHER_POLICY_COLORS = {
    new Color(0x6B6ECF), new Color(0x637939), new Color(0x8C6D31), new Color(0x843C39), new Color(0x7B4173), new Color(0x3182BD)
  };

  /** The colour of a router in every chart: {@link #POLICY_COLORS}, else one picked by its name. */
  static Color policyColor(String policy) {
    Color c = POLICY_COLORS.get(policy);
    return c != null ? c : OTHER_POLICY_COLORS[Math.floorMod(policy.hashCode(), OTHER_POLICY_COLORS.length)];
  }

  /**
   * What a chart plots, read back from the XChart object that is drawn (so a test checks the data
   * of the PNG, not its pixels): axis titles, the fixed axis or colour-scale bounds (null = from the
   * data), and every series in drawing order.
   */
  public record Plot(String title, String xTitle, String yTitle, Double yMin, Double yMax, List<Series> series) {
    /** The series of this name; an assertion error naming the others when there is none. */
    public Series series(String name) {
      for (Series s : series) if (s.name().equals(name)) return s;
      throw new AssertionError("no series '" + name + "' in " + title + "; series: " + names());
    }

    public List<String> names() {
      return series.stream().map(Series::name).toList();
    }
  }

  /**
   * One plotted series. Lines and areas: {@code x}, {@code y} (areas as stacked, i.e. cumulative
   * tops). Bars: {@code labels} are the categories, {@code y} the bar heights (NaN = no bar).
   * Heatmaps: {@code labels} are the column labels, {@code rows} the row labels, {@code z[row][col]}
   * the cell values (NaN = no cell), {@code y} null. {@code color}: the line colour (lines), the fill
   * colour (bars, areas), null for heatmaps; {@code inLegend}: whether the legend lists it.
   */
  public record Series(String name, Color color, boolean inLegend, List<String> labels, List<String> rows, double[] x, double[] y,
      double[][] z) {}

  /** The data of a chart as it will be drawn. */
  static Plot plotted(IChart chart) {
    List<Series> out = new ArrayList<>();
    if (chart instanceof XYChart c) {
      for (XYSeries s : c.getSeriesCollection()) out.add(new Series(s.getName(),
          s.getXYSeriesRenderStyle().orElse(c.getStyler().getDefaultSeriesRenderStyle()) == XYSeries.XYSeriesRenderStyle.Area ? s.getFillColor() : s.getLineColor(), s.isShowInLegend(), null,
          null, s.getXData(), s.getYData(), null));
      return new Plot(c.getTitle(), c.getXAxisTitle(), c.getYAxisTitle(), c.getStyler().getYAxisMin(), c.getStyler().getYAxisMax(), out);
    }
    if (chart instanceof CategoryChart c) {
      for (CategorySeries s : c.getSeriesCollection()) {
        List<String> labels = s.getXData().stream().map(String::valueOf).toList();
        out.add(new Series(s.getName(), s.getFillColor(), s.isShowInLegend(), labels, null, null, s.getYData(), null));
      }
      return new Plot(c.getTitle(), c.getXAxisTitle(), c.getYAxisTitle(), c.getStyler().getYAxisMin(), c.getStyler().getYAxisMax(), out);
    }
    if (chart instanceof HeatMapChart c) {
      HeatMapSeries s = c.getHeatMapSeries();
      if (s != null) {
        List<String> cols = s.getXData().stream().map(String::valueOf).toList();
        List<String> rows = s.getYData().stream().map(String::valueOf).toList();
        double[][] z = new double[rows.size()][cols.size()];
        for (double[] r : z) java.util.Arrays.fill(r, Double.NaN);
        for (Number[] cell : s.getHeatData()) z[cell[1].intValue()][cell[0].intValue()] = cell[2].doubleValue();
        out.add(new Series(s.getName(), null, true, cols, rows, null, null, z));
      }
      return new Plot(c.getTitle(), c.getXAxisTitle(), c.getYAxisTitle(), c.getStyler().getMin(), c.getStyler().getMax(), out);
    }
    throw new IllegalArgumentException("unknown chart kind " + chart.getClass().getSimpleName());
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
   * A heatmap of {@code z[row][col]} (rows are instances, columns time windows) with the colour
   * range {@code min..max} shown in its legend; {@code columns} label the columns (XChart prints as
   * many as fit), rows are labelled 0..n-1.
   */
  public static HeatMapChart heatmap(String title, String xTitle, String yTitle, List<?> columns, double[][] z, double min, double max,
      String legend) {
    HeatMapChart c = new HeatMapChartBuilder().width(W).height(H).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    c.getStyler().setChartBackgroundColor(Color.WHITE);
    c.getStyler().setLegendVisible(true);
    c.getStyler().setRangeColors(new Color[] {new Color(0xF7FBFF), new Color(0x6BAED6), new Color(0x08306B), new Color(0xD7301F)});
    int rows = z.length;
    int cols = rows == 0 ? 0 : z[0].length;
    List<Integer> ys = new ArrayList<>();
    for (int i = 0; i < rows; i++) ys.add(i);
    List<Number[]> heat = new ArrayList<>();
    for (int i = 0; i < rows; i++) for (int j = 0; j < cols; j++) heat.add(new Number[] {j, i, z[i][j]});
    c.getStyler().setShowValue(false);
    c.getStyler().setHeatMapValueDecimalPattern("0.##");
    c.getStyler().setMin(min);
    c.getStyler().setMax(max);
    c.getStyler().setXAxisTickMarkSpacingHint(60);
    if (rows > 0 && cols > 0) c.addSeries(legend, columns, ys, heat);
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
