package io.smetric.audit.characterize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.CharacterizationTables;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** Hand-built traces; every expected number is worked out in the comments (block size 16). */
class CharacterizationTest {
  private static final double EPS = 1e-12;

  static ObjectNode analyze(Dataset<Row> ds, Characterization.Options o) {
    return analyze(ds, o, r -> {});
  }

  static ObjectNode analyze(Dataset<Row> ds, Characterization.Options o, Consumer<Characterization.Result> tables) {
    try (Characterization.Result r =
        new Characterization(TestSpark.get(), new TraceInput(ds, "test", null), o).execute()) {
      tables.accept(r);
      return r.json();
    }
  }

  static double v(JsonNode n, String... path) {
    JsonNode x = n;
    for (String p : path) x = x.path(p);
    assertTrue(x.has("value") && !x.get("value").isNull(), "expected a value at " + String.join(".", path) + ": " + x);
    return x.get("value").asDouble();
  }

  static String na(JsonNode n, String... path) {
    JsonNode x = n;
    for (String p : path) x = x.path(p);
    assertTrue(x.get("value").isNull(), "expected null at " + String.join(".", path) + ": " + x);
    return x.get("not_applicable").asText();
  }

  // ---------- two sessions sharing a template ----------
  // a0 t=0  session A turn 0: raw [1,2,3]     48 tokens
  // b0 t=5  session B turn 0: raw [1,2,6]     48 tokens
  // a1 t=10 session A turn 1: raw [1,2,3,4,5] 80 tokens
  // b0 hits c1,c12 (seen in a0): 32 tokens, first in B -> template if K<=2 (c1,c12 are in the
  //   turn-0 requests of A and B), else inter-session; interval 5 s each.
  // a1 hits c1,c12,c123: 48 tokens, intra (A had them at t=0). Intervals: c1,c12 -> latest earlier
  //   request holding them is b0 (t=5): 5 s; c123 -> a0: 10 s.
  // hits 80 / prefill 176; blocks 5 hit of 3+3+5 = 11.
  static Traces.Builder template() {
    return Traces.builder()
        .simple("a0", "A", 0, 0, 1, 2, 3)
        .simple("b0", "B", 0, 5, 1, 2, 6)
        .simple("a1", "A", 1, 10, 1, 2, 3, 4, 5);
  }

  private static ObjectNode templateKTwo;

  /** template() analysed with K = 2 (one instance, 100 s threshold): two tests read it, it is computed once. */
  static synchronized ObjectNode templateKTwo() {
    if (templateKTwo == null) {
      templateKTwo = analyze(template().toDataset(TestSpark.get()), new Characterization.Options(1, 2, 100));
    }
    return templateKTwo;
  }

  @Test
  void twoSessionsSharingTemplate_kTwo_sharesSplitIntraAndSystemPrompt() {
    ObjectNode j = templateKTwo();
    assertEquals(80.0 / 176, v(j, "reuse", "token_weighted"), EPS);
    assertEquals(5.0 / 11, v(j, "reuse", "block_weighted"), EPS);
    assertEquals(48.0 / 80, v(j, "reuse_by_source", "intra_session", "share_of_hit_tokens"), EPS);
    assertEquals(32.0 / 80, v(j, "reuse_by_source", "system_prompt", "share_of_hit_tokens"), EPS);
    assertEquals(0.0, v(j, "reuse_by_source", "inter_session", "share_of_hit_tokens"), EPS);
    assertEquals(32.0 / 176, v(j, "reuse_by_source", "system_prompt", "share_of_prefill_tokens"), EPS);
  }

  @Test
  void twoSessionsSharingTemplate_defaultK3_sharedPrefixIsInterSession() {
    ObjectNode j = analyze(template().toDataset(TestSpark.get()), Characterization.Options.defaults(1));
    assertEquals(0.0, v(j, "reuse_by_source", "system_prompt", "share_of_hit_tokens"), EPS);
    assertEquals(32.0 / 80, v(j, "reuse_by_source", "inter_session", "share_of_hit_tokens"), EPS);
  }

