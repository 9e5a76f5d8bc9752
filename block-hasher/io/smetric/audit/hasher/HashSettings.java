package io.smetric.audit.hasher;

import java.io.Serializable;

/**
 * Everything a hashing task needs, shipped to executors. Arrival synthesis for formats without
 * timestamps (docs/block-hasher.md): conversations are numbered in input order over all files
 * (file by file); conversation i starts at {@code i * sessionGapS} and its j-th request comes
 * {@code j * thinkTimeS} later. OpenAI records without a timestamp are numbered the same way and
 * the i-th arrives at {@code i * sessionGapS}. The tasks store (index in file, offset); HashJob adds
 * the counts of the files before.
 */
public record HashSettings(
    TokenizerSpec tokenizer,
    HashKey key,
    int blockSize,
    LogFormat format,
    double sessionGapS,
    double thinkTimeS,
    double timestampUnitS,
    int fileCount,
    int sessionCacheSize) implements Serializable {

  public static final ChatTemplate TEMPLATE = new ChatMlTemplate();

  public HashSettings {
    if (blockSize <= 0) throw new io.smetric.audit.common.UsageException("--block-size must be > 0");
  }
}
