package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Golden chained ids (issue 30 item 5). BlockChain's mixing is fixed forever: every dataset written
 * so far holds its ids, and a changed constant would make old and new datasets disagree without
 * any test noticing, since the other tests derive their expected ids from {@link BlockChain#chain}
 * itself. The literals below were computed by {@code src/test/golden/golden_hashes.py}, a Python
 * implementation written from the documented algorithm (docs/trace-model.md section 1: c[-1] =
 * "smetric!", c[i] = mix64(c[i-1], b[i]); mix64 = MurmurHash3's fmix64 over SplitMix64's
 * increment), not from this code, and equal the values the code gave on 5 Dec 2026 (commit
 * 63e4666). If one of these fails, the ids of every stored dataset changed: do not update the
 * literal, restore the mixing.
 */
class BlockChainGoldenTest {
  @Test
  void seed_isTheAsciiBytesOfSmetric() {
    assertEquals(ByteBuffer.wrap("smetric!".getBytes(StandardCharsets.US_ASCII)).getLong(), BlockChain.SEED);
    assertEquals(0x736d657472696321L, BlockChain.SEED);
  }

  @Test
  void chain_empty_isEmpty() {
    assertArrayEquals(new long[0], BlockChain.chain(new long[0]));
  }

  @Test
  void chain_oneBlock_matchesTheGoldenValues() {
    assertArrayEquals(new long[] {0x632b5ed55ddb7b83L}, BlockChain.chain(new long[] {0}));
    assertArrayEquals(new long[] {0xe4ecec679370962cL}, BlockChain.chain(new long[] {42}));
  }

  @Test
  void chain_severalBlocks_matchesTheGoldenValues() {
    assertArrayEquals(new long[] {0x1713d972b5f5931fL, 0x1626090c8332932fL, 0xf1451ea67f6b37b8L, 0x4c44aa1b52eaf414L},
        BlockChain.chain(new long[] {1, 2, 3, 4}));
    // same first two blocks: same first two ids; from the third on they part
    assertArrayEquals(new long[] {0x1713d972b5f5931fL, 0x1626090c8332932fL, 0x88273cbd351be476L, 0x9c033921cd32aa4fL},
        BlockChain.chain(new long[] {1, 2, 9, 4}));
  }

  @Test
  void chain_extremeIds_matchTheGoldenValues() {
    // -1, Long.MIN_VALUE, Long.MAX_VALUE: the unsigned overflow of b + gamma is part of the mixing
    assertArrayEquals(new long[] {0x378a12e24e6929ccL, 0xdba5aa796a89115bL, 0xd95d66af211d98a9L},
        BlockChain.chain(new long[] {-1, Long.MIN_VALUE, Long.MAX_VALUE}));
  }

  @Test
  void chainInPlace_givesTheSameGoldenValues() {
    long[] ids = {1, 2, 3, 4, 99};
    BlockChain.chainInPlace(ids, 4);
    assertArrayEquals(new long[] {0x1713d972b5f5931fL, 0x1626090c8332932fL, 0xf1451ea67f6b37b8L, 0x4c44aa1b52eaf414L, 99},
        ids);
  }
}
