package io.smetric.audit.hasher;

import java.io.Serializable;

/**
 * Everything a hashing task needs, shipped to executors. Arrival synthesis for formats without
 * timestamps (docs/block-hasher.md): conversations are numbered in input order over all files
 * (file by file); conversation i starts at {@code i * sessionGapS} and its j-th request comes
 * {@code j * thinkTimeS} later. OpenAI records without a timestamp are numbered the same way and
 * the i-th arrives at {@code i * sessionGapS}. The tasks store (index in file, offset); HashJob adds
 * the counts of the files before. {@code messagesPath} ({@code --messages-path}, null when not
 * given) is where records keep their message list (MessagesPath).
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
    int sessionCacheSize,
    String messagesPath) implements Serializable {

  public static final ChatTemplate TEMPLATE = new ChatMlTemplate();

  // The hashing options' defaults (docs/block-hasher.md): the hash and audit commands take them from here.
  /** Tokens per block. */
  public static final int DEFAULT_BLOCK_SIZE = 16;
  /** The built-in tokenizer (jtokkit). */
  public static final String DEFAULT_TOKENIZER = "o200k";
  /** Synthesised arrivals: seconds between conversation starts (and between untimestamped records). */
  public static final double DEFAULT_SESSION_GAP_S = 10;
  /** Synthesised arrivals: seconds between a conversation's requests. */
  public static final double DEFAULT_THINK_TIME_S = 5;
  /** Unit of numeric log timestamps: s or ms. */
  public static final String DEFAULT_TIMESTAMP_UNIT = "s";
  /** OpenAI logs: sessions whose last prompt is kept to extend the next one. */
  public static final int DEFAULT_SESSION_CACHE = 256;

  public HashSettings {
    if (blockSize <= 0) throw new io.smetric.audit.common.UsageException("--block-size must be > 0");
    if (messagesPath != null) MessagesPath.parse(messagesPath);
  }

  /** A usage error (exit 2) when {@code path} is not a dotted key path. */
  public static void checkMessagesPath(String path) {
    MessagesPath.parse(path);
  }

  /** Settings without --messages-path. */
  public HashSettings(TokenizerSpec tokenizer, HashKey key, int blockSize, LogFormat format, double sessionGapS,
      double thinkTimeS, double timestampUnitS, int fileCount, int sessionCacheSize) {
    this(tokenizer, key, blockSize, format, sessionGapS, thinkTimeS, timestampUnitS, fileCount, sessionCacheSize, null);
  }
}
