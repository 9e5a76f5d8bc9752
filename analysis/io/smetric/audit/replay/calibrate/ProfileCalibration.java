package io.smetric.audit.replay.calibrate;

import io.smetric.audit.replay.ModelProfile;
import java.util.List;
import java.util.Locale;

/**
 * Turns a fit into a profile that says where its numbers come from: every fitted coefficient gets
 * a {@link ModelProfile.Source} of kind "fitted" naming the measurements, the point count and the
 * range (value +- 2 standard deviations of the fit, never below the physical floor); the held-out
 * points' errors become the profile's {@link ModelProfile.Validation}.
 */
public final class ProfileCalibration {
  private ProfileCalibration() {}

  /** Medians of |error| per metric over a set of compared numbers (NaN where a metric has none). */
  public record ErrorSummary(int points, double e2e, double tpot, double ttft) {
    public String describe() {
      return String.format(Locale.ROOT, "E2E %s, TPOT %s, TTFT %s (%d numbers)", pct(e2e), pct(tpot), pct(ttft), points);
    }

    private static String pct(double v) {
      return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
    }
  }

  public static ErrorSummary summarize(List<Calibrator.PointFit> points) {
    return new ErrorSummary(points.size(), median(points, "e2e_mean"), median(points, "tpot_mean"), median(points, "ttft_mean"));
  }

  private static double median(List<Calibrator.PointFit> points, String metric) {
    double[] v = points.stream().filter(p -> p.metric().equals(metric)).mapToDouble(p -> Math.abs(p.error())).sorted().toArray();
    if (v.length == 0) return Double.NaN;
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /**
   * The fitted profile, renamed, with a source for each fitted coefficient and the held-out errors.
   *
   * @param inputs how the measurements were named on the command line (for the sources)
   * @param heldOut the held-out points' comparison (empty when nothing was held out)
   */
  public static ModelProfile stamp(Calibrator.Result r, String name, String inputs, int fittedMeasurements,
      List<Calibrator.PointFit> heldOut, List<String> data, String group, List<String> heldOutIds) {
    ModelProfile p = r.profile().copy();
    if (name != null) p.name = name;
    ModelProfile.Validation val0 = p.validation == null ? new ModelProfile.Validation() : p.validation;
    val0.data = data;
    val0.group = group;
    val0.heldOut = heldOutIds == null || heldOutIds.isEmpty() ? null : heldOutIds;
    p.validation = val0;
    for (String f : r.fitted()) {
      double v = Calibrator.get(p, f);
      double sd = r.sigma().getOrDefault(f, Double.NaN);
      Double low = null;
      Double high = null;
      if (Double.isFinite(sd)) {
        low = Math.max(Calibrator.floor(p, f), v - 2 * sd);
        high = Math.min(Calibrator.ceiling(f), v + 2 * sd);
      }
      p.sources.put(f, new ModelProfile.Source("fitted", String.format(Locale.ROOT,
          "calibrate on %s: %d measurements, %d compared numbers, RMS log error %.3f; range = +-2 standard deviations of the fit",
          inputs, fittedMeasurements, r.points().size(), r.rmsError()), low, high));
    }
    for (String f : r.notIdentifiable()) {
      ModelProfile.Source s = p.sources.get(f);
      String was = s == null ? "no source" : s.kind + ": " + s.ref;
      p.sources.put(f, new ModelProfile.Source(s == null ? "assumption" : s.kind,
          was + " (kept: calibrate on " + inputs + " could not move it)", s == null ? null : s.low, s == null ? null : s.high));
    }
    if (!heldOut.isEmpty()) {
      ErrorSummary e = summarize(heldOut);
      ModelProfile.Validation val = p.validation == null ? new ModelProfile.Validation() : p.validation;
      val.summary = "held-out median |error|: " + e.describe();
      val.heldOutPoints = heldOut.size();
      val.e2eMedianAbsError = nullIfNaN(e.e2e());
      val.tpotMedianAbsError = nullIfNaN(e.tpot());
      val.ttftMedianAbsError = nullIfNaN(e.ttft());
      p.validation = val;
    }
    return p;
  }

  private static Double nullIfNaN(double v) {
    return Double.isNaN(v) ? null : v;
  }

}
