package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class BlockChainTest {
  @Test
  void chain_equalPrefixes_giveEqualIdsUpToTheFirstDifference() {
    long[] a = BlockChain.chain(new long[] {1, 2, 3, 4});
    long[] b = BlockChain.chain(new long[] {1, 2, 9, 4});
    assertEquals(a[0], b[0]);
    assertEquals(a[1], b[1]);
    assertNotEquals(a[2], b[2]);
    // same block 4 after different prefixes: the chained id differs
    assertNotEquals(a[3], b[3]);
  }

  @Test
  void chain_firstId_isMixOfSeedAndBlock() {
    long[] a = BlockChain.chain(new long[] {42});
    assertEquals(BlockChain.mix64(BlockChain.SEED, 42), a[0]);
  }

  @Test
  void chain_sameBlockAtDifferentPositions_differs() {
    long[] a = BlockChain.chain(new long[] {7, 7});
    assertNotEquals(a[0], a[1]);
  }
}
