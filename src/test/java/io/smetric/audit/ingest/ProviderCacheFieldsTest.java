package io.smetric.audit.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.smetric.audit.characterize.TraceInput;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import io.smetric.audit.testing.StageRuns;
import io.smetric.audit.testing.TestSpark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optional provider cache fields of trace-model v1.2: kept through the smetric JSONL, CSV and
 * canonical Parquet ingest, through TraceRecord's row form, and absent (null) in datasets written
 * before them.
 */
class ProviderCacheFieldsTest {
  private final SparkSession spark = TestSpark.get();
  @TempDir Path tmp;

  private static final String BASE = "\"arrival_s\":%s,\"input_tokens\":100,\"output_tokens\":5,\"block_size\":16,\"hash_ids\":[1,2,3,4,5,6,7]";

  private StageRuns.Ingested ingest(Path... files) {
    return StageRuns.ingest(new IngestJob.Options(Arrays.stream(files).map(Path::toString).toList(),
        TraceFormat.parse("auto"), null, IngestJob.DEFAULT_MAX_LINE_BYTES), tmp.resolve("out-" + System.nanoTime()).toString());
  }

  private List<TraceRecord> trace(String dir) {
    return spark.read().schema(Canonical.SCHEMA).parquet(dir + "/trace").orderBy(Canonical.ARRIVAL_S).collectAsList()
        .stream().map(TraceRecord::fromRow).toList();
  }

  @Test
  void jsonl_keepsTheFields_andQuarantinesInconsistentSets() throws IOException {
    Path f = tmp.resolve("t.jsonl");
    Files.writeString(f, String.join("\n",
        "{\"request_id\":\"ds\"," + String.format(BASE, 1) + ",\"provider_cache\":\"deepseek\",\"provider_input_tokens\":98,\"provider_cached_tokens\":64}",
        "{\"request_id\":\"an\"," + String.format(BASE, 2) + ",\"provider_cache\":\"anthropic\",\"provider_input_tokens\":120,\"provider_cached_tokens\":90,\"provider_cache_write_tokens\":20}",
        "{\"request_id\":\"none\"," + String.format(BASE, 3) + "}",
        "{\"request_id\":\"bad1\"," + String.format(BASE, 4) + ",\"provider_input_tokens\":98,\"provider_cached_tokens\":64}",
        "{\"request_id\":\"bad2\"," + String.format(BASE, 5) + ",\"provider_cache\":\"gemini\",\"provider_input_tokens\":98,\"provider_cached_tokens\":64}",
        "{\"request_id\":\"bad3\"," + String.format(BASE, 6) + ",\"provider_cache\":\"openai\",\"provider_input_tokens\":98,\"provider_cached_tokens\":128}",
        "{\"request_id\":\"bad4\"," + String.format(BASE, 7) + ",\"provider_cache\":\"openai\",\"provider_cached_tokens\":0}") + "\n");
    StageRuns.Ingested r = ingest(f);
    List<TraceRecord> t = trace(r.out());
    assertEquals(List.of("ds", "an", "none"), t.stream().map(TraceRecord::requestId).toList());
    assertEquals(new ProviderCache("deepseek", 98, 64, null), t.get(0).providerCache());
    assertEquals(new ProviderCache("anthropic", 120, 90, 20), t.get(1).providerCache());
    assertNull(t.get(2).providerCache());
    List<String> reasons = spark.read().parquet(r.out() + "/quarantine").orderBy("line").collectAsList().stream()
        .map(q -> q.getString(q.fieldIndex("reason")) + ":" + q.getString(q.fieldIndex("field"))).toList();
    assertEquals(List.of("missing_field:provider_cache", "bad_value:provider_cache", "bad_value:provider_cached_tokens",
        "missing_field:provider_input_tokens"), reasons);

    // the canonical Parquet this wrote ingests again unchanged (Parquet input keeps the fields)
    StageRuns.Ingested again = ingest(Path.of(r.out(), "trace"));
    assertEquals(t.stream().map(TraceRecord::providerCache).toList(),
        trace(again.out()).stream().map(TraceRecord::providerCache).toList());
  }

  @Test
  void csv_canonicalColumns_keepTheFields() throws IOException {
    Path f = tmp.resolve("t.csv");
    Files.writeString(f, "request_id,arrival_s,input_tokens,output_tokens,provider_cache,provider_input_tokens,provider_cached_tokens\n"
        + "a,1,100,5,openai,1300,1152\nb,2,100,5,,,\n");
    List<TraceRecord> t = trace(ingest(f).out());
    assertEquals(new ProviderCache("openai", 1300, 1152, null), t.get(0).providerCache());
    assertNull(t.get(1).providerCache());
  }

  @Test
  void traceRecord_rowRoundTrip_andDatasetsWithoutTheColumns() {
    TraceRecord with = new TraceRecord("a", "s", null, 0, "user", 0.5, 40, 3, 16, new long[] {7, 8, 9}, null, 1L,
        new ProviderCache("openai", 41, 0, null));
    TraceRecord without = new TraceRecord("b", "s", "a", 1, "tool", 1.5, 60, 3, 16, new long[] {7, 8, 9, 10}, null, 2L);
    Dataset<Row> d = spark.createDataFrame(List.of(with.toRow(), without.toRow()), Canonical.SCHEMA);
    List<TraceRecord> back = d.orderBy(Canonical.SEQ).collectAsList().stream().map(TraceRecord::fromRow).toList();
    assertEquals(with.providerCache(), back.get(0).providerCache());
    assertNull(back.get(1).providerCache());
    assertEquals(with.inputTokens(), back.get(0).inputTokens());

    // a dataset written before trace-model v1.2 (no provider columns) loads with them as nulls
    String old = tmp.resolve("old/trace").toString();
    d.drop(Canonical.PROVIDER_CACHE, Canonical.PROVIDER_INPUT_TOKENS, Canonical.PROVIDER_CACHED_TOKENS,
        Canonical.PROVIDER_CACHE_WRITE_TOKENS, Canonical.REQUEST_TYPE).write().parquet(old);
    Dataset<Row> loaded = TraceInput.load(spark, tmp.resolve("old").toString()).trace();
    for (String c : Canonical.OPTIONAL_COLUMNS) assertEquals(0, loaded.filter(loaded.col(c).isNotNull()).count(), c);
    assertEquals(2, loaded.collectAsList().stream().map(TraceRecord::fromRow).filter(x -> x.providerCache() == null).count());
  }
}
