package io.smetric.audit.replay.derive;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.Measurement;
import io.smetric.audit.replay.calibrate.MeasurementInputs;
import io.smetric.audit.replay.calibrate.MeasurementRegime;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import io.smetric.audit.replay.calibrate.ProfileCalibration;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The error of {@link ProfileDeriver}, stated by cross-validation: each calibrated shipped profile
 * is derived from its config and GPU with the efficiency factors learned from the other profiles
 * only, and replayed against the runs it was calibrated and validated on (its fitted and held-out
 * measurements, overloaded stages apart; the same replay {@code validate} uses). The record is
 * shipped (profiles/derive-crossvalidation.json, made by {@code profiles derive --cross-validate})
 * because the replays take longer than a derivation may.
 */
public final class CrossValidation {
  private CrossValidation() {}

  public static final String KIND = "cross-validated";
  static final String RECORD = "/io/smetric/audit/replay/profiles/derive-crossvalidation.json";

  /** One left-out profile: what its derived twin gives on its runs. */
  public record LeftOut(String profile, List<String> learnedFrom, int measurements, int points, Double e2e, Double tpot,
      Double ttft, double maxAbsError, Map<String, Double> factors, List<Calibrator.PointFit> compared) {}

  /** The whole cross-validation: a row per left-out profile and the medians over every compared number. */
  public record Result(String method, List<LeftOut> rows, int points, Double e2e, Double tpot, Double ttft,
      ModelProfile.Regime regime) {}

  /** Derives {@code leftOut}'s twin from the other profiles and replays its runs. */
  public static LeftOut leaveOut(Efficiency.Basis b, MeasurementReplay.Options o) {
    Efficiency eff = Efficiency.learnShipped(List.of(b.profile()));
    ModelProfile twin = ProfileDeriver.derive(new ProfileDeriver.Request(b.facts(), b.profile(), b.gpuSpec(), b.tp(), b.engine(),
        "cv-" + b.profile()), eff);
    List<Measurement> runs = runs(b.profile());
    List<Calibrator.PointFit> pts = Calibrator.evaluate(runs, twin, o);
    ProfileCalibration.ErrorSummary s = ProfileCalibration.summarize(pts);
    Map<String, Double> f = new LinkedHashMap<>();
    eff.factors().forEach((k, v) -> f.put(k, v.value()));
    return new LeftOut(b.profile(), eff.from(), runs.size(), pts.size(), nn(s.e2e()), nn(s.tpot()), nn(s.ttft()),
        pts.stream().mapToDouble(p -> Math.abs(p.error())).max().orElse(Double.NaN), f, pts);
  }

  /** A shipped profile's own runs: fitted and held out, overloaded stages apart (as validate counts them). */
  public static List<Measurement> runs(String profile) {
    ModelProfile p = ModelProfile.named(profile);
    ModelProfile.Validation v = p.validation;
    List<Measurement> ms = MeasurementInputs.oneGroup(MeasurementInputs.read(v.data), v.group);
    MeasurementInputs.Split split = MeasurementInputs.split(ms, v.heldOut == null ? List.of() : v.heldOut);
    List<Measurement> out = new ArrayList<>(split.fit());
    out.addAll(split.held());
    return out;
  }

  /** Every profile of the basis left out in turn. */
  public static Result run(MeasurementReplay.Options o, Consumer<String> progress) {
    List<LeftOut> rows = new ArrayList<>();
    List<Calibrator.PointFit> all = new ArrayList<>();
    List<Measurement> allRuns = new ArrayList<>();
    for (Efficiency.Basis b : Efficiency.basis()) {
      progress.accept("leaving out " + b.profile() + " ...");
      LeftOut l = leaveOut(b, o);
      rows.add(l);
      all.addAll(l.compared());
      allRuns.addAll(runs(b.profile()));
    }
    ProfileCalibration.ErrorSummary s = ProfileCalibration.summarize(all);
    ModelProfile.Regime regime = MeasurementRegime.of(allRuns,
        "the runs of " + String.join(", ", rows.stream().map(LeftOut::profile).toList()) + " (other models and GPUs)");
    return new Result(METHOD, rows, all.size(), nn(s.e2e()), nn(s.tpot()), nn(s.ttft()), regime);
  }

  static final String METHOD = "each calibrated shipped profile derived from its config.json, GPU and tensor-parallel size with"
      + " the efficiency factors learned from the other profiles only, then replayed against the runs it was calibrated and"
      + " validated on (fitted and held-out, overloaded stages apart; seed 42, whole stages), as validate replays them";

  // ---------------------------------------------------------------- the shipped record

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  public static String toJson(Result r) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(r) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The shipped record, or null when none is shipped. */
  public static Result shipped() {
    try (InputStream in = CrossValidation.class.getResourceAsStream(RECORD)) {
      if (in == null) return null;
      return JSON.readValue(in, Result.class);
    } catch (IOException e) {
      throw new IllegalStateException("shipped cross-validation record does not parse: " + e.getMessage(), e);
    }
  }

  /** "llama-2-7b-h100-tp1 E2E 3.1% / TPOT 2.9% / TTFT 40.2%; ..." */
  public static String perProfile(Result r) {
    List<String> parts = new ArrayList<>();
    for (LeftOut l : r.rows()) {
      parts.add(String.format(Locale.ROOT, "%s E2E %s, TPOT %s, TTFT %s", l.profile(), pct(l.e2e()), pct(l.tpot()), pct(l.ttft())));
    }
    return String.join("; ", parts);
  }

  /** The derived profile's validation record: the cross-validated error, never a fit. */
  public static ModelProfile.Validation label(Result r) {
    ModelProfile.Validation.Builder v = new ModelProfile.Validation.Builder();
    ModelProfile.Check.Builder c = new ModelProfile.Check.Builder();
    c.kind = KIND;
    c.meaning = "the derivation's error: each calibrated shipped profile derived from the others' efficiency factors and"
        + " replayed against its own runs; it measures the method on other models and GPUs, not this profile on this deployment";
    if (r == null) {
      v.summary = "derived, not cross-validated (no record shipped); no run of this model and GPU";
      return v.build();
    }
    c.measurements = r.rows().stream().mapToInt(LeftOut::measurements).sum();
    c.points = r.points();
    c.e2eMedianAbsError = r.e2e();
    c.tpotMedianAbsError = r.tpot();
    c.ttftMedianAbsError = r.ttft();
    c.maxAbsError = r.rows().stream().mapToDouble(LeftOut::maxAbsError).max().orElse(Double.NaN);
    c.regime = r.regime();
    v.checks = List.of(c.build());
    v.regime = r.regime();
    v.summary = String.format(Locale.ROOT, "derived, cross-validated error: median |error| E2E %s, TPOT %s, TTFT %s over %d numbers"
        + " of %d left-out profiles (per left-out profile: %s); not fitted, no run of this model and GPU", pct(r.e2e()), pct(r.tpot()),
        pct(r.ttft()), r.points(), r.rows().size(), perProfile(r));
    v.doc = "docs/validation.md, \"Derived profiles: cross-validation\"";
    return v.build();
  }

  static String pct(Double v) {
    return v == null || v.isNaN() ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }

  private static Double nn(double v) {
    return Double.isNaN(v) ? null : v;
  }
}
