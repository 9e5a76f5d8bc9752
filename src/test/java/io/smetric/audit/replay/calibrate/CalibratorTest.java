package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.replay.ModelProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fitter on single-request tables whose truth is known: latencies made by replaying each
 * request with a known profile (a, b, e set by hand), then fitted from a start 2x off in every
 * coefficient. Also the two refusals: points the model cannot follow, and a fit out of budget.
 * The tables are made by the same replay the fit runs, so a bug in MeasurementReplay would cancel
 * out here: MeasurementReplayTest checks the replay itself against step costs worked by hand.
 */
class CalibratorTest {
  private static final int[] INPUTS = {1, 4096, 16384, 32768, 65536};

  private static ModelProfile truth() {
    return ModelProfile.defaultProfile().with(q -> {
      q.stepBaseS = 0.004;
      q.prefillPerTokenS = 1.5e-4;
      q.prefillAttentionPerPairS = 4e-9;
    });
  }

  private static List<Measurement> table(Path dir, ModelProfile truth) throws Exception {
    StringBuilder csv = new StringBuilder("input_tokens,output_tokens,e2e_s\n");
    for (int in : INPUTS) {
      Measurement m = new Measurement("x", "x", "g", Kind.SINGLE_REQUEST, EngineConfig.UNKNOWN,
          new SingleRequestWorkload(in, 256, 16), Metrics.NONE, null);
      double e2e = MeasurementReplay.replay(m, truth, MeasurementReplay.Options.DEFAULT).metrics().e2e().mean();
      csv.append(String.format(Locale.ROOT, "%d,256,%.9f%n", in, e2e));
    }
    Path f = dir.resolve("speed.csv");
    Files.writeString(f, csv);
    return MeasurementReader.read(f);
  }

  @Test
  void singleRequestTable_fromA2xOffStart_recoversTheCoefficientsThatMadeIt(@TempDir Path dir) throws Exception {
    List<Measurement> ms = table(dir, truth());
    ModelProfile start = truth().with(q -> {
      q.stepBaseS *= 2;
      q.prefillPerTokenS /= 2;
      q.prefillAttentionPerPairS *= 2;
    });
    Calibrator.Result r = Calibrator.fit(ms, start, Calibrator.Options.defaults(
        List.of("stepBaseS", "prefillPerTokenS", "prefillAttentionPerPairS")));
    assertEquals(0.004, r.profile().stepBaseS, 0.004 * 0.01);
    assertEquals(1.5e-4, r.profile().prefillPerTokenS, 1.5e-4 * 0.01);
    assertEquals(4e-9, r.profile().prefillAttentionPerPairS, 4e-9 * 0.01);
    for (Calibrator.PointFit p : r.points()) assertTrue(Math.abs(p.error()) < 0.002, p.toString());
    assertEquals(List.of(), r.notIdentifiable());
  }

  @Test
  void coefficientAtZero_startsFromTheGuess_andTheGivenProfileIsLeftAlone(@TempDir Path dir) throws Exception {
    // a fit scales each coefficient from its start, so a 0 is replaced by the initial guess (5 ms for
    // a); until profiles were values that guess was written into the caller's profile
    List<Measurement> ms = table(dir, truth());
    ModelProfile start = truth().with(q -> q.stepBaseS = 0);
    Calibrator.Result r = Calibrator.fit(ms, start, Calibrator.Options.defaults(List.of("stepBaseS")));
    assertEquals(0.0, start.stepBaseS);
    assertEquals(5e-3, r.start().stepBaseS);
    assertEquals(0.004, r.profile().stepBaseS, 0.004 * 0.01);
  }

  @Test
  void contradictoryPoints_areRefusedNamingThem(@TempDir Path dir) throws Exception {
    // the same request measured at 10 s and at 20 s: no coefficient puts both within 30%
    Path f = dir.resolve("bad.csv");
    Files.writeString(f, "input_tokens,output_tokens,e2e_s\n1000,256,10\n1000,256,20\n");
    List<Measurement> ms = MeasurementReader.read(f);
    Calibrator.FitRejected e = assertThrows(Calibrator.FitRejected.class,
        () -> Calibrator.fit(ms, truth(), Calibrator.Options.defaults(List.of("stepBaseS"))));
    assertTrue(e.getMessage().contains("off by more than 30%"), e.getMessage());
    assertTrue(e.getMessage().contains("bad.csv"), e.getMessage());
    assertEquals(2, e.result.points().size());
  }

  @Test
  void fitOutOfBudget_isAnErrorSayingItDidNotConverge(@TempDir Path dir) throws Exception {
    List<Measurement> ms = table(dir, truth());
    ModelProfile start = truth().with(q -> q.stepBaseS *= 3);
    Calibrator.Options o = new Calibrator.Options(List.of("stepBaseS", "prefillPerTokenS"), 0.3, 1,
        MeasurementReplay.Options.DEFAULT);
    BadInputException e = assertThrows(BadInputException.class, () -> Calibrator.fit(ms, start, o));
    assertTrue(e.getMessage().contains("did not converge"), e.getMessage());
  }

  @Test
  void unknownCoefficient_isAUsageError() {
    var e = assertThrows(io.smetric.audit.common.UsageException.class, () -> Calibrator.fit(List.of(), truth(),
        Calibrator.Options.defaults(List.of("kvBytesPerToken"))));
    assertTrue(e.getMessage().contains("cannot fit 'kvBytesPerToken'"), e.getMessage());
  }
}