  @Test
  void twoSessionsSharingTemplate_intervals_useLatestRequestOfAnySession() {
    ObjectNode j = templateKTwo();
    // all: 64 tokens at 5 s (b0's 32 + a1's c1,c12), 16 at 10 s. p50: cum >= 40 -> 5; p90: >= 72 -> 10.
    assertEquals(5.0, v(j, "reuse_interval", "all", "p50_s"), EPS);
    assertEquals(10.0, v(j, "reuse_interval", "all", "p90_s"), EPS);
    assertEquals(10.0, v(j, "reuse_interval", "all", "p99_s"), EPS);
    // intra: 32 at 5 s, 16 at 10 s. p50: >= 24 -> 5; p90: >= 43.2 -> 10.
    assertEquals(5.0, v(j, "reuse_interval", "intra_session", "p50_s"), EPS);
    assertEquals(10.0, v(j, "reuse_interval", "intra_session", "p90_s"), EPS);
    assertEquals(5.0, v(j, "reuse_interval", "system_prompt", "p99_s"), EPS);
    assertEquals(1.0, v(j, "reuse_interval", "all", "share_within_threshold"), EPS);
    assertEquals("no hit tokens from this source", na(j, "reuse_interval", "inter_session", "p50_s"));
  }

  @Test
  void twoSessionsSharingTemplate_onePartitionPerRequest_sameNumbers() {
    // Every request alone in its partition: every reused block becomes multi-fragment.
    ObjectNode one = analyze(template().toDataset(TestSpark.get()).coalesce(1), new Characterization.Options(1, 2, 100));
    ObjectNode many = analyze(template().toDataset(TestSpark.get()).repartition(3, org.apache.spark.sql.functions.col(Canonical.REQUEST_ID)),
        new Characterization.Options(1, 2, 100));
    for (String s : new String[] {"intra_session", "system_prompt", "inter_session"}) {
      assertEquals(one.path("reuse_by_source").path(s).path("hit_tokens").asLong(),
          many.path("reuse_by_source").path(s).path("hit_tokens").asLong(), s);
    }
    assertEquals(one.path("reuse_interval"), many.path("reuse_interval"));
  }

  // ---------- a three-turn session ----------
  // r0 t=0  turn 0 user  in=20 raw [1,2]      tokens 16+4
  // r1 t=30 turn 1 tool  in=40 raw [1,5,6]    tokens 16+16+8   hit c1 -> 16 tokens, interval 30 s
  // r2 t=90 turn 2 tool  in=56 raw [1,5,8,9]  tokens 16*3+8    hit c1,c15 -> 32 tokens, 60 s each
  // hits 48 / prefill 116; blocks 3 of 9.
  static Traces.Builder threeTurns() {
    return Traces.builder()
        .req("r0", "S", null, 0, "user", 0, 20, 5, 1, 2)
        .req("r1", "S", "r0", 1, "tool", 30, 40, 5, 1, 5, 6)
        .req("r2", "S", "r1", 2, "tool", 90, 56, 5, 1, 5, 8, 9);
  }

  @Test
  void threeTurnSession_reuseOverallPerTurnPerMinute() {
    List<Row> turns = new ArrayList<>();
    List<Row> minutes = new ArrayList<>();
    ObjectNode j = analyze(threeTurns().toDataset(TestSpark.get()), Characterization.Options.defaults(1), r -> {
      turns.addAll(r.tables().get(CharacterizationTables.T_REUSE_TURN).toDataset(TestSpark.get()).orderBy(Cols.TURN).collectAsList());
      minutes.addAll(r.tables().get(CharacterizationTables.T_REUSE_MINUTE).toDataset(TestSpark.get()).orderBy(Cols.MINUTE).collectAsList());
    });
    assertEquals(48.0 / 116, v(j, "reuse", "token_weighted"), EPS);
    assertEquals(3.0 / 9, v(j, "reuse", "block_weighted"), EPS);
    assertEquals(1.0, v(j, "reuse_by_source", "intra_session", "share_of_hit_tokens"), EPS);
    // per turn: 0/20, 16/40, 32/56
    assertEquals(0.0, turns.get(0).getDouble(turns.get(0).fieldIndex(Cols.REUSE_TOKEN)), EPS);
    assertEquals(0.4, turns.get(1).getDouble(turns.get(1).fieldIndex(Cols.REUSE_TOKEN)), EPS);
    assertEquals(32.0 / 56, turns.get(2).getDouble(turns.get(2).fieldIndex(Cols.REUSE_TOKEN)), EPS);
    // per minute: minute 0 (t=0, 30) 16/60; minute 1 (t=90) 32/56
    assertEquals(2, minutes.size());
    assertEquals(16.0 / 60, minutes.get(0).getDouble(minutes.get(0).fieldIndex(Cols.REUSE_TOKEN)), EPS);
    assertEquals(32.0 / 56, minutes.get(1).getDouble(minutes.get(1).fieldIndex(Cols.REUSE_TOKEN)), EPS);
  }

