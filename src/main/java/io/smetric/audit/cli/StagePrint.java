package io.smetric.audit.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.InferenceSummary;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.ProfileCalibration;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * Console lines that several commands print for the same stage result (moved out of the commands
 * so that no command calls another, docs/architecture.md).
 */
final class StagePrint {
  private StagePrint() {}

  /** infer-sessions (and ingest --infer-sessions): the inference summary and, with a ground truth, its accuracy. */
  static void inference(PrintWriter w, InferenceSummary s, JsonNode acc) {
    w.printf(Locale.ROOT, "infer-sessions (%s): %d requests -> %d sessions (%d roots, %d forks), %d continuations%n",
        s.method(), s.requests(), s.sessions(), s.rootSessions(), s.forkSessions().total(), s.continuations());
    w.printf(Locale.ROOT, "  roots that share only template blocks with earlier requests: %d%n",
        s.rootsSharingOnlyTemplateBlocks());
    if (acc == null) return;
    w.printf(Locale.ROOT, "accuracy vs %s (%d requests):%n", acc.get("truth").asText(), acc.get("requests").asLong());
    w.printf(Locale.ROOT, "  %-22s %9s %9s %9s %9s %9s %9s %9s%n", "method", "P(all)", "R(all)", "P(reveal)", "R(reveal)",
        "R(fork)", "R(compact)", "sessions=");
    for (String m : new String[] {"rule", "naive_longest_prefix"}) {
      JsonNode x = acc.get(m);
      w.printf(Locale.ROOT, "  %-22s %9s %9s %9s %9s %9s %9s %9s%n", m,
          pct(x.get("overall").get("precision")), pct(x.get("overall").get("recall")),
          pct(x.get("revealable").get("precision")), pct(x.get("revealable").get("recall")),
          pct(x.get("fork").get("recall")), pct(x.get("compacted").get("recall")),
          pct(x.get("sessions").get("exact_share")));
    }
    JsonNode rule = acc.get("rule");
    w.printf(Locale.ROOT, "  rule: visible-link precision %s recall %s; fork-link precision %s; template-only links %d (recall %s)%n",
        pct(rule.get("visible").get("precision")), pct(rule.get("visible").get("recall")),
        pct(rule.get("fork").get("precision")), rule.get("template_only").get("links").asLong(),
        pct(rule.get("template_only").get("recall")));
  }

  /** calibrate and validate: measured against modelled numbers, one row per measurement point. */
  static void calibrationTable(PrintWriter w, String title, List<Calibrator.PointFit> points) {
    w.println(title + ":");
    w.printf(Locale.ROOT, "  %-58s %-10s %12s %12s %8s%n", "measurement", "metric", "measured", "modelled", "error");
    for (Calibrator.PointFit f : points) {
      w.printf(Locale.ROOT, "  %-58s %-10s %12.5g %12.5g %+7.1f%%%n", f.id(), f.metric(), f.measured(), f.modelled(),
          100 * f.error());
    }
  }

  /**
   * calibrate, validate and profiles NAME: a profile's validation record, one block per kind of
   * check (fit, leave-one-out, held-out, overloaded) with what it can show and the regime of its
   * runs, then the regime of everything it was checked on.
   */
  static void validationRecord(PrintWriter w, ModelProfile.Validation v) {
    if (v == null) {
      w.println("validation: none (this profile was never compared with real runs)");
      return;
    }
    if (v.checks == null || v.checks.isEmpty()) {
      w.println("validation: " + (v.summary == null ? "no record" : v.summary)
          + " (recorded before fit, leave-one-out and held-out were kept apart: rerun calibrate to label it)");
      return;
    }
    w.println("validation record:");
    boolean derived = v.check(ModelProfile.Check.CROSS_VALIDATED) != null;
    for (String kind : new String[] {ModelProfile.Check.FIT, ModelProfile.Check.LEAVE_ONE_OUT, ModelProfile.Check.HELD_OUT,
        ModelProfile.Check.OVERLOADED, ModelProfile.Check.CROSS_VALIDATED}) {
      ModelProfile.Check c = v.check(kind);
      if (c == null) {
        // a derived profile has no fit of its own: its one check is the derivation's cross-validation
        if (!derived && !kind.equals(ModelProfile.Check.OVERLOADED) && !kind.equals(ModelProfile.Check.CROSS_VALIDATED)) {
          w.println("  " + kind + ": none");
        }
        continue;
      }
      w.printf(Locale.ROOT, "  %s: median |error| %s; largest %s%n", kind,
          new ProfileCalibration.ErrorSummary(c.points, nan(c.e2eMedianAbsError), nan(c.tpotMedianAbsError),
              nan(c.ttftMedianAbsError)).describe(), c.maxAbsError == null ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * c.maxAbsError));
      w.println("    what it shows: " + c.meaning);
      if (c.regime != null) w.println("    runs: " + c.regime.summary);
    }
    if (v.regime != null) w.println("  regime checked (fit and held-out runs): " + v.regime.summary);
  }

  private static double nan(Double v) {
    return v == null ? Double.NaN : v;
  }

  private static String pct(JsonNode v) {
    return v == null || v.isNull() ? "-" : String.format(Locale.ROOT, "%.2f%%", 100 * v.asDouble());
  }
}
