package io.smetric.audit.replay.calibrate;

import io.smetric.audit.replay.ModelProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a fit into a profile that says where its numbers come from: every fitted coefficient gets
 * a {@link ModelProfile.Source} of kind "fitted" naming the measurements, the point count and the
 * range (value +- 2 standard deviations of the fit, never below the physical floor); the
 * comparisons made (fit, leave-one-out, held-out runs, overloaded stages, each with the regime of
 * its runs) become the profile's {@link ModelProfile.Validation}.
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

  /** What each kind of check can show, in the words the profile, the CLI and the report use. */
  public static String meaning(String kind) {
    return switch (kind) {
      case ModelProfile.Check.FIT -> "in-sample: the numbers the coefficients were fitted to; a small error shows the"
          + " step-cost formula can follow them, not that it predicts other runs";
      case ModelProfile.Check.LEAVE_ONE_OUT -> "each fitted number predicted by a refit without it: the same runs and"
          + " regime as the fit, so it tests the curve between those points, not other workloads or loads";
      case ModelProfile.Check.HELD_OUT -> "runs the fit never saw (other workloads or loads): the validation";
      case ModelProfile.Check.OVERLOADED -> "stages where the client gave up on requests (the replay has no client"
          + " aborts): replayed and reported, not counted as validation";
      case ModelProfile.Check.CROSS_VALIDATED -> "the derivation's error: each calibrated shipped profile derived from the"
          + " others' efficiency factors and replayed against its own runs; it measures the method on other models and GPUs,"
          + " not this profile on this deployment";
      default -> throw new IllegalArgumentException(kind);
    };
  }

  /** One check: its error medians, largest error and the regime of its runs (null when there are no points). */
  public static ModelProfile.Check check(String kind, List<Measurement> runs, List<Calibrator.PointFit> points,
      String derivedFrom) {
    if (points.isEmpty()) return null;
    ModelProfile.Check.Builder c = new ModelProfile.Check.Builder();
    c.kind = kind;
    c.meaning = meaning(kind);
    c.measurements = runs.size();
    c.points = points.size();
    ErrorSummary e = summarize(points);
    c.e2eMedianAbsError = nullIfNaN(e.e2e());
    c.tpotMedianAbsError = nullIfNaN(e.tpot());
    c.ttftMedianAbsError = nullIfNaN(e.ttft());
    c.maxAbsError = points.stream().mapToDouble(p -> Math.abs(p.error())).max().orElse(Double.NaN);
    // leave-one-out replays the fitted runs again: their regime is the fit's, not repeated
    if (!kind.equals(ModelProfile.Check.LEAVE_ONE_OUT)) {
      c.regime = MeasurementRegime.of(runs, derivedFrom + ": " + String.join(", ", runs.stream().map(Measurement::id).toList()));
    }
    return c.build();
  }

  /**
   * The profile's validation record from the comparisons made: fit (in-sample), leave-one-out,
   * held-out runs and overloaded stages kept apart, the regime of the fitted and held-out runs
   * together, and a summary that names each kind. Empty lists = that check was not made.
   */
  public static ModelProfile.Validation validation(String inputs, List<Measurement> fitSet, List<Calibrator.PointFit> fitPts,
      List<Calibrator.PointFit> looPts, List<Measurement> heldSet, List<Calibrator.PointFit> heldPts,
      List<Measurement> overSet, List<Calibrator.PointFit> overPts, List<String> data, String group, List<String> heldOutIds) {
    ModelProfile.Validation.Builder v = new ModelProfile.Validation.Builder();
    v.data = data;
    v.group = group;
    v.heldOut = heldOutIds == null || heldOutIds.isEmpty() ? null : heldOutIds;
    v.checks = new ArrayList<>();
    for (ModelProfile.Check c : new ModelProfile.Check[] {
        check(ModelProfile.Check.FIT, fitSet, fitPts, inputs),
        check(ModelProfile.Check.LEAVE_ONE_OUT, fitSet, looPts, inputs),
        check(ModelProfile.Check.HELD_OUT, heldSet, heldPts, inputs),
        check(ModelProfile.Check.OVERLOADED, overSet, overPts, inputs)}) {
      if (c != null) v.checks.add(c);
    }
    List<Measurement> checked = new ArrayList<>(fitSet);
    checked.addAll(heldSet);
    v.regime = MeasurementRegime.of(checked, inputs + ": the fitted and held-out runs (overloaded stages apart)");
    ModelProfile.Check held = v.build().check(ModelProfile.Check.HELD_OUT);
    if (held != null) { // the flat fields have always meant held-out runs
      v.heldOutPoints = held.points;
      v.e2eMedianAbsError = held.e2eMedianAbsError;
      v.tpotMedianAbsError = held.tpotMedianAbsError;
      v.ttftMedianAbsError = held.ttftMedianAbsError;
    }
    v.summary = summary(v.build());
    return v.build();
  }

  /** "fit (in-sample) median |error| ...; leave-one-out ...; held-out runs: none" */
  public static String summary(ModelProfile.Validation v) {
    List<String> parts = new ArrayList<>();
    ModelProfile.Check fit = v.check(ModelProfile.Check.FIT);
    if (fit != null) parts.add("fit (in-sample) median |error| " + describe(fit));
    ModelProfile.Check loo = v.check(ModelProfile.Check.LEAVE_ONE_OUT);
    if (loo != null) parts.add("leave-one-out (same runs) " + describe(loo));
    ModelProfile.Check held = v.check(ModelProfile.Check.HELD_OUT);
    parts.add(held == null ? "held-out runs: none" : "held-out runs " + describe(held));
    ModelProfile.Check over = v.check(ModelProfile.Check.OVERLOADED);
    if (over != null) parts.add(over.measurements + " overloaded stage(s) replayed, not counted");
    return String.join("; ", parts);
  }

  private static String describe(ModelProfile.Check c) {
    return new ErrorSummary(c.points, nan(c.e2eMedianAbsError), nan(c.tpotMedianAbsError), nan(c.ttftMedianAbsError)).describe();
  }

  private static double nan(Double v) {
    return v == null ? Double.NaN : v;
  }

  /**
   * The fitted profile, renamed, with a source for each fitted coefficient and its validation
   * record ({@link #validation}).
   *
   * @param inputs how the measurements were named on the command line (for the sources)
   */
  public static ModelProfile stamp(Calibrator.Result r, String name, String inputs, List<Measurement> fitSet,
      List<Calibrator.PointFit> looPts, List<Measurement> heldSet, List<Calibrator.PointFit> heldPts,
      List<Measurement> overSet, List<Calibrator.PointFit> overPts, List<String> data, String group, List<String> heldOutIds) {
    ModelProfile.Builder p = r.profile().toBuilder();
    if (name != null) p.name = name;
    p.validation = validation(inputs, fitSet, r.points(), looPts, heldSet, heldPts, overSet, overPts, data, group, heldOutIds);
    for (String f : r.fitted()) {
      double v = Calibrator.get(r.profile(), f);
      double sd = r.sigma().getOrDefault(f, Double.NaN);
      Double[] range = Calibrator.twoSigmaRange(r.profile(), f, v, sd);
      p.sources.put(f, new ModelProfile.Source("fitted", String.format(Locale.ROOT,
          "calibrate on %s: %d measurements, %d compared numbers, RMS log error %.3f; range = +-2 standard deviations of the fit",
          inputs, fitSet.size(), r.points().size(), r.rmsError()), range[0], range[1]));
    }
    for (String f : r.notIdentifiable()) {
      ModelProfile.Source s = p.sources.get(f);
      String was = s == null ? "no source" : s.kind + ": " + s.ref;
      p.sources.put(f, new ModelProfile.Source(s == null ? "assumption" : s.kind,
          was + " (kept: calibrate on " + inputs + " could not move it)", s == null ? null : s.low, s == null ? null : s.high));
    }
    return p.build();
  }

  private static Double nullIfNaN(double v) {
    return Double.isNaN(v) ? null : v;
  }

}
