package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayInvariantsTest {

  /** Ideal reuse per trace-model.md section 2, computed from the raw records with a plain set. */
  private static long idealHitTokens(List<TraceRecord> records) {
    List<TraceRecord> l = new ArrayList<>(records);
    l.sort(Comparator.comparingDouble(TraceRecord::arrivalS).thenComparingLong(TraceRecord::seq));
    LongOpenHashSet seen = new LongOpenHashSet();
    long hit = 0;
    for (TraceRecord r : l) {
      long[] c = r.blocks();
      int use = Math.min(c.length, (r.inputTokens() + r.blockSize() - 1) / r.blockSize());
      int k = 0;
      for (int i = 0; i < use; i++) if (seen.contains(c[i])) k = i + 1;
      hit += Math.min((long) k * r.blockSize(), r.inputTokens());
      for (int i = 0; i < use; i++) seen.add(c[i]);
    }
    return hit;
  }

  @Test
  void oneUnboundedInstance_noOverlap_localHitsEqualIdealReuse() {
    Traces.Builder b = ReplayFixtures.agentTrace(3, 40, 10, 1.0);
    ReplayTrace t = ReplayFixtures.trace(b, false);
    ReplaySettings s = ReplayFixtures.settings(1, -1).with(sb -> {
      sb.rateScaling = ReplaySettings.RateScaling.UNIFORM; // every gap, also inside sessions, stretched
      sb.rateScale = 1e-6; // mean gap 1e6 s: no two requests overlap (checked below)
      sb.imbalanceWindowS = 1e9;
    });
    SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    for (int r = 0; r + 1 < t.n; r++) assertTrue(o.finish[r] <= o.arrival[r + 1], "requests overlap; stretch more");
    long local = 0;
    for (int r = 0; r < t.n; r++) local += t.tokensOf(r, o.localHitBlocks[r]);
    long ideal = idealHitTokens(b.records());
    assertTrue(ideal > 0);
    assertEquals(ideal, local);
    assertEquals((double) ideal / t.totalInputTokens(), (double) o.metrics.get("local_hit_ratio"), 0.0);
  }

  @Test
  void sessionHash_anyTrace_stickinessIsOne() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(4, 60, 8, 0.05), false);
    SimOutcome o = ReplayFixtures.run(t, ReplayFixtures.settings(8, 200), Policies.SESSION_HASH);
    assertEquals(1.0, (double) o.metrics.get("stickiness"), 0.0);
    assertEquals(0L, o.metrics.get("session_migrations"));
  }

  @Test
  void leastLoad_balancedTrace_stickinessNearOneOverN() {
    // 400 sessions interleaved at random: follow-ups land wherever load is least, ~1/4 on their turn-0 instance
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(5, 400, 8, 0.02), false);
    SimOutcome o = ReplayFixtures.run(t, ReplayFixtures.settings(4, -1), Policies.LEAST_LOAD);
    double st = (double) o.metrics.get("stickiness");
    assertTrue(Math.abs(st - 0.25) < 0.06, "stickiness " + st);
  }

  @Test
  void zeroGlobalCapacity_noGlobalHits() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(6, 80, 8, 0.05), false);
    ReplaySettings s = ReplayFixtures.settings(4, 40).with(sb -> sb.globalRatio = 0);
    SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    assertEquals(0.0, (double) o.metrics.get("global_hit_ratio"), 0.0);
    assertEquals(0L, o.metrics.get("global_bytes_read"));
  }

  @Test
  void globalTier_smallLocal_givesGlobalHitsAndBytes() {
    // the converse, so the zero above is not vacuous: same trace and cluster with a 1.6x global tier
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(6, 80, 8, 0.05), false);
    ReplaySettings s = ReplayFixtures.settings(4, 40).with(sb -> sb.globalRatio = 1.6);
    SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    double g = (double) o.metrics.get("global_hit_ratio");
    assertTrue(g > 0, "global hit ratio " + g);
    assertTrue((long) o.metrics.get("global_bytes_read") > 0);
  }

  @Test
  void oneSession_smetric_noMigrations() {
    Traces.Builder b = Traces.builder().blockSize(16);
    long[] h = {1, 2, 3};
    for (int turn = 0; turn < 12; turn++) {
      b.simple("r" + turn, "only", turn, turn * 0.5, h.clone());
      long[] nh = java.util.Arrays.copyOf(h, h.length + 2);
      nh[h.length] = 100 + 2 * turn;
      nh[h.length + 1] = 101 + 2 * turn;
      h = nh;
    }
    ReplayTrace t = ReplayFixtures.trace(b, false);
    SimOutcome o = ReplayFixtures.run(t, ReplayFixtures.settings(4, -1), Policies.SMETRIC);
    assertEquals(0L, o.metrics.get("session_migrations"));
    assertEquals(11L, o.metrics.get("follow_ups"));
  }

  @Test
  void sameInputsAndSeed_identicalOutcomes() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(7, 100, 8, 0.03), false);
    ReplaySettings s = ReplayFixtures.settings(4, 60).with(sb -> sb.globalRatio = 0.8);
    for (Policies p : new Policies[] {Policies.RANDOM, Policies.SMETRIC, Policies.LLM_D}) {
      SimOutcome a = ReplayFixtures.run(t, s, p);
      SimOutcome c = ReplayFixtures.run(t, s.toBuilder().build(), p);
      assertArrayEquals(a.instance, c.instance, p.cliName());
      assertArrayEquals(a.finish, c.finish, 0.0, p.cliName());
      assertEquals(a.metrics, c.metrics, p.cliName());
    }
  }

  @Test
  void noBlocks_hitMetricsAreNotApplicableWithReason() {
    Traces.Builder b = Traces.builder();
    b.add(new TraceRecord("a", null, null, null, "unknown", 0.0, 100, 5, null, null, null, 0));
    b.add(new TraceRecord("b", null, null, null, "unknown", 0.1, 100, 5, null, null, null, 1));
    ReplayTrace t = ReplayFixtures.trace(b, false);
    SimOutcome o = ReplayFixtures.run(t, ReplayFixtures.settings(2, -1), Policies.LEAST_LOAD);
    assertTrue(o.notApplicable.get("local_hit_ratio").contains("no block hashes"));
    assertTrue(o.notApplicable.get("stickiness").contains("no session ids"));
    assertTrue(!o.metrics.containsKey("local_hit_ratio"));
    assertTrue(Policies.SMETRIC.unmet(t).size() == 2 && Policies.SESSION_HASH.unmet(t).size() == 1);
  }

  @Test
  void globalFetches_lateInALongTrace_finish() {
    // at t ~ 1e6 s one ulp of time carries several bytes of a 25 GB/s link: a fetch with a few
    // bytes left must complete instead of rescheduling at the same instant (a livelock once)
    Traces.Builder src = ReplayFixtures.agentTrace(12, 60, 8, 0.02);
    Traces.Builder b = Traces.builder().blockSize(16);
    for (TraceRecord r : src.records()) {
      b.add(new TraceRecord(r.requestId(), r.sessionId(), r.parentId(), r.turn(), r.trigger(), 1e6 + r.arrivalS(),
          r.inputTokens(), r.outputTokens(), r.blockSize(), r.blocks(), null, r.seq()));
    }
    ReplayTrace t = ReplayFixtures.trace(b, false);
    ReplaySettings s = ReplayFixtures.settings(4, 30).with(sb -> {
      sb.globalRatio = 1.6;
      sb.profile = sb.profile.with(p -> p.globalReadGBps = 25);
    });
    SimOutcome o = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
        () -> ReplayFixtures.run(t, s, Policies.LEAST_LOAD));
    assertTrue((double) o.metrics.get("global_hit_ratio") > 0);
  }

  @Test
  void concurrentFetches_shareTheAggregateBandwidth() {
    // r0 (A: blocks 1-8) -> instance 0, r1 (B: 101-108) -> instance 1 (round robin); both written to
    // the global tier. At t=100 B's follow-up goes to 0 and A's to 1: each fetches its 8-block prefix,
    // 8 x 16 tokens x 1000 B = 128,000 B. Per-instance link 128 kB/s: alone 1.0 s. With an aggregate
    // cap of 128 kB/s the two fetches share it: 64 kB/s each, 2.0 s. So first tokens move by 1.0 s.
    ReplayTrace t = ReplayFixtures.concurrentFetchTrace();
    ReplaySettings s = ReplayFixtures.slowGlobalTier(2);
    SimOutcome alone = ReplayFixtures.run(t, s, Policies.ROUND_ROBIN);
    ReplaySettings capped = s.with(sb -> sb.globalAggregateGBps = 128e-6);
    SimOutcome shared = ReplayFixtures.run(t, capped, Policies.ROUND_ROBIN);
    for (int r = 2; r < 4; r++) {
      assertEquals(8, alone.globalHitBlocks[r]);
      assertEquals(1.0, shared.firstToken[r] - alone.firstToken[r], 1e-9);
    }
    // bytes read: 2 x 128,000
    assertEquals(256_000L, shared.metrics.get("global_bytes_read"));
  }
}
