package io.smetric.audit.cli;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.hasher.HashJob;
import io.smetric.audit.hasher.HashKey;
import io.smetric.audit.hasher.HashSettings;
import io.smetric.audit.hasher.LogFormat;
import io.smetric.audit.hasher.TokenizerSpec;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The block-hasher's options {@code hash} and {@code audit} share (a picocli mixin): the log format,
 * the tokenizer, the secret salt ({@link SaltOptions}) and how arrivals are synthesised for logs
 * without timestamps. The defaults are {@link HashSettings}' (docs/block-hasher.md), so that an audit
 * of raw logs hashes them exactly as {@code hash} does. The block size is not here: {@code audit}'s
 * --block-size also overrides an ingested trace's.
 */
public final class HashOptions {
  @Option(names = "--log-format", defaultValue = "auto", description =
      "Raw logs: one of ${bundle:default.logFormats}; auto = per file, from its first records. "
          + "Default: ${DEFAULT-VALUE}.")
  String logFormat;

  @Option(names = "--messages-path", paramLabel = "KEY[.KEY...]", description = "Raw logs: the key (dotted for nested keys, e.g. "
      + "traj or request.body.messages) of each record's OpenAI-style message list. A record is then one agent session, "
      + "one request per assistant message (with --log-format openai: one request, its prompt the whole list). "
      + "Default: none; auto finds a record's only message list itself.")
  String messagesPath;

  @Option(names = "--tokenizer", defaultValue = HashSettings.DEFAULT_TOKENIZER, description = "Raw logs: o200k, cl100k (built "
      + "in) or hf:PATH to a Hugging Face tokenizer.json. Default: ${DEFAULT-VALUE}.")
  String tokenizer;

  @Mixin SaltOptions salt;

  @Option(names = "--session-gap-s", defaultValue = "" + HashSettings.DEFAULT_SESSION_GAP_S, description = "Raw logs, synthesised "
      + "arrivals: seconds between conversation starts. Default: ${DEFAULT-VALUE}.")
  double sessionGap;

  @Option(names = "--think-time-s", defaultValue = "" + HashSettings.DEFAULT_THINK_TIME_S, description = "Raw logs, synthesised "
      + "arrivals: seconds between a conversation's requests. Default: ${DEFAULT-VALUE}.")
  double thinkTime;

  @Option(names = "--timestamp-unit", defaultValue = HashSettings.DEFAULT_TIMESTAMP_UNIT, description = "Raw logs: unit of "
      + "numeric log timestamps, s or ms. Default: ${DEFAULT-VALUE}.")
  String timestampUnit;

  @Option(names = "--session-cache", defaultValue = "" + HashSettings.DEFAULT_SESSION_CACHE, description = "Raw OpenAI logs: "
      + "sessions whose last prompt is kept to extend the next one. Default: ${DEFAULT-VALUE}.")
  int sessionCache;

  /** Checks the options before any work starts (usage errors, exit 2). */
  void validate() {
    if (sessionGap < 0 || thinkTime < 0) throw new UsageException("--session-gap-s and --think-time-s must be >= 0");
    timestampUnitS();
    LogFormat f = format();
    if (messagesPath != null) {
      if (f != LogFormat.AUTO && f != LogFormat.MESSAGES && f != LogFormat.OPENAI) {
        throw new UsageException("--messages-path works with --log-format auto, messages or openai, not " + f.cliName);
      }
      io.smetric.audit.hasher.HashSettings.checkMessagesPath(messagesPath);
    }
    salt.validate();
  }

  LogFormat format() {
    return LogFormat.parse(logFormat);
  }

  /** Seconds per unit of a numeric log timestamp. */
  double timestampUnitS() {
    return switch (timestampUnit.toLowerCase(Locale.ROOT)) {
      case "s" -> 1.0;
      case "ms" -> 0.001;
      default -> throw new UsageException("--timestamp-unit must be s or ms");
    };
  }

  /** Whether any arrival option differs from its default (the audit's provenance then records them). */
  boolean arrivalsChanged() {
    return sessionGap != HashSettings.DEFAULT_SESSION_GAP_S || thinkTime != HashSettings.DEFAULT_THINK_TIME_S
        || !timestampUnit.equals(HashSettings.DEFAULT_TIMESTAMP_UNIT) || sessionCache != HashSettings.DEFAULT_SESSION_CACHE;
  }

  /** The hash job's options; the key and tokenizer are resolved with the cluster's configuration. */
  HashJob.Options job(List<String> inputs, HashKey key, Configuration conf, int blockSize, boolean denseIds, boolean jsonl) {
    return new HashJob.Options(inputs, TokenizerSpec.parse(tokenizer, conf), key, blockSize, format(), sessionGap, thinkTime,
        timestampUnitS(), sessionCache, denseIds, jsonl, messagesPath == null ? null : messagesPath.strip());
  }
}
