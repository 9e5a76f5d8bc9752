package io.smetric.audit.cli;

import static io.smetric.audit.contract.AuditLayout.CHARACTERIZATION;
import static io.smetric.audit.contract.AuditLayout.HASHED;
import static io.smetric.audit.contract.AuditLayout.INFERRED;
import static io.smetric.audit.contract.AuditLayout.INGEST;
import static io.smetric.audit.contract.AuditLayout.PROVENANCE;
import static io.smetric.audit.contract.AuditLayout.REPLAY;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.characterize.CharacterizationJob;
import io.smetric.audit.characterize.TraceInput;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.IngestSummary;
import io.smetric.audit.hasher.HashJob;
import io.smetric.audit.hasher.HashKey;
import io.smetric.audit.hasher.HashSettings;
import io.smetric.audit.infer.InferenceJob;
import io.smetric.audit.infer.InferenceOptions;
import io.smetric.audit.ingest.IngestJob;
import io.smetric.audit.ingest.TraceFormat;
import io.smetric.audit.measured.MeasuredCacheJob;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.RecordedRouting;
import io.smetric.audit.replay.ReplayJob;
import io.smetric.audit.replay.TraceValidation;
import io.smetric.audit.replay.TraceCalibration;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.AuditPlan;
import io.smetric.audit.replay.trace.TraceLoader;
import io.smetric.audit.report.ReportJob;
import io.smetric.audit.report.verdict.Outcome;
import io.smetric.audit.report.verdict.Verdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code smetric-audit audit TRACE... --instances N --out DIR}: the whole audit in one go. Raw
 * chat logs are hashed, traces ingested; sessions are inferred when the trace has none; then the
 * characterization, the policy replay and the report with its verdict. Every stage writes its
 * usual output into a sub-folder of DIR, and DIR appears only when everything is done.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Audits a workload end to end: ingest (or hash raw chat logs) -> infer sessions if absent ->",
      "characterize -> replay routing policies -> report. Writes DIR/index.html (+ PNG charts),",
      "DIR/audit.json (top-level \"verdict\") and every stage's tables under DIR/ingest, DIR/inferred,",
      "DIR/characterization and DIR/replay. Progress goes to stderr; the verdict to stdout."
    })
