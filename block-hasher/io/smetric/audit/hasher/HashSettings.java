package io.smetric.audit.hasher;

import java.io.Serializable;

/**
 * Everything a hashing task needs, shipped to executors. Arrival synthesis for formats without
 * timestamps (docs/block-hasher.md): conversation {@code k} of file {@code f} of {@code n} files
 * starts at {@code (k * n + f) * sessionGapS} and its j-th request comes {@code j * thinkTimeS}
 * later; an OpenAI record without a timestamp, the r-th of its file, arrives at
 * {@code (r * n + f) * sessionGapS}.
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
