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
    ReplaySettings s = new ReplaySettings();
    s.profile = io.smetric.audit.testing.Profiles.estimate();
    s.profile.globalReadGBps = 100e-9;
    s.profile.globalLookupLatencyS = 0.5;
    s.instancesPerNode = instances; // one node: no NIC share
    s.globalAggregateGBps = aggregateBytesPerS * 1e-9;
    s.bandwidthWindowS = 1;
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
}
