package io.smetric.audit.cli;

import io.smetric.audit.common.OutputExistsException;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.Measurement;
import io.smetric.audit.replay.calibrate.MeasurementInputs;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import io.smetric.audit.replay.calibrate.ProfileCalibration;
import io.smetric.audit.replay.TraceCalibration;
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
      "--max-point-error, is an error (exit 3).",
      "TRACE: one canonical trace with recorded routing and measured latencies (served_instance,",
      "ttft_s, e2e_s): its earlier part replayed as recorded is fitted, its last --hold-out-last",
      "share of the time span is held out and its error reported apart (docs/validation.md, \"Your own cluster\")."})
public final class CalibrateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "MEASUREMENTS|TRACE", description = {"Measurement files or folders, or shipped:SET;",
      "or one canonical trace (a Parquet dataset, an ingest output or a replay --record-trace folder) with recorded routing."})
  List<String> inputs;

  @picocli.CommandLine.Mixin SparkOptions sparkOptions;

  @Option(names = "--hold-out-last", paramLabel = "F",
      description = "With a TRACE: the share of its time span, at its end, kept out of the fit and compared after it (default: "
          + TraceCalibration.DEFAULT_HOLD_OUT + "; 0 = none).")
  Double holdOutLast;

  @Option(names = "--instances", paramLabel = "N",
      description = "With a TRACE: the cluster size (default: the number of distinct recorded instances).")
  Integer instances;

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
      description = "Largest |modelled / measured - 1| a fitted number (with a TRACE: a binned mean) may keep (default: ${DEFAULT-VALUE}).")
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
    if (inputs.size() == 1 && InputDetection.isCanonicalTrace(inputs.get(0))) return calibrateTrace(w, inputs.get(0));
    if (holdOutLast != null || instances != null) throw new UsageException("--hold-out-last and --instances go with a canonical TRACE");
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
    if (fitSet.isEmpty()) throw new UsageException("--hold-out leaves no measurement to fit");
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
      w.printf(Locale.ROOT, "  %-26s %.6g +- %.2g (start %.6g)%n", f, Calibrator.get(r.profile(), f), r.sigma().get(f), Calibrator.get(r.start(), f));
    }
    if (!r.notIdentifiable().isEmpty()) {
      w.println("  not moved by these measurements (kept): " + String.join(", ", r.notIdentifiable()));
    }
    w.printf(Locale.ROOT, "fit: %d iterations, %d evaluations, RMS log error %.4f, %.1f s%n", r.iterations(), r.evaluations(),
        r.rmsError(), (System.nanoTime() - t0) / 1e9);
    String profileName = name != null ? name : out.getFileName().toString().replaceAll("\\.(ya?ml|json)$", "");
    ModelProfile p = ProfileCalibration.stamp(r, profileName, String.join(" ", inputs)
        + (group == null ? "" : " --group " + group), fitSet, loo, heldSet, held, overloaded, over, inputs, group, holdOut);
    return write(w, p);
  }

  /** Prints the profile's validation record and writes it to --out (YAML, or JSON by the name). */
  private int write(PrintWriter w, ModelProfile p) throws IOException {
    StagePrint.validationRecord(w, p.validation);
    String text = out.toString().endsWith(".json") ? p.toJson() : p.toYaml();
    if (out.toAbsolutePath().getParent() != null) Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, text, StandardCharsets.UTF_8);
    w.println("wrote " + out + " (use it with --profile " + out + ")");
    return 0;
  }

  /** calibrate TRACE: the earlier slice replayed as recorded is fitted, the last one held out. */
  private int calibrateTrace(PrintWriter w, String trace) throws IOException {
    if (group != null || !holdOut.isEmpty() || leaveOneOut || includeOverloaded || maxStageSeconds != Double.POSITIVE_INFINITY) {
      throw new UsageException("with a TRACE, the held-out part is a time slice (--hold-out-last); --group, --hold-out,"
          + " --leave-one-out, --include-overloaded and --max-stage-seconds go with measurement files");
    }
    TraceCalibration.Options opt = new TraceCalibration.Options(holdOutLast == null ? TraceCalibration.DEFAULT_HOLD_OUT : holdOutLast,
        fit == null || fit.isEmpty() ? TraceCalibration.DEFAULT_PARAMS : fit, maxPointError);
    io.smetric.audit.replay.ReplaySettings s =
        io.smetric.audit.replay.ReplaySettings.defaults().with(e -> e.profile = ModelProfile.resolve(base));
    org.apache.spark.sql.SparkSession spark = sparkOptions.session("calibrate");
    long t0 = System.nanoTime();
    String dataset = io.smetric.audit.replay.trace.TraceLoader.datasetPath(spark, trace);
    TraceCalibration.require(TraceCalibration.scan(spark, dataset), trace, "calibrate TRACE");
    // the trace and its recorded columns in one pass where the dataset allows (as validate TRACE reads it)
    var loaded = io.smetric.audit.replay.TraceValidation.load(spark, trace);
    var t = loaded.trace();
    var rec = loaded.recorded();
    double readS = (System.nanoTime() - t0) / 1e9;
    TraceCalibration.Result r;
    try {
      r = TraceCalibration.run(t, rec, s, instances, opt, trace);
    } catch (Calibrator.FitRejected e) {
      StagePrint.calibrationTable(w, "fitted binned means (rejected fit)", e.result.points());
      throw e;
    }
    printTrace(w, trace, s.profile, r, opt);
    w.printf(Locale.ROOT, "read %.1f s, calibration %.1f s (%d replays of the trace)%n", readS,
        r.seconds(), r.simulations());
    String profileName = name != null ? name : out.getFileName().toString().replaceAll("\\.(ya?ml|json)$", "");
    return write(w, r.profile().with(p -> p.name = profileName));
  }

  /** What calibrate TRACE and audit --profile from-trace print: the slices, the fit, the two errors. */
  static void printTrace(PrintWriter w, String trace, ModelProfile start, TraceCalibration.Result r, TraceCalibration.Options opt) {
    Locale L = Locale.ROOT;
    w.printf(L, "calibrate: %s: %d requests replayed as recorded on %d instances, starting from %s%n", trace,
        r.fitRequests() + r.heldRequests(), r.instances(), start.name);
    w.printf(L, "fitted slice: arrivals before t = %.1f s, the first %.0f%% of the %.1f s time span: %d requests; held out: the"
        + " last %.0f%%: %d requests%n", Math.min(r.cutS(), r.endS()) - r.startS(), 100 * (1 - opt.holdOutLast()),
        r.endS() - r.startS(), r.fitRequests(), 100 * opt.holdOutLast(), r.heldRequests());
    for (String slice : List.of("fitted", "held-out")) {
      TraceCalibration.SliceError e = slice.equals("fitted") ? r.fitError() : r.heldError();
      if (e == null) continue;
      w.printf(L, "  %s slice: compared TTFT %d, end-to-end %d; not compared: %d without TTFT, %d without end-to-end, %d not"
          + " completed (aborted or error), %d measured as 0 s%n", slice, e.ttftCompared(), e.e2eCompared(), e.withoutTtft(),
          e.withoutE2e(), e.notCompleted(), e.measuredZero());
    }
    w.printf(L, "the replay served %.1f%% of the fitted slice's prompt tokens from a cache (with %s)%n", 100 * r.hitShare(), start.name);
    StagePrint.calibrationTable(w, "fitted binned means (in-sample)", r.fit().points());
    w.println("coefficients:");
    for (String f : r.fit().fitted()) {
      w.printf(L, "  %-26s %.6g +- %.2g (start %.6g)%n", f, Calibrator.get(r.fit().profile(), f), r.fit().sigma().get(f),
          Calibrator.get(start, f));
    }
    if (!r.fit().notIdentifiable().isEmpty()) {
      w.println("  not identified by this trace (kept from " + start.name + "): " + String.join(", ", r.fit().notIdentifiable())
          + String.format(L, " (a 1%% change moves the binned means by less than %s%% on RMS; %.1f%% of the prompt tokens were"
              + " cache hits)", TraceCalibration.MIN_RMS_ELASTICITY, 100 * r.hitShare()));
    }
    w.printf(L, "fit: %d iterations, %d evaluations, RMS log error of the binned means %.4f%n", r.fit().iterations(),
        r.fit().evaluations(), r.fit().rmsError());
    w.println("fitted slice (in-sample, per request): " + TraceCalibration.describe(r.fitError()));
    if (r.heldError() != null) {
      w.println("held-out slice (never fitted, per request): " + TraceCalibration.describe(r.heldError()));
      w.println("held-out slice with " + start.name + " unfitted: " + TraceCalibration.describe(r.heldErrorBase()));
    } else {
      w.println("held-out slice: none (--hold-out-last 0): nothing here measures how the fit predicts other traffic");
    }
  }
}
