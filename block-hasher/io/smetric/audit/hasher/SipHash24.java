package io.smetric.audit.hasher;

/**
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012) over a byte
 * range, and over a chain value followed by token ids. Written here rather than taken from Guava
 * because Spark only ships a relocated Guava that is not API; the reference test vectors of the
 * paper pin it (SipHash24Test).
 */
public final class SipHash24 {
  private SipHash24() {}

  /** SipHash-2-4 of {@code data[off, off+len)} under the 128-bit key (k0, k1), little-endian. */
  public static long hash(long k0, long k1, byte[] data, int off, int len) {
    long v0 = 0x736f6d6570736575L ^ k0;
    long v1 = 0x646f72616e646f6dL ^ k1;
    long v2 = 0x6c7967656e657261L ^ k0;
    long v3 = 0x7465646279746573L ^ k1;
    int end = off + (len & ~7);
    for (int i = off; i < end; i += 8) {
      long m = le64(data, i);
      v3 ^= m;
      for (int r = 0; r < 2; r++) {
        v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
        v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
        v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
        v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      }
      v0 ^= m;
    }
    long b = ((long) len) << 56;
    for (int i = end, s = 0; i < off + len; i++, s += 8) b |= (data[i] & 0xffL) << s;
    v3 ^= b;
    for (int r = 0; r < 2; r++) {
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    }
    v0 ^= b;
    v2 ^= 0xff;
    for (int r = 0; r < 4; r++) {
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    }
    return v0 ^ v1 ^ v2 ^ v3;
  }

  /**
   * The hash of one block in the chain: SipHash-2-4 of the 8 little-endian bytes of the previous
   * block's hash followed by the block's token ids as 4 little-endian bytes each. The length is
   * part of SipHash's final word, so a partial block never equals the full block it grows into.
   * {@code scratch} must hold at least {@code 8 + 4 * len} bytes.
   */
  public static long chainBlock(long k0, long k1, long prev, int[] tokens, int from, int len, byte[] scratch) {
    put64(scratch, 0, prev);
    int p = 8;
    for (int i = from; i < from + len; i++) {
      int t = tokens[i];
      scratch[p] = (byte) t;
      scratch[p + 1] = (byte) (t >>> 8);
      scratch[p + 2] = (byte) (t >>> 16);
      scratch[p + 3] = (byte) (t >>> 24);
      p += 4;
    }
    return hash(k0, k1, scratch, 0, p);
  }

  static long le64(byte[] b, int i) {
    return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24
        | (b[i + 4] & 0xffL) << 32 | (b[i + 5] & 0xffL) << 40 | (b[i + 6] & 0xffL) << 48 | (b[i + 7] & 0xffL) << 56;
  }

  static void put64(byte[] b, int i, long v) {
    for (int k = 0; k < 8; k++) b[i + k] = (byte) (v >>> (8 * k));
  }
}
