package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

class StickinessDiagnosticsTest {
  /**
   * Session A: a0 = [1 2], a1 = [1 2 3] (continues a0), a2 = [1 9] (compacted: shares only block
   * 1 with a0), a3 = [1 9 4] (continues a2, not a0). Session B: b0 = [5 6], b1 = [5 6 7].
   * Follow-ups with their turn 0 in the trace: a1, a2, a3, b1 = 4; continuing turn 0: a1, b1 = 2.
   */
  private static ReplayTrace trace() {
    return ReplayFixtures.trace(Traces.builder()
        .simple("a0", "A", 0, 0.0, 1, 2).simple("b0", "B", 0, 0.5, 5, 6)
        .simple("a1", "A", 1, 10.0, 1, 2, 3).simple("b1", "B", 1, 10.5, 5, 6, 7)
        .simple("a2", "A", 2, 20.0, 1, 9).simple("a3", "A", 3, 30.0, 1, 9, 4), false);
  }

  @Test
  void extendsSessionFirst_compactedFollowUpsDoNot() {
    ReplayTrace t = trace();
    // replay order: a0 b0 a1 b1 a2 a3
    assertTrue(t.extendsSessionFirst(2)); // a1
    assertTrue(t.extendsSessionFirst(3)); // b1
    assertFalse(t.extendsSessionFirst(4)); // a2: common prefix with a0 is 1 block of 2
    assertFalse(t.extendsSessionFirst(5)); // a3
    assertEquals(1, t.commonBlocks(0, 4));
    assertEquals(2, t.commonBlocks(0, 2));
  }

  @Test
  void sessionHash_diagnostics_handCounts() {
    SimOutcome o = ReplayFixtures.run(trace(), ReplayFixtures.settings(4, -1), Policies.SESSION_HASH);
    // session-hash keeps every request of a session on one instance
    assertEquals(1.0, (double) o.metrics.get("stickiness"));
    assertEquals(1.0, (double) o.metrics.get("stickiness_previous"));
    // 2 of the 4 follow-ups continue turn 0
    assertEquals(0.5, (double) o.metrics.get("follow_ups_extending_turn0_share"));
    assertEquals(1.0, (double) o.metrics.get("stickiness_extending_turn0"));
  }
}
