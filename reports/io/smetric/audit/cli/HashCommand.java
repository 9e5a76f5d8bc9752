package io.smetric.audit.cli;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.hasher.HashJob;
import io.smetric.audit.hasher.HashKey;
import io.smetric.audit.hasher.LogFormat;
import io.smetric.audit.hasher.TokenizerSpec;
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
      "Hashes raw chat logs (OpenAI requests, ShareGPT, SWE-agent trajectories) into a canonical trace:",
      "chat template (chatml-tools v1) -> tokens -> blocks -> chained SipHash-2-4 ids under a secret salt.",
      "Writes OUT/trace/ (Parquet), OUT/hash-summary.json and, with --jsonl, OUT/trace.jsonl; no text leaves.",
      "See docs/block-hasher.md."
    })
public final class HashCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin SparkOptions sparkOptions;

  @Parameters(arity = "1..*", paramLabel = "LOGS", description = "Log files, folders (their .jsonl/.json/.traj files) or globs; any Hadoop path.")
  List<String> logs;

  @Option(names = "--log-format", defaultValue = "auto", description = "openai, sharegpt, swe-agent or auto (per file, from the first record's keys). Default: ${DEFAULT-VALUE}.")
  String format;

  @Option(names = "--tokenizer", defaultValue = "o200k", description = "o200k, cl100k (built in) or hf:PATH to a Hugging Face tokenizer.json. Default: ${DEFAULT-VALUE}.")
  String tokenizer;

  @Option(names = "--block-size", defaultValue = "16", description = "Tokens per block. Default: ${DEFAULT-VALUE}.")
  int blockSize;

  @picocli.CommandLine.Mixin SaltOptions salt;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output folder (written atomically).")
  String out;

  @Option(names = "--overwrite", description = "Replace an existing output folder.")
  boolean overwrite;

  @Option(names = "--jsonl", description = "Also write trace.jsonl (smetric JSONL with the source hash_ids).")
  boolean jsonl;

  @Option(names = "--dense-ids", description = "Remap hashes to dense ids 0,1,2... in order of first appearance (as the public traces do).")
  boolean dense;

  @Option(names = "--session-gap-s", defaultValue = "10", description = "Synthesised arrivals: seconds between conversation starts. Default: ${DEFAULT-VALUE}.")
  double sessionGap;

  @Option(names = "--think-time-s", defaultValue = "5", description = "Synthesised arrivals: seconds between a conversation's requests. Default: ${DEFAULT-VALUE}.")
  double thinkTime;

  @Option(names = "--timestamp-unit", defaultValue = "s", description = "Unit of numeric log timestamps: s or ms. Default: ${DEFAULT-VALUE}.")
  String timestampUnit;

  @Option(names = "--session-cache", defaultValue = "256", description = "OpenAI logs: sessions whose last prompt is kept to extend the next one. Default: ${DEFAULT-VALUE}.")
  int sessionCache;

  @Override
  public Integer call() {
    if (blockSize <= 0) throw new UsageException("--block-size must be > 0");
    if (sessionGap < 0 || thinkTime < 0) throw new UsageException("--session-gap-s and --think-time-s must be >= 0");
    salt.validate();
    double unit = switch (timestampUnit.toLowerCase(Locale.ROOT)) {
      case "s" -> 1.0;
      case "ms" -> 0.001;
      default -> throw new UsageException("--timestamp-unit must be s or ms");
    };
    LogFormat fmt = LogFormat.parse(format);
    // an environment salt is checked before Spark starts; a salt file may need the cluster's FS config
    HashKey envKey = salt.envKeyOrNull();
    SparkSession spark = sparkOptions.session("hash");
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    HashKey key = salt.key(envKey, conf);
    TokenizerSpec tok = TokenizerSpec.parse(tokenizer, conf);
    HashJob.Result r = HashJob.execute(spark, new HashJob.Options(logs, tok, key, blockSize, fmt, sessionGap, thinkTime,
        unit, sessionCache, dense, jsonl, out, overwrite));
    PrintWriter w = spec.commandLine().getOut();
    w.printf(Locale.ROOT, "hashed %d requests (%d tokens, %d blocks) from %d file(s); %d record(s) skipped -> %s%n",
        r.requests(), r.summary().get("input_tokens").asLong(), r.summary().get("blocks").asLong(),
        r.summary().get("files").asInt(), r.skipped(), out);
    if (r.skipped() > 0) w.printf(Locale.ROOT, "skip reasons are listed in %s/%s%n", out, HashJob.SUMMARY_FILE);
    w.flush();
    return 0;
  }
}
