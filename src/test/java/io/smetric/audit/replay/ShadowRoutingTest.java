package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.policy.SMetricPolicy.Reason;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shadow report on a hand-made recorded trace of 7 requests on instances gpu-a (0) and gpu-b
 * (1), 16-token blocks, 10 local blocks per instance, SMetric at overload 1.5 and hit ratio 0.5.
 * Worked by hand (l = requests in flight per instance; the round-robin cursor starts at 0):
 * <pre>
 * r  id  session turn  t          blocks        rec   SMetric view                         class       choice
 * 0  a0  A     0     0          1-4           a     turn 0, l=[0,0], cursor 0            FIRST_TURN  0 (cursor 1)
 * 1  a1  A     1     10         1-5           a     c=[64,0], est 64, l=[0,0]            STUCK       0
 * 2  b0  B     0     20         101-104       b     turn 0, l=[0,0], cursor 1            FIRST_TURN  1 (cursor 0)
 * 3  e0  E     0     30         1-5,501       a     fork of a1 carrying its history: a   STUCK       0
 *                                                    follow-up to SMetric; c=[80,0], est 80
 * 4  a2  A     2     30.000001  1-6           a     e0 still in flight: l=[1,0], mean 0.5,  OVERLOADED  1 (cursor 0)
 *                                                    l[0]=1 > 0.75
 * 5  d0  D     0     40         401-409       b     turn 0, l=[0,0], cursor 0; its 9+1    FIRST_TURN  0 (cursor 1)
 *                                                    blocks evict all of B's on gpu-b
 * 6  b1  B     1     50         101-105       b     c=[0,0] < 0.5 x est 64               EVICTED     1 (cursor 0)
 * </pre>
 * Local hits under the recorded routing: a1 4 blocks, e0 5, a2 5, the rest 0: 14 blocks x 16 tokens x 1000 B.
 */
class ShadowRoutingTest {
  private static ShadowRouting.Result r;
  private static ReplayTrace trace;
  private static TraceValidation.Recorded recorded;

