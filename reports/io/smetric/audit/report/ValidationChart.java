package io.smetric.audit.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;

/**
 * The chart of {@code validate TRACE --out}: the replay's error on the user's own requests by load
 * decile (1 = the least loaded tenth), median (bias) and 90th percentile of the absolute error of
 * TTFT and end-to-end time, in percent. Takes plain arrays so that the report stage needs nothing
 * from the replay.
 */
public final class ValidationChart {
  private ValidationChart() {}

  /** Each array has one value per decile (NaN where the decile is empty), as fractions. */
  public static byte[] byLoadDecile(double[] ttftMedian, double[] ttftP90Abs, double[] e2eMedian, double[] e2eP90Abs) {
    XYChart c = Charts.xy("Replay error on the recorded requests, by load decile", "load decile (measured requests in flight per instance)",
        "error (simulated - measured) / measured, %");
    BasicStroke solid = new BasicStroke(2f);
    BasicStroke dashed = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);
    add(c, "TTFT median", ttftMedian, new Color(0x1f77b4), solid);
    add(c, "TTFT p90 |error|", ttftP90Abs, new Color(0x1f77b4), dashed);
    add(c, "E2E median", e2eMedian, new Color(0xd62728), solid);
    add(c, "E2E p90 |error|", e2eP90Abs, new Color(0xd62728), dashed);
    Charts.tidy(c);
    return Charts.pngBytes(c);
  }

  private static void add(XYChart c, String name, double[] v, Color color, BasicStroke line) {
    List<double[]> pts = new ArrayList<>();
    for (int d = 0; d < v.length; d++) if (!Double.isNaN(v[d])) pts.add(new double[] {d + 1, 100 * v[d]});
    if (!pts.isEmpty()) Charts.series(c, name, pts, color, line);
  }
}
