package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import io.smetric.audit.testing.Traces;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayTraceBuilderTest {

  private static List<TraceRecord> sorted(Traces.Builder b) {
    List<TraceRecord> l = new ArrayList<>(b.records());
    l.sort(Comparator.comparingDouble(TraceRecord::arrivalS).thenComparingLong(TraceRecord::seq));
    return l;
  }

  @Test
  void segmentPaths_randomAgentTraces_reproduceEveryPromptsChainedIds() {
    for (long seed = 1; seed <= 5; seed++) {
      Traces.Builder b = ReplayFixtures.agentTrace(seed, 30, 12, 1.0);
      ReplayTrace t = ReplayTraceBuilder.fromRecords(b.records(), true);
      List<TraceRecord> recs = sorted(b);
      for (int r = 0; r < t.n; r++) {
        long[] c = recs.get(r).blocks();
        int k = Math.min(c.length, (recs.get(r).inputTokens() + 15) / 16);
        assertArrayEquals(Arrays.copyOf(c, k), t.blockIds(r), "request " + r + " seed " + seed);
      }
      assertTrue(t.segments < 3 * t.n, "segments should be O(requests): " + t.segments + " for " + t.n);
    }
  }

  @Test
  void estHit_isCommonPrefixWithPreviousRequestOfSession() {
    Traces.Builder b = ReplayFixtures.agentTrace(9, 20, 10, 1.0);
    ReplayTrace t = ReplayTraceBuilder.fromRecords(b.records(), true);
    List<TraceRecord> recs = sorted(b);
    int checked = 0;
    for (int r = 0; r < t.n; r++) {
      int prev = t.prevInSession[r];
      if (prev < 0) {
        assertEquals(0, t.estHitBlocks[r]);
        continue;
      }
      long[] a = t.blockIds(r);
      long[] p = t.blockIds(prev);
      int k = 0;
      while (k < a.length && k < p.length && a[k] == p[k]) k++;
      assertEquals(k, t.estHitBlocks[r], "request " + recs.get(r).requestId());
      checked++;
    }
    assertTrue(checked > 50);
  }

  @Test
  void blockCountMismatch_usesFirstCeilBlocksAndIsCounted() {
    // 40 tokens at B=16 -> ceil = 3 blocks, but 5 ids given: the replay uses 3 and counts one mismatch
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a", "s", null, 0, "user", 0.0, 40, 5, 1, 2, 3, 4, 5);
    ReplayTrace t = ReplayTraceBuilder.fromRecords(b.records(), true);
    assertEquals(3, t.blocks[0]);
    assertEquals(1, t.blockCountMismatches);
  }

  @Test
  void diverging_andPrefixEnding_requestsSplitSegments() {
    // a: 1 2 3 4; b: 1 2 9 (diverges after 2); c: 1 2 (ends inside) -> segments [1 2] [3 4] [9]
    Traces.Builder b = Traces.builder()
        .simple("a", "s1", 0, 0.0, 1, 2, 3, 4)
        .simple("b", "s2", 0, 1.0, 1, 2, 9)
        .simple("c", "s3", 0, 2.0, 1, 2);
    ReplayTrace t = ReplayTraceBuilder.fromRecords(b.records(), false);
    assertEquals(3, t.segments);
    assertEquals(2, t.pathOff[1] - t.pathOff[0]); // a = [1 2][3 4]
    assertEquals(1, t.pathOff[3] - t.pathOff[2]); // c = [1 2]
    assertEquals(t.pathNodes[t.pathOff[0]], t.pathNodes[t.pathOff[2]]);
  }
}
