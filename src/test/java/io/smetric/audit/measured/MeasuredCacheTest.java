package io.smetric.audit.measured;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.MeasuredCacheCols;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import io.smetric.audit.testing.TestSpark;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * Predicted against measured hits on a six-request trace worked out by hand (16-token blocks;
 * block ids are the canonical chained ids, so equal id = equal prefix):
 * <pre>
 *  r1 A t=0   blocks 1..5 (80 tok)            deepseek in 100 cached 0
 *  r2 A t=10  blocks 1..8, 9' (140 tok)       deepseek in 170 cached 64   hit 5 blocks = 80, 64-units 64
 *  r3 B t=12  blocks 1,2,x (40 tok)           openai   in 45  cached 0    hit 2 blocks = 32, openai 0 (< 1024)
 *  r4 A t=20  blocks 1..8, 10..71 (1120 tok)  no accounting (counts as "earlier" all the same)
 *  r5 A t=25  r4's 70 + 10 more (1280 tok)    openai   in 1300 cached 1152 hit 70 = 1120, openai 1024
 *  r6 C t=30  r5's 80 + 2 more (1300 tok)     anthropic in 1400 cached 1200 write 150: hit 80 = 1280, >= 1024: 1280
 * </pre>
 */
class MeasuredCacheTest {
  @Test
  void granularity_perProvider() {
    assertEquals(64, MeasuredCache.granular(Canonical.CACHE_DEEPSEEK, 127));
    assertEquals(128, MeasuredCache.granular(Canonical.CACHE_DEEPSEEK, 128));
    assertEquals(0, MeasuredCache.granular(Canonical.CACHE_OPENAI, 1023));
    assertEquals(1024, MeasuredCache.granular(Canonical.CACHE_OPENAI, 1151));
    assertEquals(1152, MeasuredCache.granular(Canonical.CACHE_OPENAI, 1152));
    assertEquals(0, MeasuredCache.granular(Canonical.CACHE_ANTHROPIC, 1023));
    assertEquals(1300, MeasuredCache.granular(Canonical.CACHE_ANTHROPIC, 1300));
  }

  static long[] ids(long from, long to) {
    return LongStream.rangeClosed(from, to).toArray();
  }

  static long[] concat(long[]... parts) {
    return java.util.Arrays.stream(parts).flatMapToLong(java.util.Arrays::stream).toArray();
  }

  static TraceRecord r(String id, String session, double t, int input, long[] blocks, long seq, ProviderCache c) {
    return new TraceRecord(id, session, null, 0, "tool", t, input, 1, 16, blocks, null, seq, c);
  }

