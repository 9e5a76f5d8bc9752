package io.smetric.audit.contract;

/**
 * FNV-1a, 64-bit (Fowler, Noll, Vo; the IETF draft draft-eastlake-fnv): the one implementation of
 * the stable string hash the stages use where an id must become a long the same way on every JVM
 * (String.hashCode is 32-bit): string block ids read by ingest, session keys of the
 * characterization, string keys of the replay. Callers finalise the raw hash themselves (usually
 * with {@link BlockChain#fmix64}), because FNV-1a alone mixes its last bytes poorly. It lives in the
 * model package so that every stage may import it without breaking the one-way dependency rule.
 */
public final class Fnv1a {
  private Fnv1a() {}

  /** The 64-bit offset basis. */
  public static final long OFFSET_BASIS = 0xcbf29ce484222325L;
  /** The 64-bit FNV prime. */
  public static final long PRIME = 0x100000001b3L;

  /** FNV-1a over bytes from the standard offset basis. */
  public static long hash(byte[] bytes) {
    return hash(bytes, OFFSET_BASIS);
  }

  /** FNV-1a over bytes from another starting value (a second, independent key space). */
  public static long hash(byte[] bytes, long basis) {
    long h = basis;
    for (byte b : bytes) {
      h ^= b & 0xff;
      h *= PRIME;
    }
    return h;
  }

  /** FNV-1a over a string's UTF-16 code units (one step per char, not per byte). */
  public static long hashUtf16(CharSequence s) {
    long h = OFFSET_BASIS;
    for (int i = 0; i < s.length(); i++) {
      h ^= s.charAt(i);
      h *= PRIME;
    }
    return h;
  }
}