public final class AuditCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin SparkOptions sparkOptions;

  @Parameters(arity = "1..*", paramLabel = "TRACE",
      description = "Trace files, folders or globs (any Hadoop FS URI), or raw chat/agent logs.")
  List<String> inputs;

  @Mixin OutputOptions.Required output;

  @Option(names = "--instances", paramLabel = "N",
      description = {"Serving instances of the cluster the trace came from (default: the distinct recorded instances when",
          "the trace records its routing, else " + ReplaySettings.DEFAULT_INSTANCES + "; fewer than recorded is an error)."})
  Integer instancesOption;

  /** The cluster size: --instances, else the recorded instances, else the default (set in call()). */
  int instances;

  /** The trace's recorded routing when more than half of its requests name their instance; else null. */
  RecordedScan recorded;

  @Option(names = "--input-kind", defaultValue = "auto",
      description = "trace, logs (raw chat/agent logs for the block-hasher) or auto: from the first file's first record (default).")
  String inputKind;

  @Option(names = "--format", defaultValue = "auto", description = "Trace format for ingest (see `ingest --help`; default: ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--block-size", description = "Tokens per block (ingest: overrides the trace's own; raw logs: default "
      + HashSettings.DEFAULT_BLOCK_SIZE + ").")
  Integer blockSize;

  @Mixin HashOptions hashing;

  @Option(names = "--infer-sessions", defaultValue = "auto",
      description = "auto (infer when the trace has no session ids, default), always, or never.")
  String inferSessions;

  @Mixin CharacterizationOptions characterization;

  @Option(names = "--no-replay", description = "Skip the policy replay (the verdict is then inconclusive on the replay criteria).")
  boolean noReplay;

  @Mixin ReplayOptions replay;

  @Option(names = "--replay-config", paramLabel = "FILE", description = "JSON/YAML overriding replay settings (see `replay --help`).")
  java.nio.file.Path replayConfig;

  @Option(names = "--criterion", paramLabel = "ID=VALUE",
      description = "Override a criterion's threshold, e.g. --criterion ideal_reuse=0.6 (docs/verdict.md lists the ids).")
  Map<String, Double> criterionOverrides = new LinkedHashMap<>();

  @Option(names = "--fail-on", split = ",", paramLabel = "VERDICT",
      description = "Exit with code 5 when the verdict is one of these (e.g. does-not-fit,inconclusive).")
  List<String> failOn = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    validate();
    ReportJob.Options report = new ReportJob.Options(null, criterionOverrides); // an unknown criterion fails here, before any work
    List<Outcome> failOutcomes = failOn.stream().map(Outcome::parse).toList();
    PrintWriter w = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SparkSession spark = sparkOptions.session("audit");
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    try (OutputDir dir = output.open(conf);
        AuditProgress progress = new AuditProgress(spark, err, noReplay ? 4 : 5, 5000)) {
      String started = Instant.now().toString();
      progress.step("inputs");
      InputDetection.Kind kind = InputDetection.detect(inputs, inputKind, hashing.messagesPath != null, conf);
      boolean logs = kind.logs();
      List<Path> files = kind.files();
      ArrayNode fileNodes = AuditProvenance.checksums(spark, files);
      progress.done(String.format(Locale.ROOT, "%d file(s), %s, checksummed", files.size(), logs ? "raw chat logs" : "trace"));

      String canonical;
      TraceInput input;
      String sessionsMode;
      if (logs) {
        progress.step("hash raw logs");
        HashJob.Result h;
        HashJob job = new HashJob(spark, hashOptions(spark));
        try (OutputDir hdir = OutputDir.open(dir.child(HASHED), false, conf)) {
          h = job.run(hdir);
          hdir.commit();
        }
        progress.done(String.format(Locale.ROOT, "%d requests hashed, %d record(s) skipped", h.requests(), h.skipped()));
        canonical = dir.child(HASHED) + "/" + AuditLayout.TRACE_DIR;
        input = TraceInput.load(spark, canonical);
        sessionsMode = "given";
      } else {
        progress.step("ingest");
        IngestJob.Result r;
        String ingested;
        IngestJob job = new IngestJob(spark, new IngestJob.Options(inputs, TraceFormat.parse(format), blockSize,
            IngestJob.DEFAULT_MAX_LINE_BYTES));
        try (OutputDir idir = OutputDir.open(dir.child(INGEST), false, conf)) {
          r = job.run(idir);
          idir.commit();
          ingested = idir.targetPath().toString();
        }
        progress.done(String.format(Locale.ROOT, "%d read, %d accepted, %d quarantined", r.read(), r.accepted(), r.quarantined()));
        input = TraceInput.load(spark, ingested);
        canonical = input.location();
        IngestSummary.DatasetPart ds = r.summary().dataset();
        boolean noSessions = !ds.hasSessions();
        sessionsMode = noSessions ? "absent" : ds.sessionsMode();
        // inference follows hashed prompt prefixes: a trace with no block ids at all (Azure's CSV:
        // token counts only) has nothing to follow, so auto goes on without sessions
        boolean noBlocks = ds.requestsWithBlocks() != null && ds.requestsWithBlocks() == 0;
        boolean infer = switch (inferSessions) {
          case "always" -> true;
          case "never" -> false;
          default -> noSessions && !noBlocks;
        };
        if (!infer && noSessions && noBlocks && inferSessions.equals("auto")) {
          progress.note("the trace has no session ids and no block ids: sessions cannot be inferred (inference follows"
              + " hashed prompt prefixes), so the audit goes on without sessions; the criteria that need them are not applicable");
        }
        if (infer) {
          progress.note("the trace has " + (noSessions ? "no session ids" : "session ids (--infer-sessions always)")
              + ": inferring sessions by prefix continuation (docs/session-inference.md)");
          try (OutputDir inf = OutputDir.open(dir.child(INFERRED), false, conf)) {
            InferenceJob.Result res = new InferenceJob(spark, input.trace(),
                new InferenceOptions(InferenceOptions.DEFAULT_WINDOW_S, InferenceOptions.DEFAULT_TEMPLATE_FANOUT), null).run(inf);
            inf.commit();
            progress.note("sessions inferred: " + res.summary().sessions());
          }
          canonical = dir.child(INFERRED) + "/" + AuditLayout.TRACE_DIR;
          input = new TraceInput(spark.read().schema(Canonical.SCHEMA).parquet(canonical), canonical, input.ingestSummary());
          sessionsMode = "inferred";
        }
      }

      recorded = RecordedScan.of(spark, TraceLoader.datasetPath(spark, canonical));
      instances = instancesOption != null ? instancesOption
          : recorded != null ? recorded.distinct() : ReplaySettings.DEFAULT_INSTANCES;
      if (recorded != null) {
        if (instances < recorded.distinct()) {
          throw new UsageException("--instances " + instances + ": the trace records " + recorded.distinct()
              + " distinct serving instances (served_instance); give at least that many, or leave --instances out");
        }
        progress.note(String.format(Locale.ROOT, "the trace records its routing (%d of %d requests name their instance, %d distinct):"
            + " %d instances, the judged router is %s", recorded.withInstance(), recorded.requests(), recorded.distinct(), instances,
            replay.currentRouter != null ? replay.currentRouter + " (--current-router)" : Policies.AS_RECORDED.cliName()));
      }
      if (fromTrace() && !noReplay) {
        // before the long work: the fit needs recorded routing and measured latencies
        TraceCalibration.require(TraceCalibration.scan(spark, TraceLoader.datasetPath(spark, canonical)), String.join(" ", inputs),
            "--profile " + TraceCalibration.FROM_TRACE);
      }

      progress.step("characterize");
      // outputs record where the trace will be once the audit folder is committed, not its staging path
      String temp = dir.tempPath().toString();
      String label = canonical.startsWith(temp) ? dir.targetPath() + canonical.substring(temp.length()) : canonical;
      input = new TraceInput(input.trace(), label, input.ingestSummary());
      try (OutputDir cdir = OutputDir.open(dir.child(CHARACTERIZATION), false, conf)) {
        CharacterizationJob.Result c = new CharacterizationJob(spark, input, characterization.options(instances)).run(cdir);
        cdir.commit();
        progress.done(c.line());
      }

      if (MeasuredCacheJob.hasAccounting(input.trace())) {
        // the provider's own cache accounting: predicted against measured hits (trace-model section 9)
        try (OutputDir mdir = OutputDir.open(dir.child(AuditLayout.MEASURED_CACHE), false, conf)) {
          MeasuredCacheJob.Result mc = new MeasuredCacheJob(spark, input.trace()).run(mdir);
          mdir.commit();
          for (JsonNode k : mc.summary().path("by_provider")) {
            progress.note(String.format(Locale.ROOT, "provider cache (%s): measured hit ratio %.2f%%, predicted %.2f%% at its granularity (%d requests)",
                k.path("provider_cache").asText(), 100 * k.path("measured_ratio").asDouble(),
                100 * k.path("predicted_granular_ratio").asDouble(), k.path("requests").asLong()));
          }
        }
      }

      if (!noReplay) {
        progress.step("replay");
        replay(spark, canonical, label, dir.child(REPLAY), dir.child(AuditLayout.OWN_TRAFFIC), progress);
      }

      ObjectNode prov = AuditProvenance.json(this, started, fileNodes, logs, sessionsMode);
      dir.writeString(PROVENANCE, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(prov) + "\n");

      progress.step("report");
      Verdict v = new ReportJob(spark, report.withDisplayName(dir.targetPath().toString())).run(dir.tempPath().toString()).verdict();
      progress.done("verdict " + v.outcome().id());
      dir.commit();
      w.println("verdict: " + v.outcome().id());
      w.println(v.sentence());
      w.println("wrote " + dir.targetPath() + "/index.html and audit.json");
      w.flush();
      if (failOutcomes.contains(v.outcome())) {
        err.println("smetric-audit: the verdict is " + v.outcome().id() + ", which --fail-on names");
        err.flush();
        return ExitCodes.VERDICT_FAILED;
      }
      return ExitCodes.OK;
    }
  }

  private void validate() {
    if (instancesOption != null && instancesOption < 1) throw new UsageException("--instances must be >= 1, got " + instancesOption);
    replay.validate();
    if (!List.of("auto", "trace", "logs").contains(inputKind)) {
      throw new UsageException("--input-kind must be auto, trace or logs, got '" + inputKind + "'");
    }
    if (!List.of("auto", "always", "never").contains(inferSessions)) {
      throw new UsageException("--infer-sessions must be auto, always or never, got '" + inferSessions + "'");
    }
    characterization.validate();
    hashing.validate();
    if (!noReplay && replay.policies != null && !replay.policies.contains("smetric")) {
      throw new UsageException("--policies must include smetric: the verdict compares it with the baselines");
    }
  }

  private HashJob.Options hashOptions(SparkSession spark) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    HashKey key = hashing.salt.key(hashing.salt.envKeyOrNull(), conf);
    return hashing.job(inputs, key, conf, blockSize == null ? HashSettings.DEFAULT_BLOCK_SIZE : blockSize, false, false);
  }

  private void replay(SparkSession spark, String canonical, String label, String replayOut, String ownOut, AuditProgress progress) {
    ReplaySettings.Builder b = new ReplaySettings.Builder();
    AuditPlan.applyPace(b); // the audit's pace: session trees + closed loop, unless a file or an option says otherwise
    if (replayConfig != null) b.read(replayConfig);
    replay.apply(b);
    b.instances = instances;
    ReplaySettings s = b.build();
    s.validate(Policies::checkConfigs);
    var loaded = TraceLoader.load(spark, canonical, false);
    List<String> unmet = Policies.SMETRIC.unmet(loaded);
    if (!unmet.isEmpty()) {
      progress.note("skipped: SMetric cannot run on this trace: " + String.join("; ", unmet));
      return;
    }
    boolean asRecorded = recorded != null && replay.currentRouter == null
        && (replay.policies == null || replay.policies.contains(Policies.AS_RECORDED.cliName()));
    if (recorded != null) {
      // validate TRACE's comparison on the user's own requests, shown beside the verdict
      var rec = TraceValidation.read(spark, TraceLoader.datasetPath(spark, canonical), loaded);
      String fitted = null;
      if (fromTrace()) {
        // calibrate TRACE on the audited trace itself: the replay runs with the fitted costs
        TraceCalibration.Result c = TraceCalibration.run(loaded, rec, s, instances, TraceCalibration.Options.defaults(), label);
        String baseName = s.profile.name;
        ModelProfile p = c.profile().with(pb -> {
          pb.name = TraceCalibration.FROM_TRACE + ":" + baseName;
          pb.description = "Step costs fitted on the audited trace (" + label + ") by calibrate TRACE, starting from " + baseName
              + " (its model and GPU facts kept): " + pb.validation.summary;
        });
        s = s.with(e -> e.profile = p);
        fitted = p.validation.summary + (c.fit().notIdentifiable().isEmpty() ? ""
            : "; not identified by the trace, kept from the base profile: " + String.join(", ", c.fit().notIdentifiable()));
        progress.note("profile from the trace: " + fitted);
      }
      var v = TraceValidation.run(loaded, rec, s, instances, label);
      if (fitted != null) {
        v.json().put("profile_fitted_on_this_trace", "the profile was fitted on this trace's earlier part, so these errors over"
            + " the whole trace are partly in-sample; " + fitted);
      }
      try (OutputDir od = OutputDir.open(ownOut, false, spark.sparkContext().hadoopConfiguration())) {
        od.writeString("validation.json", Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(v.json()) + "\n");
        od.commit();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      progress.note(String.format(Locale.ROOT, "replay as recorded against the measured latencies: TTFT median |error| %s (%d"
          + " compared), end-to-end %s (%d compared)", pct(v.ttft().medianAbs()), v.ttftCompared(), pct(v.e2e().medianAbs()),
          v.e2eCompared()));
      // as-recorded can run as a curve even when --current-router names another judged router
      RecordedRouting routing = new RecordedRouting(loaded, TraceValidation.instanceOf(rec));
      s = s.with(e -> e.recordedRouting = routing);
    }
    boolean custom = replay.customAxes();
    // the audit sweep unless the user chose axes; a policy or ratio axis left out is the audit
    // sweep's (as --policies' help says); without --rate-scale each curve's rates are found by
    // the rate grid (--rate-grid), with it they are exactly those
    List<Policies> pol = replay.policies != null ? replay.policyList() : AuditPlan.POLICIES;
    if (recorded != null && replay.policies == null) {
      pol = new ArrayList<>(pol);
      pol.add(Policies.AS_RECORDED);
    }
    List<Double> gs = replay.globalRatios != null ? replay.globalRatios : AuditPlan.GLOBAL_RATIOS;
    ReplayJob.Options options = !custom ? ReplayJob.Options.audit(s, replay.rateGridMode())
        : replay.rates == null ? ReplayJob.Options.custom(s, replay.rateGridMode(), pol, gs)
        : ReplayJob.Options.grid(s, pol, gs, replay.rates, null, null);
    ReplayJob.Options judged = replay.judging(options.withTraceLabel(label), true);
    if (asRecorded) judged = judged.withCurrentRouter(Policies.AS_RECORDED.cliName());
    ReplayJob job = new ReplayJob(spark, loaded, judged).onProgress(progress::sweep);
    loaded = null; // the job drops the trace once the sweep's tasks can read it from storage
    ReplayJob.TraceSummary ts = job.traceSummary();
    progress.note(String.format(Locale.ROOT, "trace loaded: %d requests, %d sessions, %d segments%s", ts.requests(),
        ts.sessions(), ts.segments(), custom ? "" : "; running the audit sweep"));
    try (OutputDir rd = OutputDir.open(replayOut, false, spark.sparkContext().hadoopConfiguration())) {
      ReplayJob.Result r = job.run(rd);
      rd.commit();
      for (String sk : r.skipped()) progress.note("skipped " + sk);
      progress.done(String.format(Locale.ROOT, "%d simulations in %.1f s", r.runs(), r.wallSeconds()));
    }
  }

  private static String pct(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }

  /** --profile from-trace: the replay's profile is calibrated on the audited trace (TraceCalibration). */
  private boolean fromTrace() {
    return TraceCalibration.FROM_TRACE.equals(replay.profile);
  }
}