  @Test
  void handWorkedTrace_perRequestAndOverall() {
    long[] r4 = concat(ids(1, 8), ids(10, 71)); // 70 blocks
    long[] r5 = concat(r4, ids(100, 109)); // 80 blocks
    List<Row> rows = new ArrayList<>();
    rows.add(r("r1", "A", 0, 80, ids(1, 5), 1, new ProviderCache("deepseek", 100, 0, null)).toRow());
    rows.add(r("r2", "A", 10, 140, concat(ids(1, 8), new long[] {9}), 2, new ProviderCache("deepseek", 170, 64, null)).toRow());
    rows.add(r("r3", "B", 12, 40, new long[] {1, 2, 500}, 3, new ProviderCache("openai", 45, 0, null)).toRow());
    rows.add(r("r4", "A", 20, 1120, r4, 4, null).toRow());
    rows.add(r("r5", "A", 25, 1280, r5, 5, new ProviderCache("openai", 1300, 1152, null)).toRow());
    rows.add(r("r6", "C", 30, 1300, concat(r5, new long[] {200, 201}), 6, new ProviderCache("anthropic", 1400, 1200, 150)).toRow());
    Dataset<Row> trace = TestSpark.get().createDataFrame(rows, Canonical.SCHEMA);
    MeasuredCache.Result m = MeasuredCache.compute(trace);
    try {
      Map<String, Row> per = new HashMap<>();
      for (Row x : m.perRequest().collectAsList()) per.put(x.getString(0), x);
      assertEquals(5, per.size()); // r4 has no accounting
      check(per.get("r1"), 0, 0, 0.0, null);
      check(per.get("r2"), 80, 64, 64.0 / 170, 10.0);
      check(per.get("r3"), 32, 0, 0.0, null);
      check(per.get("r5"), 1120, 1024, 1152.0 / 1300, 5.0);
      check(per.get("r6"), 1280, 1280, 1200.0 / 1400, null);
      assertEquals(100 * (64.0 / 140 - 64.0 / 170), per.get("r2").getDouble(per.get("r2").fieldIndex(MeasuredCacheCols.GAP_PP)), 1e-9);

      Map<String, JsonNode> byKind = new HashMap<>();
      m.summary().get("by_provider").forEach(k -> byKind.put(k.get("provider_cache").asText(), k));
      JsonNode ds = byKind.get("deepseek");
      assertEquals(2, ds.get("requests").asLong());
      assertEquals(80.0 / 220, ds.get("predicted_ratio").asDouble(), 1e-12);
      assertEquals(64.0 / 220, ds.get("predicted_granular_ratio").asDouble(), 1e-12);
      assertEquals(64.0 / 270, ds.get("measured_ratio").asDouble(), 1e-12);
      assertEquals(220.0 / 270, ds.get("token_count_ratio").asDouble(), 1e-12);
      JsonNode oa = byKind.get("openai");
      assertEquals((32.0 + 1120) / (40 + 1280), oa.get("predicted_ratio").asDouble(), 1e-12);
      assertEquals(1024.0 / 1320, oa.get("predicted_granular_ratio").asDouble(), 1e-12);
      assertEquals(1152.0 / 1345, oa.get("measured_ratio").asDouble(), 1e-12);
      // per-request gaps in points, rounded: r3 0, r5 100 * (1024/1280 - 1152/1300) = -8.6 -> -9
      assertEquals(-9, oa.get("per_request_gap_pp").get("p5").asInt());
      assertEquals(0, oa.get("per_request_gap_pp").get("p95").asInt());
      assertEquals(0.5, oa.get("per_request_gap_pp").get("share_within_5pp").asDouble(), 1e-12);
      JsonNode an = byKind.get("anthropic");
      assertEquals(150, an.get("provider_cache_write_tokens").asLong());
      assertEquals(1280.0 / 1300, an.get("predicted_granular_ratio").asDouble(), 1e-12);
      // r2 came 10 s after r1 (bucket 10-60 s), r1 is its session's first
      JsonNode since = ds.get("by_time_since_previous_request");
      assertEquals("first request of its session", since.get(0).get("since_previous_s").asText());
      assertEquals("10-60 s", since.get(1).get("since_previous_s").asText());
      assertEquals(64.0 / 170, since.get(1).get("measured_ratio").asDouble(), 1e-12);
    } finally {
      m.perRequest().unpersist();
    }
  }

  static void check(Row x, long hit, long granular, double measured, Double sincePrevious) {
    assertEquals(hit, x.getLong(x.fieldIndex(MeasuredCacheCols.HIT_TOKENS)), x.getString(0));
    assertEquals(granular, x.getLong(x.fieldIndex(MeasuredCacheCols.GRANULAR_TOKENS)), x.getString(0));
    assertEquals(measured, x.getDouble(x.fieldIndex(MeasuredCacheCols.MEASURED)), 1e-12, x.getString(0));
    Object s = x.get(x.fieldIndex(MeasuredCacheCols.SINCE_PREVIOUS_S));
    if (sincePrevious == null) assertNull(s, x.getString(0));
    else assertEquals(sincePrevious, (Double) s, 1e-9, x.getString(0));
  }
}
