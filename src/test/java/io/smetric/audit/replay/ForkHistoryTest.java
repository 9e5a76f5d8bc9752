package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.TraceFile;
import io.smetric.audit.testing.Traces;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fork (sub-agent) whose first prompt carries its parent's conversation history is a follow-up
 * to a router that infers the turn from the history in the request (the paper's SMetric), not a
 * first turn. Hand-made trace, 16-token blocks, requests 100 s apart (each finishes long before
 * the next arrives, so every load is 0 at routing time):
 *
 * <pre>
 *   a0  session A, turn 0        blocks 1 2          (system prompt + task, no response yet)
 *   a1  session A, turn 1        blocks 1 2 3 4      (a0 + response + tool result)
 *   f   session F, fork of a1    blocks 1 2 3 4 9    shares 4 blocks with a1 > a1's 2 with a0: history
 *   g   session G, fork of a1    blocks 1 2 8        shares 2 blocks with a1 = a1's 2 with a0: none
 *   h   session H, fork of a0    blocks 1 2 7        its parent is a turn-0 request: no response in it
 * </pre>
 */
class ForkHistoryTest {
  private static ReplayTrace trace() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 10, 1, 2)
        .req("a1", "A", "a0", 1, "tool", 100, 64, 10, 1, 2, 3, 4)
        .req("f", "F", "a1", 0, "subagent", 200, 80, 10, 1, 2, 3, 4, 9)
        .req("g", "G", "a1", 0, "subagent", 300, 48, 10, 1, 2, 8)
        .req("h", "H", "a0", 0, "subagent", 400, 48, 10, 1, 2, 7);
    return ReplayFixtures.trace(b, false);
  }

  @Test
  void forkCarriesHistory_onlyForAForkThatGoesPastItsParentSessionsFirstPrompt() {
    ReplayTrace t = trace();
    assertEquals(1, t.forkParent[2]); // f -> a1
    assertEquals(-1, t.forkParent[1]); // a1 is a follow-up, not a fork
    assertFalse(t.forkCarriesHistory(0));
    assertFalse(t.forkCarriesHistory(1));
    assertTrue(t.forkCarriesHistory(2));
    assertFalse(t.forkCarriesHistory(3));
    assertFalse(t.forkCarriesHistory(4));
  }

  @Test
  void arrowTraceFolder_keepsForkParents(@TempDir Path tmp) {
    ReplayTrace t = trace();
    String dir = tmp.resolve("t.arrow").toString();
    TraceFile.write(t, dir, new Configuration());
    org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {-1, -1, 1, 1, 0}, TraceFile.read(dir, new Configuration()).forkParent);
  }

  @Test
  void smetric_forkWithHistory_sticksToItsParentsInstance() {
    ReplaySettings s = ReplayFixtures.settings(2, 1000);
    SimOutcome o = ReplayFixtures.run(trace(), s, Policies.SMETRIC);
    // a0: turn 0, least load, rotating cursor at 0 -> instance 0 (cursor -> 1); a1: best hit on 0,
    // load 0 <= 1.5 x 0, hit 32 >= 0.5 x est_hit 32 -> 0. f: seen as a follow-up, best hit 64
    // tokens on 0, est_hit = 64 (its prefix shared with a1) -> 0. g: no history, turn 0, least
    // load from cursor 1 -> 1 (cursor -> 0). h: turn 0 -> 0.
    assertEquals(0, o.instance[0]);
    assertEquals(0, o.instance[1]);
    assertEquals(0, o.instance[2]);
    assertEquals(1, o.instance[3]);
    assertEquals(0, o.instance[4]);
  }

  @Test
  void smetric_forkHistoryOff_treatsEveryForkAsAFirstTurn() {
    ReplaySettings s = ReplayFixtures.settings(2, 1000).with(sb -> sb.forkHistoryIsFollowUp = false);
    SimOutcome o = ReplayFixtures.run(trace(), s, Policies.SMETRIC);
    // f is turn 0: least load from cursor 1 -> 1 (cursor -> 0); g -> 0 (cursor -> 1); h -> 1
    assertEquals(0, o.instance[1]);
    assertEquals(1, o.instance[2]);
    assertEquals(0, o.instance[3]);
    assertEquals(1, o.instance[4]);
  }
}
