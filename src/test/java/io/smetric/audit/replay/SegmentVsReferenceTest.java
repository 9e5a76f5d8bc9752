package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import org.junit.jupiter.api.Test;

/**
 * Property: the segment-level KV tiers give exactly the results of the block-by-block reference
 * LRU, on random agent-like traces with tight local capacity (eviction cuts segments), a global
 * tier, forks and divergent rewrites, for policies that read the cache state while routing.
 */
class SegmentVsReferenceTest {

  @Test
  void segmentTiers_randomTraces_identicalToBlockReference() {
    int runs = 0;
    long evictingRuns = 0;
    for (long seed = 11; seed <= 20; seed++) {
      ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(seed, 40 + (int) seed, 10, 0.02), true);
      for (Policies p : new Policies[] {Policies.SMETRIC, Policies.CACHE_AFFINITY, Policies.LEAST_LOAD, Policies.SGLANG_CACHE_AWARE}) {
        for (double g : new double[] {0, 0.4, 3.2}) {
          ReplaySettings.Builder sb = ReplayFixtures.settingsBuilder(3, 24 + seed % 5 * 7);
          sb.globalRatio = g;
          sb.profile = sb.profile.with(q -> q.globalReadGBps = 0.05); // slow links so fetches overlap and share them
          sb.globalAggregateGBps = seed % 2 == 0 ? 0.08 : Double.POSITIVE_INFINITY; // aggregate cap binds at 2+ fetches
          sb.instancesPerNode = seed % 3 == 0 ? 2 : 8; // 2 nodes (instances 0-1, 2): the NIC is shared on node 0
          sb.nodeNicGBps = 0.04;
          ReplaySettings s = sb.build();
          SimOutcome fast = ReplayFixtures.run(t, s, p);
          ReplaySettings r = s.with(e -> e.kvModel = ReplaySettings.KvModel.REFERENCE);
          SimOutcome ref = ReplayFixtures.run(t, r, p);
          String ctx = p.cliName() + " seed " + seed + " global " + g;
          assertArrayEquals(ref.instance, fast.instance, ctx);
          assertArrayEquals(ref.localHitBlocks, fast.localHitBlocks, ctx);
          assertArrayEquals(ref.globalHitBlocks, fast.globalHitBlocks, ctx);
          assertArrayEquals(ref.firstToken, fast.firstToken, 0.0, ctx);
          assertArrayEquals(ref.finish, fast.finish, 0.0, ctx);
          assertEquals(ref.metrics, fast.metrics, ctx);
          runs++;
          // the capacity must bind, or the property says nothing about eviction
          if ((double) fast.metrics.get("local_hit_ratio") < idealRatio(t)) evictingRuns++;
        }
      }
    }
    assertEquals(120, runs);
    assertTrue(evictingRuns > 60, "too few runs where eviction mattered: " + evictingRuns);
  }

  private static double idealRatio(ReplayTrace t) {
    ReplaySettings s = ReplayFixtures.settings(1, -1).with(sb -> {
      sb.rateScaling = ReplaySettings.RateScaling.UNIFORM;
      sb.rateScale = 1e-6;
      sb.imbalanceWindowS = 1e9;
    });
    return (double) ReplayFixtures.run(t, s, Policies.LEAST_LOAD).metrics.get("local_hit_ratio");
  }
}
