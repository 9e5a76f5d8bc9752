package io.smetric.audit.hasher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class SipHash24Test {
  // key 00 01 .. 0f as two little-endian words, as in the paper's reference test.c
  static final long K0 = 0x0706050403020100L;
  static final long K1 = 0x0f0e0d0c0b0a0908L;

  /** vectors_sip64 of the SipHash reference implementation: message 00 01 .. n-1, n = 0..16. */
  static final long[] VECTORS = {
    0x726fdb47dd0e0e31L, 0x74f839c593dc67fdL, 0x0d6c8009d9a94f5aL, 0x85676696d7fb7e2dL,
    0xcf2794e0277187b7L, 0x18765564cd99a68dL, 0xcbc9466e58fee3ceL, 0xab0200f58b01d137L,
    0x93f5f5799a932462L, 0x9e0082df0ba9e4b0L, 0x7a5dbbc594ddb9f3L, 0xf4b32f46226bada7L,
    0x751e8fbc860ee5fbL, 0x14ea5627c0843d90L, 0xf723ca908e7af2eeL, 0xa129ca6149be45e5L,
    0x3f2acc7f57c29bdbL
  };

  @Test
  void hash_referenceVectors_matchThePaper() {
    byte[] m = new byte[VECTORS.length];
    for (int i = 0; i < m.length; i++) m[i] = (byte) i;
    for (int n = 0; n < VECTORS.length; n++) {
      assertEquals(VECTORS[n], SipHash24.hash(K0, K1, m, 0, n), "length " + n);
    }
  }

  @Test
  void hash_offsetIntoArray_hashesOnlyTheRange() {
    byte[] m = new byte[20];
    for (int i = 0; i < 15; i++) m[i + 3] = (byte) i;
    assertEquals(0xa129ca6149be45e5L, SipHash24.hash(K0, K1, m, 3, 15));
  }

  @Test
  void chainBlock_layout_isPrevLittleEndianThenTokensLittleEndian() {
    // prev = 0x0706050403020100 and tokens {0x0b0a0908, 0x0f0e0d0c} lay out as bytes 00..0f,
    // the reference message of length 16
    byte[] scratch = new byte[8 + 4 * 2];
    long h = SipHash24.chainBlock(K0, K1, 0x0706050403020100L, new int[] {0x0b0a0908, 0x0f0e0d0c}, 0, 2, scratch);
    assertEquals(0x3f2acc7f57c29bdbL, h);
  }

  @Test
  void chainBlock_partialBlock_differsFromTheFullBlockItGrowsInto() {
    byte[] scratch = new byte[8 + 4 * 4];
    int[] t = {1, 2, 3, 4};
    assertNotEquals(SipHash24.chainBlock(K0, K1, 0, t, 0, 3, scratch), SipHash24.chainBlock(K0, K1, 0, t, 0, 4, scratch));
  }
}
