package io.smetric.audit.characterize;

import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Fnv1a;

/**
 * 64-bit keys for session ids inside the reuse passes (a long per occurrence instead of a string).
 * FNV-1a over the UTF-8 bytes, finalised with {@link BlockChain#fmix64}; two distinct sessions
 * collide with probability about n^2 / 2^65 (3e-8 for a million sessions). Requests without a
 * session get a key derived from their request id with a different offset, so they never collide
 * by construction with a session of the same name.
 */
final class Hashing {
  private Hashing() {}

  static long session(byte[] utf8) {
    return BlockChain.fmix64(Fnv1a.hash(utf8));
  }

  static long lonelyRequest(byte[] requestIdUtf8) {
    return BlockChain.fmix64(Fnv1a.hash(requestIdUtf8, 0x84222325cbf29ce4L) ^ 0x5bd1e9955bd1e995L);
  }
}
