package io.smetric.audit.replay.bench;

import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.Measurement;
import io.smetric.audit.replay.calibrate.MeasurementInputs;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import io.smetric.audit.replay.calibrate.ProfileCalibration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Rewrites the validation record of every shipped profile (fit, leave-one-out, held-out runs and
 * overloaded stages apart, each with the regime of its runs) from the measurements the profile
 * names, without refitting: the coefficients are left as they are. The leave-one-out check is
 * redone (refits without each point, as `calibrate --leave-one-out` does) for a profile whose record
 * has error medians but no held-out runs, i.e. one calibrated with --leave-one-out. Load stages are
 * replayed whole (the default of validate and calibrate).
 * Args: PROFILES_DIR (src/main/resources/io/smetric/audit/replay/profiles).
 */
public final class RelabelShippedProfiles {
  public static void main(String[] a) throws Exception {
    Path dir = Path.of(a[0]);
    // whole load stages, as validate and calibrate replay them by default (docs/validation.md, Results)
    MeasurementReplay.Options ro = MeasurementReplay.Options.DEFAULT;
    for (String n : ModelProfile.catalogue()) {
      ModelProfile p = ModelProfile.named(n);
      ModelProfile.Validation v = p.validation;
      List<String> heldPatterns = v.heldOut == null ? List.of() : v.heldOut;
      List<Measurement> ms = MeasurementInputs.oneGroup(MeasurementInputs.read(v.data), v.group);
      MeasurementInputs.Split split = MeasurementInputs.split(ms, heldPatterns);
      List<Measurement> fit = split.fit();
      List<Measurement> held = split.held();
      List<Measurement> over = split.over();
      List<Calibrator.PointFit> loo = new ArrayList<>();
      boolean wasLeaveOneOut = v.checks == null ? held.isEmpty() && v.e2eMedianAbsError != null
          : v.check(ModelProfile.Check.LEAVE_ONE_OUT) != null;
      if (wasLeaveOneOut) {
        List<String> params = new ArrayList<>();
        for (String f : Calibrator.FITTABLE) {
          ModelProfile.Source s = p.sources.get(f);
          if (s != null && "fitted".equals(s.kind)) params.add(f);
        }
        Calibrator.Options o = new Calibrator.Options(params, Double.POSITIVE_INFINITY, 400, ro);
        for (int k = 0; k < fit.size(); k++) {
          List<Measurement> rest = new ArrayList<>(fit);
          Measurement left = rest.remove(k);
          loo.addAll(Calibrator.evaluate(List.of(left), Calibrator.fit(rest, p, o).profile(), ro));
        }
      }
      String inputs = String.join(" ", v.data) + (v.group == null ? "" : " --group " + v.group);
      ModelProfile.Validation.Builder nv = ProfileCalibration.validation(inputs, fit, Calibrator.evaluate(fit, p, ro), loo, held,
          Calibrator.evaluate(held, p, ro), over, Calibrator.evaluate(over, p, ro), v.data, v.group, v.heldOut).toBuilder();
      nv.doc = v.doc;
      ModelProfile q = p.with(b -> b.validation = nv.build());
      Files.writeString(dir.resolve(n + ".yaml"), q.toYaml(), StandardCharsets.UTF_8);
      System.out.println(n + ": " + q.validation.summary);
      System.out.println("  " + q.validation.regime.summary);
    }
  }
}
