package io.smetric.audit.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.HashSummary;
import io.smetric.audit.hasher.HashJob;
import io.smetric.audit.hasher.HashKey;
import io.smetric.audit.hasher.HashSettings;
import io.smetric.audit.measured.MeasuredCacheJob;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code smetric-audit hash}: raw chat logs to a canonical hashed trace (docs/block-hasher.md).
 * The salt comes from a file or an environment variable, never from the command line, where it
 * would show in the process list and shell history.
 */
@Command(
    name = "hash",
    mixinStandardHelpOptions = true,
    description = {
      "Hashes raw chat and agent logs (OpenAI request and gateway logs, ShareGPT, SWE-agent and mini-SWE-agent",
      "trajectories, Claude Code and Codex CLI session logs, OpenTelemetry GenAI spans, records with a message list",
      "under any key such as tau-bench's traj: --messages-path) into a canonical trace:",
      "chat template (chatml-tools v1) -> tokens -> blocks -> chained SipHash-2-4 ids under a secret salt.",
      "Writes OUT/trace/ (Parquet), OUT/hash-summary.json and, with --jsonl, OUT/trace.jsonl; no text leaves.",
      "See docs/block-hasher.md."
    })
public final class HashCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin SparkOptions sparkOptions;

  @Parameters(arity = "1..*", paramLabel = "LOGS", description = "Log files, folders (their .jsonl/.json/.traj files) or globs; any Hadoop path.")
  List<String> logs;

  @Mixin HashOptions hashing;

  @Option(names = "--block-size", defaultValue = "" + HashSettings.DEFAULT_BLOCK_SIZE, description = "Tokens per block. "
      + "Default: ${DEFAULT-VALUE}.")
  int blockSize;

  @Mixin OutputOptions.Required output;

  @Option(names = "--jsonl", description = "Also write trace.jsonl (smetric JSONL with the source hash_ids).")
  boolean jsonl;

  @Option(names = "--dense-ids", description = "Remap hashes to dense ids 0,1,2... in order of first appearance (as the public traces do).")
  boolean dense;

  @Override
  public Integer call() {
    if (blockSize <= 0) throw new UsageException("--block-size must be > 0");
    hashing.validate();
    // an environment salt is checked before Spark starts; a salt file may need the cluster's FS config
    HashKey envKey = hashing.salt.envKeyOrNull();
    SparkSession spark = sparkOptions.session("hash");
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    HashKey key = hashing.salt.key(envKey, conf);
    HashJob job = new HashJob(spark, hashing.job(logs, key, conf, blockSize, dense, jsonl));
    HashJob.Result r;
    try (OutputDir dir = output.open(conf)) {
      r = job.run(dir);
      dir.commit();
    }
    PrintWriter w = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    w.printf(Locale.ROOT, "hashed %d requests (%d tokens, %d blocks) from %d file(s); %d record(s) skipped -> %s%n",
        r.requests(), r.summary().inputTokens(), r.summary().blocks(), r.summary().files(), r.skipped(), output.out());
    printInputs(r.summary(), w);
    if (r.skipped() > 0) w.printf(Locale.ROOT, "skip reasons are listed in %s/%s%n", output.out(), AuditLayout.HASH_SUMMARY_FILE);
    for (String warning : r.summary().warnings()) err.println("smetric-audit: warning: " + warning);
    if (r.summary().providerCacheRequests() > 0) printMeasured(spark, output.out() + "/" + AuditLayout.TRACE_DIR, w);
    w.flush();
    err.flush();
    return 0;
  }

  /**
   * Per format: how many files, and what the logs lacked and was synthesised or left out (the
   * summary has it per file). Printed for every run, so that nobody reads synthesised arrivals as
   * measured ones.
   */
  static void printInputs(HashSummary summary, PrintWriter w) {
    java.util.Map<String, long[]> files = new java.util.TreeMap<>();
    // per format, per note key: files, times, and that format's sentence (formats word the same key differently)
    java.util.Map<String, java.util.Map<String, Note>> notes = new java.util.TreeMap<>();
    java.util.Map<String, java.util.Map<String, Long>> paths = new java.util.TreeMap<>();
    for (HashSummary.FileEntry f : summary.perFile()) {
      String fmt = f.format();
      long[] c = files.computeIfAbsent(fmt, k -> new long[3]);
      c[0]++;
      if (f.messagesPath() != null) {
        // where the messages were read, and whether the user named it or the hasher found it
        paths.computeIfAbsent(fmt, k -> new java.util.TreeMap<>()).merge(
            f.messagesPath() + " (" + f.messagesPathSource() + ")", 1L, Long::sum);
      }
      c[1] += f.requests();
      c[2] += f.providerCacheRequests();
      for (java.util.Map.Entry<String, HashSummary.Note> e : f.synthesised().entrySet()) {
        Note n = notes.computeIfAbsent(fmt, k -> new java.util.TreeMap<>())
            .computeIfAbsent(e.getKey(), k -> new Note(e.getValue().what()));
        n.files++;
        n.times += e.getValue().count();
      }
    }
    for (java.util.Map.Entry<String, long[]> e : files.entrySet()) {
      long[] c = e.getValue();
      w.printf(Locale.ROOT, "  %s: %d file(s), %d request(s), %d with the provider's cache accounting%n", e.getKey(), c[0], c[1], c[2]);
      for (java.util.Map.Entry<String, Long> p : paths.getOrDefault(e.getKey(), java.util.Map.of()).entrySet()) {
        w.printf(Locale.ROOT, "    messages read from %s in %d file(s)%n", p.getKey(), p.getValue());
      }
      for (Note n : notes.getOrDefault(e.getKey(), java.util.Map.of()).values()) {
        w.printf(Locale.ROOT, "    synthesised or missing, in %d file(s), %d time(s): %s%n", n.files, n.times, n.what);
      }
    }
  }

  /** One format's note of one key: in how many files, how many times, and the format's sentence for it. */
  private static final class Note {
    final String what;
    long files;
    long times;

    Note(String what) {
      this.what = what;
    }
  }

  /** The provider-measured against predicted hit ratio of the hashed trace (docs/block-hasher.md). */
  static void printMeasured(SparkSession spark, String traceDir, PrintWriter w) {
    MeasuredCacheJob.Result m = MeasuredCacheJob.summarize(spark.read().schema(Canonical.SCHEMA).parquet(traceDir));
    for (JsonNode k : m.summary().path("by_provider")) {
      w.printf(Locale.ROOT, "provider cache (%s, %s): %d request(s); measured hit ratio %.2f%%, predicted %.2f%% (ideal) and"
              + " %.2f%% at the provider's granularity: gap %+.2f points (per request: median %+d, p5 %+d, p95 %+d)%n",
          k.path("provider_cache").asText(), k.path("granularity").asText(), k.path("requests").asLong(),
          100 * k.path("measured_ratio").asDouble(), 100 * k.path("predicted_ratio").asDouble(),
          100 * k.path("predicted_granular_ratio").asDouble(), k.path("gap_pp").asDouble(),
          k.path("per_request_gap_pp").path("p50").asInt(), k.path("per_request_gap_pp").path("p5").asInt(),
          k.path("per_request_gap_pp").path("p95").asInt());
    }
  }
}
