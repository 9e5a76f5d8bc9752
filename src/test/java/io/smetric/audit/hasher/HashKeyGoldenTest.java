package io.smetric.audit.hasher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;

/**
 * Golden values of the hasher's salted keys (issue 30 item 5): a hashed dataset is only comparable
 * with another hashed under the same salt if the derivation never changes, so its output is pinned
 * with literals. They were computed by {@code src/test/golden/golden_hashes.py}, a Python
 * implementation written from docs/block-hasher.md ("Key derivation", "Chaining": key = first 16
 * bytes of SHA-256(label || 0x00 || salt) as two little-endian words; ids and blocks SipHash-2-4,
 * checked there against the SipHash paper's vector first), and equal what this code gave on 5 Dec
 * 2026 (commit 63e4666). A failure means every salted dataset changed: restore the derivation,
 * do not update the literal. {@link #fromSalt_equalsAStepByStepDerivation} repeats the derivation
 * in Java, step by step, as a second check that does not go through HashKey's own.
 */
class HashKeyGoldenTest {
  private static final String SALT_A = "unit-test salt, not a secret";
  private static final String SALT_B = "correct horse battery staple 42";
  private static final String SALT_C = "correct horse battery staple 43";
  private static final int[] TOKENS_1_TO_16 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

  private static HashKey key(String salt) {
    return HashKey.fromSalt(salt.getBytes(StandardCharsets.UTF_8));
  }

  private static long block(HashKey k, long prev, int... tokens) {
    return k.block(prev, tokens, 0, tokens.length, new byte[8 + 4 * tokens.length]);
  }

  @Test
  void id_matchesTheGoldenValues() {
    assertEquals(0xaaeb4129de2577bbL, key(SALT_A).id("session-1"));
    assertEquals(0x7222595099f26368L, key(SALT_A).id(""));
    assertEquals(0xc02c714a60f0fab8L, key(SALT_B).id("session-1"));
    assertEquals(0x7df0939b9dd84c9eL, key(SALT_B).id(""));
    assertEquals(0x414af64ce5b7f231L, key(SALT_C).id("session-1"));
  }

  @Test
  void block_matchesTheGoldenValues_firstAndChained() {
    long a0 = block(key(SALT_A), 0, TOKENS_1_TO_16);
    assertEquals(0xe9351ac344a157f8L, a0);
    assertEquals(0x286497e45ed56b5cL, block(key(SALT_A), a0, 100000, 7, 151643));
    long b0 = block(key(SALT_B), 0, TOKENS_1_TO_16);
    assertEquals(0x90e629e9ff41e46bL, b0);
    assertEquals(0x8dc063eb95b9dc35L, block(key(SALT_B), b0, 100000, 7, 151643));
    assertEquals(0xeec50aab19625498L, block(key(SALT_C), 0, TOKENS_1_TO_16));
  }

  @Test
  void id_onDisk_isTheLetterAndSixteenHexDigits() {
    // docs/block-hasher.md: session_id = "s" + hex(SipHash_ids(id)), request_id = "r" + ...
    assertEquals("saaeb4129de2577bb", "s" + LogFields.hex(key(SALT_A).id("session-1")));
    assertEquals("r7222595099f26368", "r" + LogFields.hex(key(SALT_A).id("")));
  }

  @Test
  void fromSalt_dropsTrailingNewlines_sameGoldenValues() {
    assertEquals(0xc02c714a60f0fab8L, key(SALT_B + "\n").id("session-1"));
    assertEquals(0xc02c714a60f0fab8L, key(SALT_B + "\r\n").id("session-1"));
    assertEquals(0x90e629e9ff41e46bL, block(key(SALT_B + "\n"), 0, TOKENS_1_TO_16));
  }

  @Test
  void fromSalt_equalsAStepByStepDerivation() throws Exception {
    for (String salt : new String[] {SALT_A, SALT_B, SALT_C}) {
      long[] b = derive("smetric-audit/block-hasher/blocks/v1", salt);
      long[] i = derive("smetric-audit/block-hasher/ids/v1", salt);
      HashKey raw = HashKey.ofRaw(b[0], b[1], i[0], i[1]);
      HashKey derived = key(salt);
      assertEquals(raw.id("session-1"), derived.id("session-1"), salt);
      assertEquals(block(raw, 0, TOKENS_1_TO_16), block(derived, 0, TOKENS_1_TO_16), salt);
      byte[] msg = "a message".getBytes(StandardCharsets.UTF_8);
      assertEquals(raw.fingerprint(msg), derived.fingerprint(msg), salt);
    }
    // the keys of salt A as the Python script prints them
    assertEquals(0xf6a48236f8b8e70eL, derive("smetric-audit/block-hasher/blocks/v1", SALT_A)[0]);
    assertEquals(0x8be4eb84b07d7f06L, derive("smetric-audit/block-hasher/blocks/v1", SALT_A)[1]);
    assertEquals(0xd79f2dfc469a016aL, derive("smetric-audit/block-hasher/ids/v1", SALT_A)[0]);
    assertEquals(0xb7e8eee663656da6L, derive("smetric-audit/block-hasher/ids/v1", SALT_A)[1]);
  }

  /** SHA-256(label || 0x00 || salt), its first 16 bytes read as two little-endian longs. */
  private static long[] derive(String label, String salt) throws Exception {
    byte[] l = label.getBytes(StandardCharsets.US_ASCII);
    byte[] s = salt.getBytes(StandardCharsets.UTF_8);
    ByteBuffer in = ByteBuffer.allocate(l.length + 1 + s.length).put(l).put((byte) 0).put(s);
    ByteBuffer d = ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(in.array())).order(ByteOrder.LITTLE_ENDIAN);
    return new long[] {d.getLong(0), d.getLong(8)};
  }
}
