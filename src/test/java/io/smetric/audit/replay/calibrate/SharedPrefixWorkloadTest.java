package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.calibrate.SharedPrefixWorkload.LoadStage;
import io.smetric.audit.replay.calibrate.SharedPrefixWorkload.LoadType;
import io.smetric.audit.replay.calibrate.SharedPrefixWorkload.MultiTurn;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SharedPrefixWorkloadTest {

  private static SharedPrefixWorkload spec(int groups, int per, int sys, int q, int out, MultiTurn mt, List<LoadStage> stages,
      double gap, int block) {
    return new SharedPrefixWorkload(groups, per, sys, q, out, mt, LoadType.CONSTANT, stages, gap, null, block);
  }

  @Test
  void singleTurn_promptsCycleEveryGxP_andShareTheGroupsFullSystemPromptBlocks() {
    // 2 groups x 2 questions, 20 + 10 tokens, blocks of 8: blocks 0-1 = system prompt only,
    // block 2 = 4 system + 4 question tokens, block 3 = the last 6 question tokens (partial)
    SharedPrefixWorkload w = spec(2, 2, 20, 10, 5, MultiTurn.NONE, List.of(new LoadStage(2, 4)), 0, 8);
    List<TraceRecord> rs = w.synthesize(7);
    assertEquals(8, rs.size(), "int(2 req/s x 4 s)");
    for (TraceRecord r : rs) {
      assertEquals(30, r.inputTokens());
      assertEquals(5, r.outputTokens());
      assertEquals(4, r.blocks().length);
      assertNull(r.sessionId());
      assertNull(r.turn());
    }
    for (int n = 0; n < 4; n++) assertArrayEquals(rs.get(n).blocks(), rs.get(n + 4).blocks(), "request " + n + " = request " + (n + 4));
    Set<Long> block0 = new HashSet<>();
    Set<Long> block2 = new HashSet<>();
    for (int n = 0; n < 4; n++) {
      block0.add(rs.get(n).blocks()[0]);
      block2.add(rs.get(n).blocks()[2]);
      for (int m = 0; m < 4; m++) {
        boolean sameGroup = rs.get(n).blocks()[0] == rs.get(m).blocks()[0];
        assertEquals(sameGroup, rs.get(n).blocks()[1] == rs.get(m).blocks()[1], "blocks 0 and 1 are the system prompt");
      }
    }
    assertEquals(2, block0.size(), "two system prompts");
    assertEquals(4, block2.size(), "the block holding the question differs for every prompt");
    // arrivals: exponential gaps scaled to end exactly at the stage end
    double prev = 0;
    for (TraceRecord r : rs) {
      assertTrue(r.arrivalS() > prev);
      prev = r.arrivalS();
    }
    assertEquals(4.0, rs.get(7).arrivalS(), 1e-12);
    assertEquals("s0-7", rs.get(7).requestId());
    ReplayTrace t = ReplayTraceBuilder.fromRecords(rs, false);
    assertEquals(8, t.n);
  }

  @Test
  void stages_restartRequestNumbers_andStartAfterTheGap() {
    SharedPrefixWorkload w = spec(1, 2, 16, 16, 4, MultiTurn.NONE, List.of(new LoadStage(1, 3), new LoadStage(2, 2)), 5, 16);
    List<TraceRecord> rs = w.synthesize(3);
    assertEquals(3 + 4, rs.size());
    assertEquals(List.of(new WorkloadSpec.Stage(0, 0, 3, 1), new WorkloadSpec.Stage(1, 8, 10, 2)), w.stages());
    assertEquals(10.0, w.durationS());
    assertEquals("s1-0", rs.get(3).requestId());
    assertEquals(1, w.stageOf(rs.get(3)));
    assertEquals(0, w.stageOf(rs.get(2)));
    assertTrue(rs.get(3).arrivalS() > 8.0 && rs.get(6).arrivalS() == 10.0);
    // request 0 of stage 1 sends the same prompt as request 0 of stage 0
    assertArrayEquals(rs.get(0).blocks(), rs.get(3).blocks());
  }

  @Test
  void multiTurnPrefixOnce_historyGrowsByOutputAndQuestion_andRoundsChain() {
    // 1 group x 2 users, system 8, question 4, output 4, blocks of 4; 4 requests = 2 rounds x 2 users
    SharedPrefixWorkload w = spec(1, 2, 8, 4, 4, MultiTurn.PREFIX_ONCE, List.of(new LoadStage(1, 4)), 0, 4);
    List<TraceRecord> rs = w.synthesize(11);
    assertEquals(4, rs.size());
    assertEquals(12, rs.get(0).inputTokens(), "system 8 + question 4");
    assertEquals(20, rs.get(2).inputTokens(), "round 0 prompt 12 + response 4 + question 4");
    assertEquals(rs.get(0).sessionId(), rs.get(2).sessionId());
    assertNotEquals(rs.get(0).sessionId(), rs.get(1).sessionId());
    assertEquals(0, rs.get(0).turn());
    assertEquals(1, rs.get(2).turn());
    assertEquals("s0-0", rs.get(2).parentId());
    assertNull(rs.get(0).parentId());
    long[] r0 = rs.get(0).blocks();
    long[] r2 = rs.get(2).blocks();
    assertEquals(5, r2.length);
    for (int b = 0; b < 3; b++) assertEquals(r0[b], r2[b], "round 1 extends round 0's prompt, block " + b);
    // both users start with the group's system prompt (blocks 0-1) and then ask different questions
    assertEquals(r0[1], rs.get(1).blocks()[1]);
    assertNotEquals(r0[2], rs.get(1).blocks()[2]);
  }

  @Test
  void multiTurnVariants_promptLengthsPerRound() {
    List<LoadStage> st = List.of(new LoadStage(1, 4));
    List<TraceRecord> every = spec(1, 2, 8, 4, 4, MultiTurn.PREFIX_EVERY_ROUND, st, 0, 4).synthesize(1);
    assertEquals(12, every.get(0).inputTokens());
    assertEquals(12 + 4 + 12, every.get(2).inputTokens(), "context + response, then system prompt + question again");
    List<TraceRecord> none = spec(1, 2, 8, 4, 4, MultiTurn.NO_PREFIX, st, 0, 4).synthesize(1);
    assertEquals(4, none.get(0).inputTokens(), "no system prompt is ever sent");
    assertEquals(4 + 4 + 4, none.get(2).inputTokens());
    assertNotEquals(none.get(0).blocks()[0], none.get(1).blocks()[0], "without the system prompt users share nothing");
  }

  @Test
  void multiTurnHistory_continuesAcrossStages() {
    SharedPrefixWorkload w = spec(1, 1, 4, 4, 4, MultiTurn.PREFIX_ONCE, List.of(new LoadStage(1, 2), new LoadStage(1, 1)), 1, 4);
    List<TraceRecord> rs = w.synthesize(5);
    assertEquals(3, rs.size());
    assertEquals(List.of(8, 16, 24), rs.stream().map(TraceRecord::inputTokens).toList());
    assertEquals(2, rs.get(2).turn());
    assertEquals("s0-1", rs.get(2).parentId());
  }

  @Test
  void poissonLoad_sendsIntRateTimesDurationRequests_inOrder() {
    SharedPrefixWorkload w = new SharedPrefixWorkload(2, 3, 16, 16, 8, MultiTurn.NONE, LoadType.POISSON,
        List.of(new LoadStage(3.5, 20)), 0, null, 16);
    List<TraceRecord> rs = w.synthesize(9);
    assertEquals(70, rs.size());
    for (int i = 1; i < rs.size(); i++) assertTrue(rs.get(i).arrivalS() >= rs.get(i - 1).arrivalS());
  }

  @Test
  void seeds_areDeterministicAndDistinct() {
    SharedPrefixWorkload w = spec(2, 2, 20, 10, 5, MultiTurn.NONE, List.of(new LoadStage(2, 4)), 0, 8);
    List<TraceRecord> a = w.synthesize(1);
    List<TraceRecord> b = w.synthesize(1);
    List<TraceRecord> c = w.synthesize(2);
    for (int i = 0; i < a.size(); i++) {
      assertArrayEquals(a.get(i).blocks(), b.get(i).blocks());
      assertEquals(a.get(i).arrivalS(), b.get(i).arrivalS());
    }
    assertFalse(a.get(0).blocks()[0] == c.get(0).blocks()[0], "another seed draws other contents");
  }

  @Test
  void invalidSpec_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> spec(0, 2, 20, 10, 5, MultiTurn.NONE, List.of(new LoadStage(2, 4)), 0, 8));
    assertThrows(IllegalArgumentException.class, () -> new LoadStage(0, 10));
    assertThrows(IllegalArgumentException.class, () -> new SharedPrefixWorkload(1, 1, 1, 1, 1, MultiTurn.NONE, LoadType.CONSTANT,
        List.of(new LoadStage(1, 1)), 0, 3, 16));
  }

  @Test
  void shippedMixtralGeneralRun_synthesisesBothStages_withOnlyTheFirstCycleUncached() {
    Measurement m = MeasurementReader.readResource("inference-sim-h100/runs.json").stream()
        .filter(x -> x.id().equals("20260218-130541-mixtral-8x7b-v0-1-tp2-general/stage1")).findFirst().orElseThrow();
    List<TraceRecord> rs = m.workload().synthesize(42);
    assertEquals(4800 + 12000, rs.size());
    assertEquals(12000, rs.stream().filter(r -> m.workload().stageOf(r) == 1).count());
    Set<Long> seenLast = new HashSet<>();
    int newPrompts = 0;
    for (TraceRecord r : rs) {
      assertEquals(570, r.inputTokens());
      if (seenLast.add(r.blocks()[r.blocks().length - 1])) newPrompts++;
    }
    assertEquals(100, newPrompts, "100 distinct prompts, each first sent in the first cycle of stage 0");
    ReplayTrace t = ReplayTraceBuilder.fromRecords(rs, false);
    assertEquals(16800, t.n);
  }
}
