package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * FNV-1a 64 against the published test vectors (draft-eastlake-fnv, the FNV reference code's
 * test suite), and the UTF-16 form against the byte form where both read the same units.
 */
class Fnv1aTest {
  private static long bytes(String s) {
    return Fnv1a.hash(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void hash_matchesThePublishedVectors() {
    assertEquals(0xcbf29ce484222325L, bytes(""));
    assertEquals(0xaf63dc4c8601ec8cL, bytes("a"));
    assertEquals(0x85944171f73967e8L, bytes("foobar"));
  }

  @Test
  void hashUtf16_equalsTheByteFormOnAscii_andDiffersBeyondIt() {
    assertEquals(bytes("foobar"), Fnv1a.hashUtf16("foobar"));
    // "é" is one UTF-16 unit (0xE9) but two UTF-8 bytes (0xC3 0xA9): the two forms part
    assertNotEquals(bytes("é"), Fnv1a.hashUtf16("é"));
    assertEquals((0xcbf29ce484222325L ^ 0xE9) * 0x100000001b3L, Fnv1a.hashUtf16("é"));
  }

  @Test
  void hash_fromAnotherBasis_isAnotherKeySpace() {
    byte[] b = "r-1".getBytes(StandardCharsets.UTF_8);
    assertNotEquals(Fnv1a.hash(b), Fnv1a.hash(b, 0x84222325cbf29ce4L));
    assertEquals(Fnv1a.hash(b), Fnv1a.hash(b, Fnv1a.OFFSET_BASIS));
  }
}
