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

  @Parameters(arity = "0..*", paramLabel = "MEASUREMENTS|TRACE", description = {
      "Measurement files or folders, or shipped:SET (default: each profile's own); or one canonical trace",
      "(a Parquet dataset, an ingest output or a replay --record-trace folder) with recorded routing:",
      "replayed as recorded and compared with its measured TTFT and end-to-end times."})
  List<String> inputs = new ArrayList<>();

  @picocli.CommandLine.Mixin SparkOptions sparkOptions;

  @picocli.CommandLine.Mixin OutputOptions.Optional output;

  @Option(names = "--instances", paramLabel = "N",
      description = "With a TRACE: the cluster size (default: the number of distinct recorded instances).")
  Integer instances;

  @Option(names = "--global-ratio", paramLabel = "G", defaultValue = "0",
      description = "With a TRACE: the global KV tier of the replayed cluster, as a ratio of the local capacity (default: ${DEFAULT-VALUE}, none).")
  double globalRatio;

  @Option(names = "--shadow", paramLabel = "POLICY",
      description = {"With a TRACE: instead of the error report, the shadow-routing report: the trace replayed as recorded,",
          "and at each request's routing moment POLICY (smetric or a variant) asked what it would choose (not executed);",
          "prints agreement, first-turn inference, migrations, hit bytes and the measured TTFT tail by decision class,",
          "and with --out writes shadow.json."})
  String shadow;

  @Option(names = "--overload", paramLabel = "X",
      description = "With --shadow: SMetric's OVERLOAD, not_overloaded(s, l) = l[s] <= X x mean(l) (default: replay's --overload default).")
  Double overload;

  @Option(names = "--hit-ratio", paramLabel = "H",
      description = "With --shadow: SMetric's HIT_RATIO, session_not_evicted = c[s] >= H x est_hit(r) (default: replay's --hit-ratio default).")
  Double hitRatio;

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
    if (inputs.size() == 1 && InputDetection.isCanonicalTrace(inputs.get(0))) return validateTrace(w, inputs.get(0));
    if (output.out() != null || instances != null || shadow != null || overload != null || hitRatio != null) {
      throw new UsageException("--out, --instances, --shadow, --overload and --hit-ratio go with a canonical TRACE argument");
    }
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

  /** validate TRACE: the recorded assignment replayed (as-recorded) against the measured latencies. */
  private int validateTrace(PrintWriter w, String trace) {
    if (profiles.size() > 1) throw new UsageException("with a TRACE, give one --profile");
    if (shadow == null && (overload != null || hitRatio != null)) throw new UsageException("--overload and --hit-ratio go with --shadow");
    var b = new io.smetric.audit.replay.ReplaySettings.Builder();
    if (!profiles.isEmpty()) b.profile = ModelProfile.resolve(profiles.get(0));
    b.globalRatio = globalRatio;
    if (overload != null) b.overload = overload;
    if (hitRatio != null) b.hitRatio = hitRatio;
    io.smetric.audit.replay.ReplaySettings s = b.build();
    org.apache.spark.sql.SparkSession spark = sparkOptions.session("validate");
    // the folder is written after the replay: a taken one is refused before it, as every command does
    output.refuseIfTaken(spark.sparkContext().hadoopConfiguration());
    long t0 = System.nanoTime();
    // the trace and its recorded columns in one read (docs/lab/benchmarks.md, "validate TRACE")
    var loaded = io.smetric.audit.replay.TraceValidation.load(spark, trace);
    var t = loaded.trace();
    var rec = loaded.recorded();
    double loadS = (System.nanoTime() - t0) / 1e9;
    if (shadow != null) return shadowReport(w, spark, trace, t, rec, s);
    var r = io.smetric.audit.replay.TraceValidation.run(t, rec, s, instances, trace);
    double totalS = (System.nanoTime() - t0) / 1e9;
    w.printf(java.util.Locale.ROOT, "== %s: %d requests replayed as recorded on %d instances (%d recorded names; %d without one, "
        + "routed least-load) with profile %s, global ratio %s%n", trace, r.requests(), r.instances(), r.instanceNames().size(),
        r.fallbackRouted(), s.profile.name, globalRatio);
    w.printf(java.util.Locale.ROOT, "compared: TTFT %d, end-to-end %d; not compared: %d without TTFT, %d without end-to-end, "
        + "%d not completed, %d measured as 0 s%n", r.ttftCompared(), r.e2eCompared(), r.withoutTtft(), r.withoutE2e(),
        r.notCompleted(), r.zeroMeasured());
    w.println("error = (simulated - measured) / measured        median   median|e|   p90|e|      n");
    row(w, "TTFT", r.ttft());
    row(w, "end-to-end", r.e2e());
    for (int d = 0; d < 10; d++) {
      row(w, String.format(java.util.Locale.ROOT, "TTFT load decile %d (%.2f-%.2f)", d + 1, r.decileLoad()[d][0], r.decileLoad()[d][1]),
          r.ttftByDecile()[d]);
    }
    for (int d = 0; d < 10; d++) row(w, "end-to-end load decile " + (d + 1), r.e2eByDecile()[d]);
    row(w, "TTFT cache hit", r.ttftHit());
    row(w, "TTFT cache miss", r.ttftMiss());
    row(w, "end-to-end cache hit", r.e2eHit());
    row(w, "end-to-end cache miss", r.e2eMiss());
    w.printf(java.util.Locale.ROOT, "(load: measured requests in flight per instance at arrival; hit: the simulation served part "
        + "of the prompt from a cache) read %.1f s, total %.1f s%n", loadS, totalS);
    if (output.out() != null) {
      try (io.smetric.audit.common.OutputDir dir = output.open(spark.sparkContext().hadoopConfiguration())) {
        io.smetric.audit.report.ValidationReport.write(r.json(), r.errorsByLoadDecile(), dir);
        dir.commit();
      }
      w.println("wrote " + output.out() + "/" + io.smetric.audit.report.ValidationReport.JSON + " and "
          + io.smetric.audit.report.ValidationReport.CHART);
    }
    return 0;
  }

  /** validate TRACE --shadow POLICY: the recorded routing replayed, POLICY asked at each routing moment. */
  private int shadowReport(PrintWriter w, org.apache.spark.sql.SparkSession spark, String trace,
      io.smetric.audit.replay.trace.ReplayTrace t, io.smetric.audit.replay.TraceValidation.Recorded rec,
      io.smetric.audit.replay.ReplaySettings s) {
    var r = io.smetric.audit.replay.ShadowRouting.run(t, rec, s, instances, shadow, trace);
    java.util.Locale L = java.util.Locale.ROOT;
    w.printf(L, "== %s: %d requests replayed as recorded on %d instances; %s asked at each routing moment "
        + "(overload %s, hit ratio %s), not executed; profile %s, global ratio %s%n", trace, r.requests(), r.instances(),
        shadow, s.overload, s.hitRatio, s.profile.name, globalRatio);
    w.printf(L, "agreement with the recorded instance: %d of %d (%s)%n", r.agreed(), r.compared(), share(r.agreed(), r.compared()));
    w.printf(L, "first-turn inference (its turn == 0 vs the trace's): %d of %d right (%s); %d first turns seen as follow-ups, "
        + "%d follow-ups seen as first turns%n", r.turnInferredRight(), r.turnKnown(), share(r.turnInferredRight(), r.turnKnown()),
        r.firstTurnAsFollowUp(), r.followUpAsFirstTurn());
    w.printf(L, "migrations off the instance holding the session's KV: %s would move %d of %d follow-ups (%s); "
        + "the recorded routing moved %d (%s)%n", shadow, r.shadowMigrations(), r.followUps(),
        share(r.shadowMigrations(), r.followUps()), r.recordedMigrations(), share(r.recordedMigrations(), r.followUps()));
    w.printf(L, "hits under the recorded routing: local %d B, global %d B; peak global-tier read %.0f B/s (%s s windows)%n",
        r.localHitBytes(), r.globalHitBytes(), r.globalPeakReadBytesPerS(), r.bandwidthWindowS());
    w.println("decision class                      requests   share  agreed   measured TTFT p50      p90      p99 (s)");
    for (var c : r.classes()) {
      w.printf(L, "  %-32s %8d %7s %7d %14s %8s %8s%n", io.smetric.audit.replay.ShadowRouting.label(c.reason()), c.requests(),
          share(c.requests(), r.requests()), c.agreed(), sec(c.ttft().p50()), sec(c.ttft().p90()), sec(c.ttft().p99()));
    }
    if (output.out() != null) {
      try (io.smetric.audit.common.OutputDir dir = output.open(spark.sparkContext().hadoopConfiguration())) {
        dir.writeString(SHADOW_JSON, io.smetric.audit.common.Json.MAPPER.writeValueAsString(r.json()));
        dir.commit();
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
      w.println("wrote " + output.out() + "/" + SHADOW_JSON);
    }
    return 0;
  }

  static final String SHADOW_JSON = "shadow.json";

  private static String share(long a, long b) {
    return b == 0 ? "-" : String.format(java.util.Locale.ROOT, "%.1f%%", 100.0 * a / b);
  }

  private static String sec(double v) {
    return Double.isNaN(v) ? "-" : String.format(java.util.Locale.ROOT, "%.3f", v);
  }

  private static void row(PrintWriter w, String label, io.smetric.audit.replay.TraceValidation.Stat st) {
    w.printf(java.util.Locale.ROOT, "  %-44s %8s %10s %9s %7d%n", label, pct(st.median()), abs(st.medianAbs()), abs(st.p90Abs()), st.n());
  }

  private static String abs(double v) {
    return Double.isNaN(v) ? "-" : String.format(java.util.Locale.ROOT, "%.1f%%", 100 * v);
  }

  private static String pct(double v) {
    return Double.isNaN(v) ? "-" : String.format(java.util.Locale.ROOT, "%+.1f%%", 100 * v);
  }

  private static double nan(Double v) {
    return v == null ? Double.NaN : v;
  }
}
