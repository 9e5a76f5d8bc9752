package io.smetric.audit.cli;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.Measurement;
import io.smetric.audit.replay.calibrate.MeasurementInputs;
import io.smetric.audit.replay.calibrate.MeasurementRegime;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import io.smetric.audit.replay.calibrate.ProfileCalibration;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code validate}: replays real measurements with a profile and prints measured against modelled,
 * fitted and held-out numbers apart. Without arguments: every shipped profile against the data it
 * names (docs/validation.md is made from this output).
 */
@Command(name = "validate", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
      "Replays real measurements with a profile: measured, modelled and error for every number,",
      "fitted (in-sample) and held-out numbers apart, with their medians, the profile's recorded",
      "leave-one-out medians, and the regime of the runs (prompt and context lengths, requests in",
      "flight, rates, prefix-cache hit share, saturation). Without arguments every shipped profile",
      "is checked against the measurements it was calibrated and validated on."})
public final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "0..*", paramLabel = "MEASUREMENTS", description = "Measurement files or folders, or shipped:SET (default: each profile's own).")
  List<String> inputs = new ArrayList<>();

  @Option(names = "--profile", paramLabel = "NAME|FILE", description = "Profile(s) to check (default: every shipped one).")
  List<String> profiles = new ArrayList<>();

  @Option(names = "--group", paramLabel = "TEXT", description = "Measurements whose group contains TEXT (default: the profile's).")
  String group;

  @Option(names = "--held-out", split = ",", paramLabel = "TEXT",
      description = "Measurements whose id contains TEXT count as held out (default: the profile's record of its fit).")
  List<String> heldOutIds;

  // the whole stage by default: a stage's first requests miss every cache, and a shortened replay
  // weighs them several times more than the run did (docs/validation.md, Results)
  @Option(names = "--max-stage-seconds", defaultValue = "Infinity", paramLabel = "S",
      description = "Replay only the first S seconds of arrivals of each load stage (default: the whole stage).")
  double maxStageSeconds;

  @Option(names = "--no-request-timeouts", description = "Replay clients that never give up, ignoring the measurements' "
      + "request timeouts (the replay before client timeouts; for comparison).")
  boolean noRequestTimeouts;

  @Override
  public Integer call() {
    PrintWriter w = spec.commandLine().getOut();
    List<String> names = profiles.isEmpty() ? ModelProfile.catalogue() : profiles;
    MeasurementReplay.Options ro = new MeasurementReplay.Options(42, maxStageSeconds, !noRequestTimeouts);
    int checked = 0;
    for (String n : names) {
      ModelProfile p = ModelProfile.resolve(n);
      ModelProfile.Validation v = p.validation;
      List<String> data = !inputs.isEmpty() ? inputs : v == null || v.data == null ? List.of() : v.data;
      if (data.isEmpty()) {
        if (!profiles.isEmpty()) throw new UsageException("profile " + p.name + " names no measurements: give MEASUREMENTS");
        w.println("== " + p.name + ": no measurements recorded, skipped");
        continue;
      }
      String g = group != null ? group : v == null ? null : v.group;
      List<String> heldPatterns = heldOutIds != null ? heldOutIds : v == null || v.heldOut == null ? List.of() : v.heldOut;
      List<Measurement> ms = MeasurementInputs.oneGroup(MeasurementInputs.read(data), g);
      MeasurementInputs.Split split = MeasurementInputs.split(ms, heldPatterns);
      List<Measurement> fit = split.fit();
      List<Measurement> held = split.held();
      List<Measurement> over = split.over();
      w.println("== " + p.name + " (" + p.model + " on " + p.hardware + ", " + p.engine + ") against " + String.join(" ", data)
          + (g == null ? "" : " group " + g));
      List<Calibrator.PointFit> f = Calibrator.evaluate(fit, p, ro);
      // the profile records which of its own runs were fitted; of other files it knows nothing
      boolean own = inputs.isEmpty() || (v != null && inputs.equals(v.data));
      if (own) {
        StagePrint.calibrationTable(w, "fitted numbers (in-sample: what the coefficients were fitted to)", f);
        w.println("fit (in-sample) median |error|: " + ProfileCalibration.summarize(f).describe());
      } else {
        StagePrint.calibrationTable(w, "compared numbers (the profile does not record whether it was fitted to these; "
            + "--held-out TEXT names runs it never saw)", f);
        w.println("median |error| (fitted or not: unknown): " + ProfileCalibration.summarize(f).describe());
      }
      ModelProfile.Check loo = v == null || !own ? null : v.check(ModelProfile.Check.LEAVE_ONE_OUT);
      if (loo != null) {
        w.println("leave-one-out median |error| (recorded by calibrate --leave-one-out, the same runs as the fit; "
            + "not recomputed here): " + new ProfileCalibration.ErrorSummary(loo.points, nan(loo.e2eMedianAbsError),
                nan(loo.tpotMedianAbsError), nan(loo.ttftMedianAbsError)).describe());
      }
      if (!held.isEmpty()) {
        List<Calibrator.PointFit> h = Calibrator.evaluate(held, p, ro);
        StagePrint.calibrationTable(w, "held-out numbers (runs the fit never saw)", h);
        w.println("held-out median |error|: " + ProfileCalibration.summarize(h).describe());
      } else if (own) {
        w.println("held-out runs: none (no measurement here was kept out of the fit)");
      }
      if (!over.isEmpty()) {
        StagePrint.calibrationTable(w, "overloaded stages (client gave up on requests; not in the medians)",
            Calibrator.evaluate(over, p, ro));
      }
      List<Measurement> checkedRuns = new ArrayList<>(fit);
      checkedRuns.addAll(held);
      ModelProfile.Regime regime = MeasurementRegime.of(checkedRuns, String.join(" ", data));
      w.println("regime of these runs (fitted and held out): " + regime.summary);
      checked++;
    }
    if (checked == 0) throw new UsageException("no profile with measurements to check");
    return 0;
  }

  private static double nan(Double v) {
    return v == null ? Double.NaN : v;
  }
}