  @Test
  void threeTurnSession_sessionStructure() {
    ObjectNode j = analyze(threeTurns().toDataset(TestSpark.get()), Characterization.Options.defaults(2));
    assertEquals(1.0 / 3, v(j, "sessions", "first_turn_fraction"), EPS);
    assertEquals(1.0 / 3, v(j, "sessions", "trigger_mix", "all_requests", "user"), EPS);
    assertEquals(2.0 / 3, v(j, "sessions", "trigger_mix", "all_requests", "tool"), EPS);
    assertEquals(1.0, v(j, "sessions", "trigger_mix", "follow_ups", "tool"), EPS);
    assertEquals(0.0, v(j, "sessions", "trigger_mix", "follow_ups", "user"), EPS);
    assertEquals(3.0, v(j, "sessions", "turns_per_session", "p50"), EPS);
    assertEquals(90.0, v(j, "sessions", "duration_s", "p50"), EPS);
    // think times 30 s (r1 - r0) and 60 s (r2 - r1): nearest rank p50 = sorted[ceil(1) - 1] = 30
    assertEquals(30.0, v(j, "sessions", "think_time_s", "p50"), EPS);
    assertEquals(60.0, v(j, "sessions", "think_time_s", "p90"), EPS);
    assertEquals(45.0, v(j, "sessions", "think_time_s", "mean"), EPS);
    // one session holds all tokens: top ceil(0.25) = 1 session -> share 1, Gini of one item 0
    assertEquals(1.0, v(j, "sessions", "token_skew", "top_25pct_share"), EPS);
    assertEquals(0.0, v(j, "sessions", "token_skew", "gini"), EPS);
    // arrivals 0..90: whole minutes m in [ceil(0/60), floor(90/60) - 1] = [0, 0]; minute 0 holds
    // t=0 and t=30: 2 arrivals / 2 instances = 1.0
    assertEquals(1, j.path("request_instance_ratio").path("whole_minutes").asInt());
    assertEquals(1.0, v(j, "request_instance_ratio", "mean"), EPS);
    assertEquals(1.0, v(j, "request_instance_ratio", "p5"), EPS);
  }

  // ---------- a re-used block after a long gap, and the 1-microsecond rounding ----------
  // x0 t=0.1   session X: raw [1,2]      32 tokens
  // y0 t=100.1 session Y: raw [1,2,3]    hits c1,c12 from x0: 32 tokens inter-session; 100.1 - 0.1 =
  //            100.00000000000001 in doubles, 100 s after rounding to 1 us -> within 100 s
  // y1 t=360.1 session Y: raw [1,2,3,4]  hits c1,c12,c123 (latest holder y0): 48 tokens intra, 260 s
  // all: 32 @ 100 s, 48 @ 260 s: share within 100 s = 32/80; p50 (cum >= 40) = 260
  @Test
  void reuseAfterLongGap_intervalsAndShareWithinThreshold() {
    Dataset<Row> ds = Traces.builder()
        .simple("x0", "X", 0, 0.1, 1, 2)
        .simple("y0", "Y", 0, 100.1, 1, 2, 3)
        .simple("y1", "Y", 1, 360.1, 1, 2, 3, 4)
        .toDataset(TestSpark.get());
    ObjectNode j = analyze(ds, Characterization.Options.defaults(1));
    assertEquals(0.4, v(j, "reuse_interval", "all", "share_within_threshold"), EPS);
    assertEquals(260.0, v(j, "reuse_interval", "all", "p50_s"), EPS);
    assertEquals(100.0, v(j, "reuse_interval", "inter_session", "p99_s"), EPS);
    assertEquals(260.0, v(j, "reuse_interval", "intra_session", "p50_s"), EPS);
    assertEquals(1.0, v(j, "reuse_interval", "inter_session", "share_within_threshold"), EPS);
    assertEquals(0.0, v(j, "reuse_interval", "intra_session", "share_within_threshold"), EPS);
    // a 300 s threshold takes everything in
    ObjectNode k = analyze(ds, new Characterization.Options(1, 3, 300));
    assertEquals(1.0, v(k, "reuse_interval", "all", "share_within_threshold"), EPS);
  }

