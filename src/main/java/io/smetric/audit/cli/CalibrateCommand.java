package io.smetric.audit.cli;

import io.smetric.audit.common.OutputExistsException;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.Measurement;
import io.smetric.audit.replay.calibrate.MeasurementInputs;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import io.smetric.audit.replay.calibrate.ProfileCalibration;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code calibrate MEASUREMENTS... --out PROFILE}: fits the step-cost coefficients of a profile to
 * real measurements with the replay in the loop (docs/validation.md, "Calibrating your own").
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
      "Fits a profile's step-cost coefficients to your measurements (replay in the loop,",
      "Levenberg-Marquardt) and prints every compared number: measured, modelled, error.",
      "MEASUREMENTS: single-request tables (CSV), `vllm bench serve` / benchmark_serving.py result",
      "JSON, inference-perf stage reports, GuideLLM benchmark reports, per-step timing CSV, or",
      "shipped:SET (e.g. shipped:inference-sim-h100/runs.json). The model and GPU facts (weights,",
      "KV bytes per token, HBM bandwidth, memory) come from --base; only coefficients are fitted.",
      "A fit that does not converge, or after which a number is off by more than",
      "--max-point-error, is an error (exit 3)."})
public final class CalibrateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "MEASUREMENTS", description = "Measurement files or folders, or shipped:SET.")
  List<String> inputs;

  @Option(names = "--out", required = true, paramLabel = "PROFILE", description = "Profile to write (.yaml or .json).")
  Path out;

  @Option(names = "--base", defaultValue = ModelProfile.DEFAULT_NAME, paramLabel = "NAME|FILE",
      description = "Profile whose model and GPU facts and starting coefficients the fit uses (default: ${DEFAULT-VALUE}).")
  String base;

  @Option(names = "--name", description = "Name of the written profile (default: the file's name).")
  String name;

  @Option(names = "--group", paramLabel = "TEXT", description = "Use the measurements whose group (model/GPU/engine) contains TEXT.")
  String group;

  @Option(names = "--fit", split = ",", paramLabel = "FIELD",
      description = "Coefficients to fit (default: what the measurements can tell apart): "
          + "stepBaseS, prefillPerTokenS, prefillAttentionPerPairS, decodePerSeqS, decodePerContextTokenS, hbmEfficiency, frontendLatencyS.")
  List<String> fit;

  @Option(names = "--hold-out", split = ",", paramLabel = "TEXT",
      description = "Measurements whose id contains TEXT are not fitted but compared after the fit (validation).")
  List<String> holdOut = new ArrayList<>();

  @Option(names = "--leave-one-out",
      description = "Validate by leaving each fitted measurement out in turn: refit without it, predict it (for small tables where nothing can be held out).")
  boolean leaveOneOut;

  @Option(names = "--max-point-error", defaultValue = "0.30", paramLabel = "X",
      description = "Largest |modelled / measured - 1| a fitted number may keep (default: ${DEFAULT-VALUE}).")
  double maxPointError;

  // the whole stage by default: a stage's first requests miss every cache, and a shortened replay
  // weighs them several times more than the run did (docs/validation.md, Results)
  @Option(names = "--max-stage-seconds", defaultValue = "Infinity", paramLabel = "S",
      description = "Replay only the first S seconds of arrivals of each load stage (default: the whole stage).")
  double maxStageSeconds;

  @Option(names = "--include-overloaded",
      description = "Also fit stages where the client gave up on more than 1%% of the requests (excluded by default: the replay has no client aborts).")
  boolean includeOverloaded;

  @Option(names = "--overwrite", description = "Replace an existing profile file.")
  boolean overwrite;

  @Override
  public Integer call() throws IOException {
    PrintWriter w = spec.commandLine().getOut();
    if (Files.exists(out) && !overwrite) throw OutputExistsException.file(out.toString());
    ModelProfile start = ModelProfile.resolve(base);
    List<Measurement> all = MeasurementInputs.oneGroup(MeasurementInputs.read(inputs), group);
    List<Measurement> fitSet = new ArrayList<>();
    List<Measurement> heldSet = new ArrayList<>();
    List<Measurement> overloaded = new ArrayList<>();
    for (Measurement m : all) {
      if (!includeOverloaded && MeasurementInputs.overloaded(m)) overloaded.add(m);
      else if (holdOut.stream().anyMatch(h -> m.id().contains(h))) heldSet.add(m);
      else fitSet.add(m);
    }
    if (fitSet.isEmpty()) throw new io.smetric.audit.common.UsageException("--hold-out leaves no measurement to fit");
    List<String> params = fit == null || fit.isEmpty() ? MeasurementInputs.defaultParams(fitSet) : fit;
    MeasurementReplay.Options ro = new MeasurementReplay.Options(42, maxStageSeconds);
    Calibrator.Options opt = new Calibrator.Options(params, maxPointError, 400, ro);
    w.printf(Locale.ROOT, "calibrate: %d measurements of group %s: %d fitted, %d held out, %d overloaded (not fitted)%n",
        all.size(), all.get(0).group(), fitSet.size(), heldSet.size(), overloaded.size());
    w.printf(Locale.ROOT, "fitting %s, starting from %s%n", String.join(", ", params), start.name);
    long t0 = System.nanoTime();
    Calibrator.Result r;
    try {
      r = Calibrator.fit(fitSet, start, opt);
    } catch (Calibrator.FitRejected e) {
      StagePrint.calibrationTable(w, "fitted numbers (rejected fit)", e.result.points());
      throw e;
    }
    StagePrint.calibrationTable(w, "fitted numbers", r.points());
    List<Calibrator.PointFit> held = new ArrayList<>();
    if (!heldSet.isEmpty()) {
      held.addAll(Calibrator.evaluate(heldSet, r.profile(), ro));
      StagePrint.calibrationTable(w, "held-out numbers (runs the fit never saw)", held);
    }
    List<Calibrator.PointFit> loo = new ArrayList<>();
    if (leaveOneOut) {
      Calibrator.Options looOpt = new Calibrator.Options(r.fitted(), Double.POSITIVE_INFINITY, 400, ro);
      for (int k = 0; k < fitSet.size(); k++) {
        List<Measurement> rest = new ArrayList<>(fitSet);
        Measurement left = rest.remove(k);
        Calibrator.Result rk = Calibrator.fit(rest, r.profile(), looOpt);
        loo.addAll(Calibrator.evaluate(List.of(left), rk.profile(), ro));
      }
      StagePrint.calibrationTable(w, "leave-one-out numbers (each fitted run predicted by a fit without it; the same runs and regime as the fit)", loo);
    }
    List<Calibrator.PointFit> over = new ArrayList<>();
    if (!overloaded.isEmpty()) {
      over.addAll(Calibrator.evaluate(overloaded, r.profile(), ro));
      StagePrint.calibrationTable(w, "overloaded stages (client gave up on requests; the replay has no client aborts; not in the medians)", over);
    }
    w.println("coefficients:");
    for (String f : r.fitted()) {
      w.printf(Locale.ROOT, "  %-26s %.6g +- %.2g (start %.6g)%n", f, Calibrator.get(r.profile(), f), r.sigma().get(f), Calibrator.get(start, f));
    }
    if (!r.notIdentifiable().isEmpty()) {
      w.println("  not moved by these measurements (kept): " + String.join(", ", r.notIdentifiable()));
    }
    w.printf(Locale.ROOT, "fit: %d iterations, %d evaluations, RMS log error %.4f, %.1f s%n", r.iterations(), r.evaluations(),
        r.rmsError(), (System.nanoTime() - t0) / 1e9);
    String profileName = name != null ? name : out.getFileName().toString().replaceAll("\\.(ya?ml|json)$", "");
    ModelProfile p = ProfileCalibration.stamp(r, profileName, String.join(" ", inputs)
        + (group == null ? "" : " --group " + group), fitSet, loo, heldSet, held, overloaded, over, inputs, group, holdOut);
    StagePrint.validationRecord(w, p.validation);
    String text = out.toString().endsWith(".json") ? p.toJson() : p.toYaml();
    if (out.toAbsolutePath().getParent() != null) Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, text, StandardCharsets.UTF_8);
    w.println("wrote " + out + " (use it with --profile " + out + ")");
    return 0;
  }
}
