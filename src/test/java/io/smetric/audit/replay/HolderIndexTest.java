package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.kv.HolderIndex;
import io.smetric.audit.replay.kv.SegmentTier;
import io.smetric.audit.replay.trace.ReplayTrace;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Property: one walk of the holder index answers every instance's probe exactly as that
 * instance's own tier does (the hit, and whether the matched blocks are all referenced), whatever
 * the tiers went through: admissions (pin, insert), releases (unpin) and evictions of any size,
 * including partial cuts of a segment. The replay's results with and without the index are the
 * same by construction of this; SegmentVsReferenceTest checks whole simulations against the
 * block-by-block reference on top.
 */
class HolderIndexTest {

  @Test
  void matchAll_afterRandomAdmissionsReleasesAndEvictions_equalsEachTiersOwnMatch() {
    for (int instances : new int[] {2, 5, 64}) {
      for (long seed = 1; seed <= 3; seed++) {
        ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(seed, 25, 8, 0.02), false);
        HolderIndex index = new HolderIndex(t, instances);
        SegmentTier[] tiers = new SegmentTier[instances];
        IntArrayList[] pinned = new IntArrayList[instances];
        for (int i = 0; i < instances; i++) {
          tiers[i] = new SegmentTier(t, true, index, i);
          pinned[i] = new IntArrayList();
        }
        SplittableRandom rnd = new SplittableRandom(seed * 31 + instances);
        int[] hit = new int[instances];
        long partialHits = 0;
        long fullHits = 0;
        for (int op = 0; op < 3000; op++) {
          int i = rnd.nextInt(instances);
          int kind = rnd.nextInt(10);
          if (kind < 5) { // admit a request: reference its prompt, then make it present
            int r = rnd.nextInt(t.n);
            tiers[i].pin(r);
            tiers[i].insert(r);
            pinned[i].add(r);
          } else if (kind < 8 && !pinned[i].isEmpty()) { // a request finishes
            tiers[i].unpin(pinned[i].removeInt(rnd.nextInt(pinned[i].size())));
          } else { // memory pressure: evict a few blocks, often cutting a segment part-way
            tiers[i].evict(1 + rnd.nextInt(40));
          }
          for (int probe = 0; probe < 3; probe++) {
            int q = rnd.nextInt(t.n);
            index.matchAll(q, tiers, hit);
            boolean[] pinnedAfterWalk = new boolean[instances];
            for (int k = 0; k < instances; k++) pinnedAfterWalk[k] = tiers[k].lastMatchPinned();
            for (int k = 0; k < instances; k++) {
              String ctx = "instances " + instances + " seed " + seed + " op " + op + " request " + q + " instance " + k;
              assertEquals(tiers[k].match(q), hit[k], ctx);
              assertEquals(tiers[k].lastMatchPinned(), pinnedAfterWalk[k], ctx);
              if (hit[k] > 0 && hit[k] < t.blocks[q]) partialHits++;
              if (hit[k] > 0 && hit[k] == t.blocks[q]) fullHits++;
            }
          }
        }
        // the walk must have met both kinds of stop, or the property says little
        assertTrue(partialHits > 100 && fullHits > 100, "partial " + partialHits + ", full " + fullHits);
      }
    }
  }

  @Test
  void index_coversOneTo64Instances() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(1, 3, 2, 0.02), false);
    assertThrows(IllegalArgumentException.class, () -> new HolderIndex(t, 65));
    assertThrows(IllegalArgumentException.class, () -> new HolderIndex(t, 0));
  }
}