  // ---------- block-count mismatch ----------
  // r0 t=0 A turn 0: in=40 (ceil 3) but 5 blocks raw [1,2,3,4,5] -> uses c1,c12,c123 (16,16,8)
  // r1 t=1 A turn 1: in=64 (ceil 4) but 2 blocks raw [1,2] -> uses c1,c12: both hit: 32 tokens
  // r2 t=2 B turn 0: in=64 raw [1,2,3,4]: c1,c12,c123 seen (r0); c1234 was only in r0's unused
  //    tail, so it is not seen: 3 hit blocks, 48 tokens.
  // hits 80 / prefill 168; hit blocks 5 of 3+2+4 = 9; 2 mismatching requests (1 longer, 1 shorter)
  @Test
  void blockCountMismatch_usesFirstMinBlocksAndCountsFinding() {
    Dataset<Row> ds = Traces.builder()
        .req("r0", "A", null, 0, "user", 0, 40, 1, 1, 2, 3, 4, 5)
        .req("r1", "A", "r0", 1, "tool", 1, 64, 1, 1, 2)
        .req("r2", "B", null, 0, "user", 2, 64, 1, 1, 2, 3, 4)
        .toDataset(TestSpark.get());
    ObjectNode j = analyze(ds, Characterization.Options.defaults(1));
    assertEquals(80.0 / 168, v(j, "reuse", "token_weighted"), EPS);
    assertEquals(5.0 / 9, v(j, "reuse", "block_weighted"), EPS);
    assertEquals(2, j.path("data_quality").path("analysis").path("block_count_mismatch_requests").asLong());
    assertEquals(1, j.path("data_quality").path("analysis").path("block_count_mismatch_longer").asLong());
  }

  // ---------- a trace without sessions (Mooncake-like) ----------
  // r0 t=0 raw [1,2] 32 tokens; r1 t=1 raw [1,2,3] 48 tokens: hit 32 -> 32/80 = 0.4, interval 1 s
  @Test
  void traceWithoutSessions_reuseComputedSourcesAndSessionsNotApplicable() {
    Traces.Builder b = Traces.builder();
    b.add(new TraceRecord("r0", null, null, null, "unknown", 0, 32, 1, 16,
        io.smetric.audit.contract.BlockChain.chain(new long[] {1, 2}), null, 0));
    b.add(new TraceRecord("r1", null, null, null, "unknown", 1, 48, 1, 16,
        io.smetric.audit.contract.BlockChain.chain(new long[] {1, 2, 3}), null, 1));
    ObjectNode j = analyze(b.toDataset(TestSpark.get()), Characterization.Options.defaults(1));
    assertEquals(0.4, v(j, "reuse", "token_weighted"), EPS);
    assertEquals(1.0, v(j, "reuse_interval", "all", "p50_s"), EPS);
    assertEquals(Characterization.NO_SESSIONS, na(j, "reuse_by_source", "intra_session", "share_of_hit_tokens"));
    assertEquals(Characterization.NO_SESSIONS, na(j, "reuse_interval", "system_prompt", "p90_s"));
    assertEquals(Characterization.NO_SESSIONS, na(j, "sessions", "first_turn_fraction"));
    assertEquals(Characterization.NO_SESSIONS, na(j, "sessions", "token_skew"));
    assertFalse(j.path("trace").path("has_sessions").asBoolean());
  }