  @BeforeAll
  static void run() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .simple("a0", "A", 0, 0.0, 1, 2, 3, 4)
        .simple("a1", "A", 1, 10.0, 1, 2, 3, 4, 5)
        .simple("b0", "B", 0, 20.0, 101, 102, 103, 104)
        .req("e0", "E", "a1", 0, "user", 30.0, 6 * 16, 10, 1, 2, 3, 4, 5, 501)
        .simple("a2", "A", 2, 30.000001, 1, 2, 3, 4, 5, 6)
        .simple("d0", "D", 0, 40.0, 401, 402, 403, 404, 405, 406, 407, 408, 409)
        .simple("b1", "B", 1, 50.0, 101, 102, 103, 104, 105);
    ReplayTrace t = ReplayFixtures.trace(b, false);
    String[] inst = {"gpu-a", "gpu-a", "gpu-b", "gpu-a", "gpu-a", "gpu-b", "gpu-b"};
    double[] ttft = {0.10, 0.05, 0.30, 0.07, 0.50, 9.0, 0.80};
    double[] e2e = {1, 1, 1, 1, 1, 9, 1};
    String[] outcome = {"completed", "completed", null, "completed", "completed", "aborted", "completed"};
    trace = t;
    recorded = new TraceValidation.Recorded(inst, ttft, e2e, outcome);
    r = ShadowRouting.run(t, recorded, settings(), null, "smetric", "hand-made");
  }

  private static ReplaySettings settings() {
    ReplaySettings s = ReplayFixtures.settings(2, 10).with(sb -> sb.profile = sb.profile.with(p -> p.kvBytesPerToken = 1000));
    return s;
  }

  @Test
  void shadowPolicy_notSmetricOrUnknown_isAUsageErrorNamingIt() {
    for (String p : new String[] {"least-load", "no-such-router"}) {
      io.smetric.audit.common.UsageException e = org.junit.jupiter.api.Assertions.assertThrows(
          io.smetric.audit.common.UsageException.class, () -> ShadowRouting.run(trace, recorded, settings(), null, p, "hand-made"));
      org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains(p), e.getMessage());
    }
  }

  @Test
  void eachRequest_decisionAndClass_asWorkedByHand() {
    assertArrayEquals(new int[] {0, 0, 1, 0, 1, 0, 1}, r.choice());
    assertArrayEquals(new Reason[] {Reason.FIRST_TURN, Reason.STUCK, Reason.FIRST_TURN, Reason.STUCK, Reason.OVERLOADED,
        Reason.FIRST_TURN, Reason.EVICTED}, r.reason());
    // the executed routing is the recorded one, never the shadow's
    assertArrayEquals(new int[] {0, 0, 1, 0, 0, 1, 1}, r.outcome().instance);
  }

  @Test
  void agreement_fiveOfSeven() {
    assertEquals(7, r.compared());
    assertEquals(5, r.agreed()); // a2 (overloaded, 1 vs 0) and d0 (round robin 0 vs 1) disagree
    assertEquals(5.0 / 7, r.json().get("agreement").get("share").asDouble(), 1e-12);
  }

  @Test
  void firstTurnInference_forkCarryingHistoryIsTheOneMiss() {
    assertEquals(7, r.turnKnown());
    assertEquals(6, r.turnInferredRight());
    assertEquals(1, r.firstTurnAsFollowUp()); // e0: turn 0 in the trace, a follow-up to SMetric
    assertEquals(0, r.followUpAsFirstTurn());
  }

  @Test
  void migrations_onlyTheOverloadedFollowUpWouldMove() {
    assertEquals(3, r.followUps()); // a1, a2, b1 (e0 is the first of session E)
    assertEquals(1, r.shadowMigrations()); // a2: to gpu-b, off gpu-a where a1 ran
    assertEquals(0, r.recordedMigrations());
  }

  @Test
  void hitBytes_underTheRecordedRouting() {
    assertEquals(14L * 16 * 1000, r.localHitBytes());
    assertEquals(0L, r.globalHitBytes()); // no global tier (ratio 0)
    assertEquals(0.0, r.globalPeakReadBytesPerS());
  }

  @Test
  void globalTier_b1FetchesItsSessionsFourBlocks_andThePeakRateIsThatFetch() {
    // global tier 2 x 2 x 10 = 40 blocks: the 20 prompt blocks of the trace all stay; b1 misses
    // locally (d0 evicted B on gpu-b) and reads 101-104 from it: 4 x 16 x 1000 B = 64,000 B, in
    // 0.5 s at 128 kB/s, inside one 1-s window; the decisions do not change
    ReplaySettings s = settings().with(sb -> {
      sb.globalRatio = 2;
      sb.profile = sb.profile.with(p -> {
        p.globalReadGBps = 128e-6;
        p.globalLookupLatencyS = 0;
      });
      sb.globalAggregateGBps = Double.POSITIVE_INFINITY;
    });
    ShadowRouting.Result g = ShadowRouting.run(trace, recorded, s, null, "smetric", "hand-made");
    assertArrayEquals(r.choice(), g.choice());
    assertArrayEquals(r.reason(), g.reason());
    assertEquals(14L * 16 * 1000, g.localHitBytes());
    assertEquals(4L * 16 * 1000, g.globalHitBytes());
    assertEquals(64_000.0, g.globalPeakReadBytesPerS(), 1e-6);
  }

  @Test
  void classes_countsAgreementAndMeasuredTtftTail() {
    ShadowRouting.ClassRow[] c = r.classes();
    assertEquals(Reason.FIRST_TURN, c[0].reason());
    assertEquals(3, c[0].requests());
    assertEquals(2, c[0].agreed());
    // d0 was aborted: its 9 s is left out; a0 0.10 and b0 0.30 (no outcome counts as measured)
    assertEquals(new ShadowRouting.Tail(2, 0.10, 0.30, 0.30), c[0].ttft());
    assertEquals(2, c[1].requests());
    assertEquals(2, c[1].agreed());
    assertEquals(new ShadowRouting.Tail(2, 0.05, 0.07, 0.07), c[1].ttft());
    assertEquals(1, c[2].requests());
    assertEquals(0, c[2].agreed());
    assertEquals(new ShadowRouting.Tail(1, 0.50, 0.50, 0.50), c[2].ttft());
    assertEquals(1, c[3].requests());
    assertEquals(1, c[3].agreed());
    assertEquals(new ShadowRouting.Tail(1, 0.80, 0.80, 0.80), c[3].ttft());
    assertEquals(3.0 / 7, r.json().get("by_decision_class").get(0).get("share").asDouble(), 1e-12);
  }
}
