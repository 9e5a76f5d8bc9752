package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import org.junit.jupiter.api.Test;

/**
 * Global-tier reads on a cluster of nodes: the instances of a node share its NIC for the remote
 * share of every fetch ((k-1)/k of the bytes on k nodes); a one-node cluster reads from its own
 * DRAM and never touches the NIC.
 *
 * <p>Trace (round robin over 4 instances): a0 (A: blocks 1-8) -> 0, b0 (B: 101-108) -> 1, both
 * written to the global tier; at t=100 b1 -> 2 and a1 -> 3, each fetching its 8-block prefix:
 * 8 x 16 tokens x 1000 B = 128,000 B. Instance links 128 kB/s, so a fetch alone takes 1.0 s.
 */
class GlobalTierTopologyTest {
  private static ReplayTrace trace() {
    return ReplayFixtures.concurrentFetchTrace();
  }

  private static ReplaySettings settings(int perNode, double nicGBps) {
    ReplaySettings s = ReplayFixtures.slowGlobalTier(4).with(sb -> {
      sb.instancesPerNode = perNode;
      sb.nodeNicGBps = nicGBps;
    });
    return s;
  }

  @Test
  void twoFetchesOnOneNode_shareItsNic() {
    // 2 instances per node -> 2 nodes, remote share 1/2. Instances 2 and 3 are node 1: each fetch
    // moves at min(link 128k, NIC 64k / (1/2 x 2 fetches) = 64k) = 64 kB/s -> 2.0 s instead of 1.0 s.
    SimOutcome free = ReplayFixtures.run(trace(), settings(2, Double.POSITIVE_INFINITY), Policies.ROUND_ROBIN);
    SimOutcome nic = ReplayFixtures.run(trace(), settings(2, 64e-6), Policies.ROUND_ROBIN);
    for (int r = 2; r < 4; r++) {
      assertEquals(8, nic.globalHitBlocks[r]);
      assertEquals(1.0, nic.firstToken[r] - free.firstToken[r], 1e-9);
    }
  }

  @Test
  void oneFetchPerNode_getsTheWholeNic() {
    // 1 instance per node -> 4 nodes, remote share 3/4; each fetch is alone on its node:
    // min(link 128k, NIC 96k / (3/4 x 1) = 128k) = 128 kB/s -> 1.0 s, as with no NIC limit.
    SimOutcome free = ReplayFixtures.run(trace(), settings(1, Double.POSITIVE_INFINITY), Policies.ROUND_ROBIN);
    SimOutcome nic = ReplayFixtures.run(trace(), settings(1, 96e-6), Policies.ROUND_ROBIN);
    for (int r = 2; r < 4; r++) assertEquals(free.firstToken[r], nic.firstToken[r], 1e-9);
  }

  @Test
  void oneNodeCluster_readsItsOwnDram_withoutTheNic() {
    // 4 instances per node -> 1 node, remote share 0: even a tiny NIC does not slow the fetches
    SimOutcome free = ReplayFixtures.run(trace(), settings(4, Double.POSITIVE_INFINITY), Policies.ROUND_ROBIN);
    SimOutcome nic = ReplayFixtures.run(trace(), settings(4, 1e-9), Policies.ROUND_ROBIN);
    for (int r = 2; r < 4; r++) assertEquals(free.firstToken[r], nic.firstToken[r], 1e-9);
  }
}