  @Test
  void traceWithoutBlocks_reuseNotApplicableNeverZero() {
    Traces.Builder b = Traces.builder();
    b.add(new TraceRecord("r0", null, null, null, "unknown", 0, 32, 1, null, null, null, 0));
    b.add(new TraceRecord("r1", null, null, null, "unknown", 70, 48, 1, null, null, null, 1));
    ObjectNode j = analyze(b.toDataset(TestSpark.get()), Characterization.Options.defaults(1));
    assertEquals(Characterization.NO_BLOCKS, na(j, "reuse", "token_weighted"));
    assertEquals(Characterization.NO_BLOCKS, na(j, "reuse_interval", "all", "p50_s"));
    // minute 0 (t=0) is the only whole minute in [0, 70]: 1 arrival
    assertEquals(1.0, v(j, "request_instance_ratio", "min"), EPS);
  }

  // ---------- ties in arrival time ----------
  // Both at t=5, listed in the opposite order of seq: "late" (seq 1, session A turn 1) and "early"
  // (seq 0, session A turn 0), same blocks raw [1,2]. Input order decides: early is the miss, late
  // hits 32 tokens intra-session at turn 1, interval 0 s.
  @Test
  void tiesInArrival_inputOrderDecides() {
    long[] c = io.smetric.audit.contract.BlockChain.chain(new long[] {1, 2});
    Traces.Builder b = Traces.builder();
    b.add(new TraceRecord("late", "A", "early", 1, "tool", 5, 32, 1, 16, c, null, 1));
    b.add(new TraceRecord("early", "A", null, 0, "user", 5, 32, 1, 16, c, null, 0));
    List<Row> turns = new ArrayList<>();
    ObjectNode j = analyze(b.toDataset(TestSpark.get()), Characterization.Options.defaults(1),
        r -> turns.addAll(r.tables().get(CharacterizationTables.T_REUSE_TURN).toDataset(TestSpark.get()).orderBy(Cols.TURN).collectAsList()));
    assertEquals(0.5, v(j, "reuse", "token_weighted"), EPS);
    assertEquals(0L, turns.get(0).getLong(turns.get(0).fieldIndex(Cols.HIT_TOKENS)));
    assertEquals(32L, turns.get(1).getLong(turns.get(1).fieldIndex(Cols.HIT_TOKENS)));
    assertEquals(0.0, v(j, "reuse_interval", "intra_session", "p50_s"), EPS);
    assertEquals(0.0, v(j, "sessions", "think_time_s", "p50"), EPS);
  }

  // ---------- a session going back to an older prefix ----------
  // r0 t=0 [1,2]; r1 t=10 [1,2,5] hits c1,c12 (32 tokens, 10 s); r2 t=20 [7] (history dropped);
  // r3 t=30 [1,2,8] hits c1,c12 again: the latest request holding them is r1, so 20 s (not 30).
  // hits 64 / prefill 32+48+16+48 = 144; intra intervals 32 @ 10 s, 32 @ 20 s -> p50 10, p90 20
  @Test
  void sessionReturnsToOlderPrefix_intervalFromLatestHolder() {
    Dataset<Row> ds = Traces.builder()
        .simple("r0", "A", 0, 0, 1, 2)
        .simple("r1", "A", 1, 10, 1, 2, 5)
        .simple("r2", "A", 2, 20, 7)
        .simple("r3", "A", 3, 30, 1, 2, 8)
        .toDataset(TestSpark.get()).coalesce(1);
    ObjectNode j = analyze(ds, Characterization.Options.defaults(1));
    assertEquals(64.0 / 144, v(j, "reuse", "token_weighted"), EPS);
    assertEquals(10.0, v(j, "reuse_interval", "intra_session", "p50_s"), EPS);
    assertEquals(20.0, v(j, "reuse_interval", "intra_session", "p90_s"), EPS);
  }
}
