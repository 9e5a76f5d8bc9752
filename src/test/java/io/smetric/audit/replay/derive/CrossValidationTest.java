package io.smetric.audit.replay.derive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shipped cross-validation record against a recomputation: a left-out profile, derived again from
 * the others and replayed against its runs, lands on the errors the record (and every derived
 * profile's label) reports; and the record's factors are still those the shipped profiles give.
 */
class CrossValidationTest {
  private static CrossValidation.LeftOut shippedRow(CrossValidation.Result r, String profile) {
    return r.rows().stream().filter(l -> l.profile().equals(profile)).findFirst().orElseThrow();
  }

  private static void reproduces(String profile) {
    CrossValidation.Result rec = CrossValidation.shipped();
    assertNotNull(rec, "no shipped cross-validation record");
    Efficiency.Basis b = Efficiency.basis().stream().filter(x -> x.profile().equals(profile)).findFirst().orElseThrow();
    CrossValidation.LeftOut now = CrossValidation.leaveOut(b, MeasurementReplay.Options.DEFAULT);
    CrossValidation.LeftOut then = shippedRow(rec, profile);
    assertEquals(then.points(), now.points());
    for (int i = 0; i < now.points(); i++) {
      Calibrator.PointFit n = now.compared().get(i);
      Calibrator.PointFit t = then.compared().get(i);
      assertEquals(t.id() + " " + t.metric(), n.id() + " " + n.metric());
      assertEquals(t.measured(), n.measured(), 1e-12 * t.measured());
      assertEquals(t.modelled(), n.modelled(), 1e-9 * t.modelled(), n.id() + " " + n.metric());
    }
    // every compared number lies within the largest error the record reports, and the medians are the record's
    for (Calibrator.PointFit p : now.compared()) assertTrue(Math.abs(p.error()) <= then.maxAbsError() + 1e-12);
    if (then.e2e() != null) assertEquals(then.e2e(), now.e2e(), 1e-9);
    if (then.ttft() != null) assertEquals(then.ttft(), now.ttft(), 1e-9);
    if (then.tpot() != null) assertEquals(then.tpot(), now.tpot(), 1e-9);
  }

  @Test
  void leftOutQwenH20_reproducesTheRecordedError() {
    reproduces("qwen3-30b-a3b-h20");
  }

  @Test
  void leftOutMixtralH100_reproducesTheRecordedError() {
    reproduces("mixtral-8x7b-h100-tp2");
  }

  @Test
  void shippedRecord_factorsAreThoseTheShippedProfilesGiveNow() {
    // a refit of a shipped profile without rerunning `profiles derive --cross-validate` fails here
    CrossValidation.Result rec = CrossValidation.shipped();
    assertEquals(Efficiency.basis().size(), rec.rows().size());
    for (CrossValidation.LeftOut l : rec.rows()) {
      Efficiency eff = Efficiency.learnShipped(List.of(l.profile()));
      assertEquals(eff.from(), l.learnedFrom());
      assertEquals(eff.factors().keySet(), l.factors().keySet(), l.profile());
      eff.factors().forEach((k, f) -> assertEquals(f.value(), l.factors().get(k), 1e-12 * Math.abs(f.value()), l.profile() + " " + k));
    }
    assertTrue(CrossValidation.label(rec).summary.contains("cross-validated"));
  }
}
