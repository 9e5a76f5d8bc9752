package io.smetric.audit.replay.calibrate;

import io.smetric.audit.contract.BlockChain;
import java.util.Arrays;

/**
 * Turns a prompt described as a sequence of content segments (a content key and a token count)
 * into chained block ids, trace-model section 1: block i covers tokens [i*B, min((i+1)*B, n)); its
 * source id mixes the (key, offset, length) of every segment piece it covers, so two prompts get the
 * same id for block i exactly when their tokens up to the end of block i are the same contents.
 * Keys must be unique per distinct content (a system prompt, a question, a response).
 */
final class PromptBlocks {
  private long[] keys = new long[8];
  private int[] lens = new int[8];
  private int n;
  private long tokens;

  void clear() {
    n = 0;
    tokens = 0;
  }

  PromptBlocks add(long key, int length) {
    if (length < 0) throw new IllegalArgumentException("negative segment length " + length);
    if (length == 0) return this;
    if (n == keys.length) {
      keys = Arrays.copyOf(keys, 2 * n);
      lens = Arrays.copyOf(lens, 2 * n);
    }
    keys[n] = key;
    lens[n] = length;
    n++;
    tokens += length;
    return this;
  }

  /** Appends every segment of {@code other} (a session's context followed by the new text). */
  PromptBlocks addAll(PromptBlocks other) {
    for (int i = 0; i < other.n; i++) add(other.keys[i], other.lens[i]);
    return this;
  }

  PromptBlocks copy() {
    PromptBlocks c = new PromptBlocks();
    c.addAll(this);
    return c;
  }

  int tokens() {
    if (tokens > Integer.MAX_VALUE) throw new IllegalStateException("prompt longer than 2^31 tokens");
    return (int) tokens;
  }

  long[] chainedBlocks(int blockSize) {
    int total = tokens();
    int nb = (int) ((total + (long) blockSize - 1) / blockSize);
    long[] out = new long[nb];
    int seg = 0;
    int offInSeg = 0;
    for (int b = 0; b < nb; b++) {
      int need = Math.min(blockSize, total - b * blockSize);
      long h = 0x5eed_b10c_0000_0000L;
      while (need > 0) {
        int take = Math.min(need, lens[seg] - offInSeg);
        h = BlockChain.mix64(h, keys[seg]);
        h = BlockChain.mix64(h, offInSeg);
        h = BlockChain.mix64(h, take);
        need -= take;
        offInSeg += take;
        if (offInSeg == lens[seg]) {
          seg++;
          offInSeg = 0;
        }
      }
      out[b] = h;
    }
    return BlockChain.chainInPlace(out, nb);
  }

  /** A content key from a tag and up to three integers, salted with the synthesis seed. */
  static long key(long seed, long tag, long a, long b, long c) {
    long h = BlockChain.mix64(seed, tag);
    h = BlockChain.mix64(h, a);
    h = BlockChain.mix64(h, b);
    return BlockChain.mix64(h, c);
  }
}
