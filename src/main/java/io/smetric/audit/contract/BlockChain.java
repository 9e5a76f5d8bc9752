package io.smetric.audit.contract;

/**
 * Prefix identity (trace-model.md section 1): every source id is rewritten into a chained id
 * {@code c[i] = mix64(c[i-1], b[i])} with a fixed {@code c[-1]}, so that equal chained ids mean
 * equal whole prefixes whether the source hashed each block alone (Bailian) or whole prefixes
 * (Mooncake). The mixer is the SplitMix64/Murmur3 finaliser applied twice, a bijection on each
 * argument, so distinct inputs collide only by chance (about 2^-64 per pair).
 */
public final class BlockChain {
  private BlockChain() {}

  /** c[-1]: the ASCII bytes of "smetric!". Fixed forever: changing it changes every dataset. */
  public static final long SEED = 0x736d657472696321L;

  public static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  public static long mix64(long prev, long block) {
    return fmix64(prev ^ fmix64(block + 0x9E3779B97F4A7C15L));
  }

  /** Returns a new array of chained ids for the given source ids. */
  public static long[] chain(long[] source) {
    long[] out = new long[source.length];
    long c = SEED;
    for (int i = 0; i < source.length; i++) {
      c = mix64(c, source[i]);
      out[i] = c;
    }
    return out;
  }

  /** Chains in place; returns the same array. */
  public static long[] chainInPlace(long[] ids, int length) {
    long c = SEED;
    for (int i = 0; i < length; i++) {
      c = mix64(c, ids[i]);
      ids[i] = c;
    }
    return ids;
  }
}
