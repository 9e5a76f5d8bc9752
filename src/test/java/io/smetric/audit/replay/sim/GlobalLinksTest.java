package io.smetric.audit.replay.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.ReplaySettings;
import org.junit.jupiter.api.Test;

/**
 * The global-tier link model on a hand-computed transfer, driven directly through its event queue:
 * instance links of 100 B/s, no NIC or aggregate cap, a lookup latency of 0.5 s, 1-second bandwidth
 * windows.
 */
class GlobalLinksTest {
  private final EventQueue ev = new EventQueue();

  private GlobalLinks links(int instances, double aggregateBytesPerS) {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.profile = io.smetric.audit.testing.Profiles.estimate().with(p -> {
        p.globalReadGBps = 100e-9;
        p.globalLookupLatencyS = 0.5;
      });
      sb.instancesPerNode = instances; // one node: no NIC share
      sb.globalAggregateGBps = aggregateBytesPerS * 1e-9;
      sb.bandwidthWindowS = 1;
    });
    return new GlobalLinks(s.profile, s, instances, 4, 0.0, ev);
  }

  /** Runs the link events until the next FETCH_DONE and returns it as {time, instance, request}. */
  private double[] nextFetchDone(GlobalLinks l) {
    while (true) {
      ev.pop();
      if (ev.evType == Event.LINK) l.onLinkEvent(ev.evB, ev.t);
      else if (ev.evType == Event.FETCH_DONE) return new double[] {ev.t, ev.evA, ev.evB};
    }
  }

  @Test
  void twoFetchesOnOneLink_shareItEqually_thenTheLastGetsItAll() {
    // r0: 100 B at t=0, alone until t=0.5 (50 B moved); r1: 25 B from t=0.5, both at 50 B/s:
    // r1 done at t=1.0 (r0 has 25 B left), r0 alone at 100 B/s done at t=1.25; each lands 0.5 s later.
    GlobalLinks l = links(1, Double.POSITIVE_INFINITY);
    l.start(0, 0, 100, 0.0);
    l.start(0, 1, 25, 0.5);
    assertArrayEquals(new double[] {1.5, 0, 1}, nextFetchDone(l), 1e-12);
    assertArrayEquals(new double[] {1.75, 0, 0}, nextFetchDone(l), 1e-12);
    // bytes per 1-s window: [0,1): 50 + 2 x 25 = 100; [1,2): 25
    assertArrayEquals(new double[] {100, 25}, l.bandwidthWindows(), 1e-9);
  }

  @Test
  void anAggregateCap_isSharedByFetchesOnDifferentInstances() {
    // two instances, each link 100 B/s, aggregate 100 B/s: two 50 B fetches from t=0 each move at
    // min(100, 100 / 2) = 50 B/s and end together at t=1.0, in start order, landing at t=1.5
    GlobalLinks l = links(2, 100);
    l.start(0, 2, 50, 0.0);
    l.start(1, 3, 50, 0.0);
    assertArrayEquals(new double[] {1.5, 0, 2}, nextFetchDone(l), 1e-12);
    assertArrayEquals(new double[] {1.5, 1, 3}, nextFetchDone(l), 1e-12);
    assertEquals(1, l.bandwidthWindows().length);
    assertEquals(100, l.bandwidthWindows()[0], 1e-9);
  }

  /**
   * The default aggregate (settings leave it unset): the profile's serving bandwidth per node x the
   * cluster's nodes, shared by every fetch (issue 26 item 5). Per node 60 B/s, links 100 B/s, no NIC
   * limit. Two 90 B fetches from t=0 on instances 0 and 2: on 2 nodes (2 instances each) the tier
   * serves 120 B/s, each fetch moves at min(100, 120 / 2) = 60 B/s and ends at t=1.5 (lands at 2.0);
   * on 1 node (4 instances) it serves 60 B/s, 30 B/s each, ending at t=3.0 (lands at 3.5).
   */
  @Test
  void theProfilesAggregatePerNode_isSharedByTwoInstancesReadingAtOnce() {
    for (int perNode : new int[] {2, 4}) {
      ReplaySettings s = ReplaySettings.defaults().with(sb -> {
        sb.profile = io.smetric.audit.testing.Profiles.estimate().with(p -> {
          p.globalReadGBps = 100e-9;
          p.globalLookupLatencyS = 0.5;
          p.globalAggregateGBpsPerNode = 60e-9;
        });
        sb.instances = 4;
        sb.instancesPerNode = perNode;
        sb.nodeNicGBps = Double.POSITIVE_INFINITY;
        sb.bandwidthWindowS = 1;
      });
      assertEquals(perNode == 2 ? 120e-9 : 60e-9, s.aggregateGBps(), 1e-21);
      EventQueue q = new EventQueue();
      GlobalLinks l = new GlobalLinks(s.profile, s, 4, 4, 0.0, q);
      l.start(0, 0, 90, 0.0);
      l.start(2, 1, 90, 0.0);
      double end = perNode == 2 ? 1.5 : 3.0;
      double[][] done = new double[2][];
      for (int k = 0; k < 2; ) {
        q.pop();
        if (q.evType == Event.LINK) l.onLinkEvent(q.evB, q.t);
        else if (q.evType == Event.FETCH_DONE) done[k++] = new double[] {q.t, q.evA, q.evB};
      }
      assertArrayEquals(new double[] {end + 0.5, 0, 0}, done[0], 1e-12);
      assertArrayEquals(new double[] {end + 0.5, 2, 1}, done[1], 1e-12);
      // bytes per 1-s window: 2 nodes: [0,1) 120, [1,2) 60; 1 node: 60, 60, 60 (60e-9 GB/s x 1e9 is
      // not exactly 60 in binary: a last window of a few ulps may follow)
      double[] want = perNode == 2 ? new double[] {120, 60} : new double[] {60, 60, 60};
      double[] w = l.bandwidthWindows();
      for (int k = 0; k < w.length; k++) assertEquals(k < want.length ? want[k] : 0, w[k], 1e-9);
    }
  }

  /** An explicit aggregate (--global-aggregate-gbps) wins over the profile's; Infinity switches it off. */
  @Test
  void anExplicitAggregate_overridesTheProfile() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> sb.instances = 32);
    assertEquals(4 * s.profile.globalAggregateGBpsPerNode, s.aggregateGBps(), 1e-12);
    s = s.with(sb -> sb.globalAggregateGBps = 50.0);
    assertEquals(50, s.aggregateGBps(), 0);
    s = s.with(sb -> sb.globalAggregateGBps = Double.POSITIVE_INFINITY);
    assertEquals(Double.POSITIVE_INFINITY, s.aggregateGBps(), 0);
  }

  /**
   * The limits replay.json records, by hand for the default profile (1.1 GB/s per instance, 21.75
   * GB/s per node for both the NIC and the tier's serving rate, 8 instances a node): 32 instances
   * = 4 nodes: instances 35.2 GB/s together, NICs 4 x 21.75 / (3/4) = 116 GB/s, tier 87 GB/s,
   * ceiling 35.2; 4 instances = 1 node: no NIC on the path, tier 21.75, ceiling 4.4.
   */
  @Test
  void limits_byHand_forTheDefaultProfile() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> sb.instances = 32);
    var o = GlobalTierLimits.describe(s);
    assertEquals(4, o.get("nodes").asInt());
    assertEquals(35.2, o.get("instances_read_gbps").asDouble(), 1e-9);
    assertEquals(116, o.get("nics_read_gbps").asDouble(), 1e-9);
    assertEquals(87, o.get("aggregate_gbps").asDouble(), 1e-9);
    assertEquals(35.2, o.get("read_ceiling_gbps").asDouble(), 1e-9);
    s = s.with(sb -> sb.instances = 4);
    o = GlobalTierLimits.describe(s);
    assertEquals(1, o.get("nodes").asInt());
    assertEquals(true, o.get("nics_read_gbps").isNull());
    assertEquals(21.75, o.get("aggregate_gbps").asDouble(), 1e-9);
    assertEquals(4.4, o.get("read_ceiling_gbps").asDouble(), 1e-9);
  }
}
