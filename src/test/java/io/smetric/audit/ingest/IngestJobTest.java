package io.smetric.audit.ingest;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputExistsException;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.IngestSummary;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.testing.StageJobs;
import io.smetric.audit.testing.StageRuns;
import io.smetric.audit.testing.TestSpark;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestJobTest {
  private final SparkSession spark = TestSpark.get();
  @TempDir Path tmp;

  private Path write(String name, String... lines) throws IOException {
    Path p = tmp.resolve(name);
    Files.writeString(p, String.join("\n", lines) + "\n");
    return p;
  }

  private StageRuns.Ingested ingest(String format, Integer blockSize, int maxLine, Path... files) {
    List<String> in = Arrays.stream(files).map(Path::toString).toList();
    return StageRuns.ingest(new IngestJob.Options(in, TraceFormat.parse(format), blockSize, maxLine),
        tmp.resolve("out-" + System.nanoTime()).toString());
  }

  private StageRuns.Ingested ingest(Path... files) {
    return ingest("auto", null, IngestJob.DEFAULT_MAX_LINE_BYTES, files);
  }

  private List<TraceRecord> trace(StageRuns.Ingested r) {
    return spark.read().parquet(r.out() + "/trace").orderBy(Canonical.ARRIVAL_S, Canonical.SEQ).collectAsList()
        .stream().map(TraceRecord::fromRow).toList();
  }

  private List<Row> quarantine(StageRuns.Ingested r) {
    return spark.read().parquet(r.out() + "/quarantine").orderBy("source_file", "line").collectAsList();
  }

  private static final String GOOD =
      "{\"request_id\":\"%s\",\"session_id\":\"s\",\"turn\":0,\"arrival_s\":%s,\"input_tokens\":20,\"output_tokens\":5,\"block_size\":16,\"hash_ids\":[1,2]}";

  @Test
  void mixedFile_everyLineIsAcceptedOrQuarantined_withItsReason() throws IOException {
    Path f = write("mixed.jsonl",
        String.format(GOOD, "a", "1.0"),                                                   // line 1 ok
        "{not json",                                                                        // 2 malformed_json
        "{\"request_id\":\"b\",\"arrival_s\":2,\"output_tokens\":1}",                       // 3 missing input_tokens
        "{\"request_id\":\"c\",\"arrival_s\":2,\"input_tokens\":\"many\",\"output_tokens\":1}", // 4 bad_type
        "{\"request_id\":\"d\",\"arrival_s\":2,\"input_tokens\":-3,\"output_tokens\":1}",   // 5 negative_value
        "{\"request_id\":\"e\",\"arrival_s\":NaN,\"input_tokens\":3,\"output_tokens\":1}",  // 6 bad_timestamp
        "",                                                                                 // 7 blank: not a record
        "{\"request_id\":\"f\",\"arrival_s\":-1,\"input_tokens\":3,\"output_tokens\":1}",   // 8 bad_timestamp
        String.format(GOOD, "a", "3.0"),                                                   // 9 duplicate of line 1
        String.format(GOOD, "g", "0.5"),                                                   // 10 ok, out of order
        "[1,2]");                                                                           // 11 malformed_json (not an object)
    StageRuns.Ingested r = ingest(f);
    // 10 non-blank lines: accepted a (line 1), g (line 10); the other 8 quarantined
    assertEquals(10, r.read());
    assertEquals(2, r.accepted());
    assertEquals(8, r.quarantined());
    assertEquals(r.read(), r.accepted() + r.quarantined());
    JsonNode file = r.summary().get("files").get(0);
    assertEquals(10, file.get("read").asLong());
    assertEquals(file.get("read").asLong(), file.get("accepted").asLong() + file.get("quarantined").asLong());
    JsonNode by = file.get("quarantined_by_reason");
    assertEquals(2, by.get("malformed_json").asLong());
    assertEquals(1, by.get("missing_field").asLong());
    assertEquals(1, by.get("bad_type").asLong());
    assertEquals(1, by.get("negative_value").asLong());
    assertEquals(2, by.get("bad_timestamp").asLong());
    assertEquals(1, by.get("duplicate_request_id").asLong());
    assertEquals(1, file.get("blank_lines").asLong());
    assertEquals(1, file.get("out_of_order").asLong());

    List<Row> q = quarantine(r);
    assertEquals(8, q.size());
    Map<Long, Row> byLine = new HashMap<>();
    for (Row row : q) byLine.put(row.getLong(row.fieldIndex("line")), row);
    assertEquals("missing_field", byLine.get(3L).getAs("reason"));
    assertEquals("input_tokens", byLine.get(3L).getAs("field"));
    assertEquals("bad_type", byLine.get(4L).getAs("reason"));
    assertEquals("input_tokens", byLine.get(4L).getAs("field"));
    assertEquals("{not json", byLine.get(2L).getAs("raw"));
    assertEquals("duplicate_request_id", byLine.get(9L).getAs("reason"));
    assertTrue(((String) byLine.get(9L).getAs("detail")).contains("mixed.jsonl:1"), "names the kept occurrence");

    // accepted records come out sorted by arrival: g (0.5) before a (1.0)
    List<TraceRecord> t = trace(r);
    assertEquals(List.of("g", "a"), t.stream().map(TraceRecord::requestId).toList());
    assertArrayEquals(BlockChain.chain(new long[] {1, 2}), t.get(1).blocks());
  }

  @Test
  void bailian_sessionsAreChainRoots_orphansAndBackwardLinksStartSessions_turnsShifted() throws IOException {
    String fmt = "{\"chat_id\":%d,\"parent_chat_id\":%d,\"timestamp\":%s,\"input_length\":16,\"output_length\":1,\"type\":\"text\",\"turn\":%d,\"hash_ids\":[%d]}";
    Path f = write("bailian.jsonl",
        String.format(fmt, 1, -1, "1", 1, 1),
        String.format(fmt, 2, 1, "2", 2, 2),
        String.format(fmt, 3, 2, "3", 3, 3),
        String.format(fmt, 4, 3, "4", 4, 4),
        String.format(fmt, 5, 4, "5", 5, 5),   // chain of depth 5 -> session 1
        String.format(fmt, 7, 99, "5.5", 3, 7), // parent 99 not in the trace -> own session
        String.format(fmt, 20, 21, "6", 2, 8), // names 21, which arrives later: link dropped
        String.format(fmt, 21, 20, "7", 3, 9)); // 20 arrived earlier: session of 21 = 20
    StageRuns.Ingested r = ingest(f);
    Map<String, TraceRecord> byId = new HashMap<>();
    for (TraceRecord t : trace(r)) byId.put(t.requestId(), t);
    for (String id : List.of("1", "2", "3", "4", "5")) assertEquals("1", byId.get(id).sessionId(), "session of " + id);
    assertEquals("7", byId.get("7").sessionId());
    assertEquals("20", byId.get("20").sessionId());
    assertEquals("20", byId.get("21").sessionId());
    // no record had turn 0 and the root (chat 1) has turn 1: every turn shifted by -1
    assertEquals(0, byId.get("1").turn());
    assertEquals(4, byId.get("5").turn());
    assertEquals("unknown", byId.get("1").trigger());
    assertEquals("text", byId.get("1").requestType());
    assertEquals(16, byId.get("1").blockSize());
    JsonNode b = r.summary().get("bailian_sessions");
    assertEquals(1, b.get("orphan_parents").asLong());
    assertEquals(1, b.get("parent_not_earlier").asLong());
    assertTrue(b.get("turns_shifted_by_minus_1").asBoolean());
    assertEquals("derived", r.summary().get("dataset").get("sessions_mode").asText());
    assertEquals(3, r.summary().get("dataset").get("sessions").asLong()); // 1, 7 and 20
    // the optional parts (bailian_sessions, time-less files) read back into the same tree
    assertEquals(r.summary(), IngestSummary.read(r.summary(), "summary").toJson());
  }

  @Test
  void mooncake_idsAreZeroBasedLines_timestampsInMs_blocksChained() throws IOException {
    Path f = write("mc.jsonl",
        "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 6, \"hash_ids\": [0, 1]}",
        "{\"timestamp\": 1500, \"input_length\": 1000, \"output_length\": 4, \"hash_ids\": [0, 1]}",
        "{\"timestamp\": 2500, \"input_length\": 1100, \"output_length\": 4, \"hash_ids\": [0, 2, 3]}");
    StageRuns.Ingested r = ingest(f);
    List<TraceRecord> t = trace(r);
    assertEquals(List.of("0", "1", "2"), t.stream().map(TraceRecord::requestId).toList());
    assertEquals(1.5, t.get(1).arrivalS());
    assertEquals(512, t.get(0).blockSize());
    assertNull(t.get(0).sessionId());
    assertNull(t.get(0).turn());
    assertArrayEquals(BlockChain.chain(new long[] {0, 2, 3}), t.get(2).blocks());
    // 1000 tokens / 512 = 2 blocks: consistent; 600 -> 2: consistent; 1100 -> 3: consistent
    assertEquals(0, r.summary().get("dataset").get("block_count_mismatch").asLong());
    assertEquals("absent", r.summary().get("dataset").get("sessions_mode").asText());
  }

  @Test
  void blockCountMismatch_isCountedNotRejected() throws IOException {
    // 40 tokens at 16 per block need ceil(40/16) = 3 blocks; the record has 2
    Path f = write("bm.jsonl",
        "{\"request_id\":\"x\",\"arrival_s\":0,\"input_tokens\":40,\"output_tokens\":1,\"block_size\":16,\"hash_ids\":[5,6]}");
    StageRuns.Ingested r = ingest(f);
    assertEquals(1, r.accepted());
    assertEquals(1, r.summary().get("dataset").get("block_count_mismatch").asLong());
    assertEquals(1, r.summary().get("files").get(0).get("block_count_mismatch").asLong());
  }

  @Test
  void truncatedGzip_keepsRecordsBeforeTheCut_andSaysSo() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 2000; i++) sb.append(String.format(GOOD, "r" + i, i + ".0")).append('\n');
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bos)) {
      gz.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }
    byte[] all = bos.toByteArray();
    Path f = tmp.resolve("cut.jsonl.gz");
    Files.write(f, Arrays.copyOf(all, all.length / 2));
    StageRuns.Ingested r = ingest(f);
    assertTrue(r.accepted() > 0 && r.accepted() < 2000, "some but not all records: " + r.accepted());
    assertEquals(r.read(), r.accepted() + r.quarantined());
    String findings = r.summary().get("findings").toString();
    assertTrue(findings.contains("truncated or corrupt"), findings);
  }

  @Test
  void emptyFile_isAFinding_besideAGoodFile() throws IOException {
    Path empty = write("empty.jsonl", "");
    Path good = write("good.jsonl", String.format(GOOD, "a", "1"));
    StageRuns.Ingested r = ingest(empty, good);
    assertEquals(1, r.accepted());
    assertTrue(r.summary().get("findings").toString().contains("empty.jsonl: empty file"));
  }

  @Test
  void onlyEmptyInput_isBadInput() throws IOException {
    Path empty = write("empty.jsonl", "");
    BadInputException e = assertThrows(BadInputException.class, () -> ingest(empty));
    assertTrue(e.oneLine().contains("empty.jsonl"), e.oneLine());
  }

  @Test
  void folder_leavesOutItsDocumentation_andNamesWhatItLeftOut() throws IOException {
    // a dataset folder as published (Mooncake's: FAST25-README.md, LICENSE-APACHE beside the trace)
    Path dir = Files.createDirectories(tmp.resolve("dataset"));
    Files.writeString(dir.resolve("trace.jsonl"), String.format(GOOD, "a", "1") + "\n" + String.format(GOOD, "b", "2") + "\n");
    Files.writeString(dir.resolve("FAST25-README.md"), "# a trace\n");
    Files.writeString(dir.resolve("LICENSE-APACHE"), "Apache License\n");
    Files.writeString(dir.resolve("PROVENANCE.md"), "from somewhere\n");
    StageRuns.Ingested r = ingest(dir);
    assertEquals(2, r.accepted());
    assertEquals(1, r.summary().get("files").size(), "only the trace is read");
    JsonNode skipped = r.summary().get("skipped_files");
    assertEquals(3, skipped.size());
    assertTrue(skipped.get(0).get("path").asText().endsWith("FAST25-README.md"), skipped.toString());
    assertEquals("documentation, not trace data", skipped.get(0).get("reason").asText());
    assertTrue(r.summary().get("findings").toString().contains("3 file(s) of the input folders left out as documentation, "
        + "not trace data: FAST25-README.md, LICENSE-APACHE, PROVENANCE.md"), r.summary().get("findings").toString());

    // a folder of documentation only is an error naming what it holds
    Path docs = Files.createDirectories(tmp.resolve("docs"));
    Files.writeString(docs.resolve("README"), "nothing here\n");
    BadInputException e = assertThrows(BadInputException.class, () -> ingest(docs));
    assertTrue(e.oneLine().endsWith("folder holds no data files (only documentation: README)"), e.oneLine());
    // a file named on its own is read whatever its name
    BadInputException named = assertThrows(BadInputException.class, () -> ingest(dir.resolve("FAST25-README.md")));
    assertTrue(named.oneLine().contains("FAST25-README.md:1:"), named.oneLine());
  }

  @Test
  void stageOutputFolder_readsItsTrace_notItsSummaries() throws IOException {
    // an ingest (or record-trace) output folder holds ingest-summary.json / recording.json beside
    // trace/: given the folder, the trace is read, not the summary as a trace record
    Path f = write("mc.jsonl",
        "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 6, \"hash_ids\": [0, 1]}",
        "{\"timestamp\": 1500, \"input_length\": 1000, \"output_length\": 4, \"hash_ids\": [0, 1]}");
    StageRuns.Ingested first = ingest(f);
    // the command writes the summary (the job alone does not): a JSON object that is no trace record
    Path out = first.out().startsWith("file:") ? Path.of(java.net.URI.create(first.out())) : Path.of(first.out());
    Files.writeString(out.resolve("recording.json"), "{\"format\": \"smetric-audit recording\"}\n");
    StageRuns.Ingested again = ingest(out);
    assertEquals(2, again.result().accepted());
    assertEquals(0, again.result().quarantined());
    java.util.function.Function<TraceRecord, String> key = t -> t.requestId() + "@" + t.arrivalS() + ":" + t.inputTokens()
        + "/" + t.outputTokens() + Arrays.toString(t.blocks());
    assertEquals(trace(first).stream().map(key).toList(), trace(again).stream().map(key).toList());
  }

  @Test
  void documentationNames() {
    for (String n : List.of("README", "readme.txt", "LICENSE", "LICENSE-APACHE", "Licence.txt", "NOTICE", "COPYING",
        "CITATION.cff", "PROVENANCE.md", "AzureLLMInferenceDataset2023.md", "notes.rst", "paper.pdf", "index.html")) {
      assertTrue(InputFiles.documentation(n), n);
    }
    // a data extension wins over a documentation-like name
    for (String n : List.of("trace.jsonl", "part-00000-c000.snappy.parquet", "AzureLLMInferenceTrace_conv.csv",
        "licenses.jsonl", "readme_sessions.jsonl.gz", "README.csv", "part-00000", "conv.txt")) {
      assertFalse(InputFiles.documentation(n), n);
    }
  }

  @Test
  void unknownFormat_namesFileAndLine() throws IOException {
    Path f = write("notes.txt", "", "hello world");
    BadInputException e = assertThrows(BadInputException.class, () -> ingest(f));
    assertTrue(e.oneLine().contains("notes.txt:2:"), e.oneLine());
  }

  @Test
  void everyRecordRejected_failsNamingTheFileReasonsAndTheFormatItWasReadAs() throws IOException {
    // records that parse as SMetric-style but miss input_tokens: nothing accepted, and the error says
    // which format the file was read as (a wrong --format is the usual cause)
    Path f = write("none.jsonl",
        "{\"request_id\":\"a\",\"arrival_s\":1,\"output_tokens\":1}",
        "{\"request_id\":\"b\",\"arrival_s\":2,\"output_tokens\":1}");
    BadInputException e = assertThrows(BadInputException.class, () -> ingest(f));
    assertTrue(e.oneLine().contains("none.jsonl"), e.oneLine());
    assertTrue(e.oneLine().contains("all 2 records were rejected"), e.oneLine());
    assertTrue(e.oneLine().endsWith("; read as smetric (detected from the first record)"), e.oneLine());
  }

  @Test
  void unknownJsonFields_areNamedInTheError() throws IOException {
    Path f = write("odd.jsonl", "{\"foo\":1,\"bar\":2}");
    BadInputException e = assertThrows(BadInputException.class, () -> ingest(f));
    assertTrue(e.oneLine().contains("odd.jsonl:1:") && e.oneLine().contains("[bar, foo]"), e.oneLine());
  }

  @Test
  void azureCsv_rebasesToTheFirstMinute_andQuarantinesBadTimestamps() throws IOException {
    Path f = write("azure.csv",
        "TIMESTAMP,ContextTokens,GeneratedTokens",
        "2023-11-16 18:15:46.6805900,374,44",
        "2023-11-16 18:15:50.9951690,396,109",
        "yesterday,1,1",
        "2023-11-16 18:16:01.5,10,-2");
    StageRuns.Ingested r = ingest(f);
    assertEquals(4, r.read());
    assertEquals(2, r.accepted());
    List<TraceRecord> t = trace(r);
    // origin = 18:15:00.000000, so 46.6805900 s -> 46.68059 exactly at microsecond precision
    assertEquals(46.680590, t.get(0).arrivalS(), 1e-9);
    assertEquals(50.995169, t.get(1).arrivalS(), 1e-9);
    assertEquals("0", t.get(0).requestId());
    assertNull(t.get(0).blocks());
    assertNull(t.get(0).blockSize());
    JsonNode by = r.summary().get("totals").get("quarantined_by_reason");
    assertEquals(1, by.get("bad_timestamp").asLong());
    assertEquals(1, by.get("negative_value").asLong());
    assertTrue(r.summary().get("findings").toString().contains("no block hashes"));
  }

  @Test
  void lineTooLong_isQuarantinedWithAPrefixOfTheLine() throws IOException {
    String longLine = "{\"request_id\":\"big\",\"arrival_s\":1,\"input_tokens\":1,\"output_tokens\":1,\"pad\":\"" + "x".repeat(500) + "\"}";
    Path f = write("long.jsonl", String.format(GOOD, "a", "0"), longLine);
    StageRuns.Ingested r = ingest("auto", null, 300, f);
    assertEquals(1, r.accepted());
    Row q = quarantine(r).get(0);
    assertEquals("line_too_long", q.getAs("reason"));
    assertEquals(2L, (long) q.getAs("line"));
  }

  @Test
  void canonicalParquet_reingestsUnchanged() throws IOException {
    Path f = write("s.jsonl", String.format(GOOD, "a", "1"), String.format(GOOD, "b", "2"));
    StageRuns.Ingested first = ingest(f);
    StageRuns.Ingested second = ingest("parquet", null, IngestJob.DEFAULT_MAX_LINE_BYTES, Path.of(first.out().replace("file:", "") + "/trace"));
    List<TraceRecord> a = trace(first);
    List<TraceRecord> b = trace(second);
    assertEquals(a.size(), b.size());
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).requestId(), b.get(i).requestId());
      assertArrayEquals(a.get(i).blocks(), b.get(i).blocks(), "blocks are taken as already chained");
      assertEquals(a.get(i).arrivalS(), b.get(i).arrivalS());
    }
  }

  /**
   * The stage-job shape (docs/architecture.md, "Stage jobs"): run(out) writes the three entries
   * AuditLayout names into the caller's folder and nothing else, commits nothing, runs every Spark
   * job under its group, and returns the counts its summary file holds.
   */
  @Test
  void run_writesTheStageOutputIntoTheCallersFolderUnderItsGroup_andCommitsNothing() throws Exception {
    // 3 non-blank lines: a and b accepted, the malformed one quarantined
    Path f = write("run.jsonl", String.format(GOOD, "a", "1.0"), "{not json", String.format(GOOD, "b", "2.0"));
    IngestJob job = new IngestJob(spark, new IngestJob.Options(List.of(f.toString()), null, null, 1000));
    StageRuns.assertShape(Files.createDirectory(tmp.resolve("owned-parent")), IngestJob.JOB_GROUP,
        Set.of(AuditLayout.TRACE_DIR, AuditLayout.QUARANTINE_DIR, AuditLayout.INGEST_SUMMARY_FILE), job::run, (r, written) -> {
          assertEquals(3, r.read());
          assertEquals(2, r.accepted());
          assertEquals(1, r.quarantined());
          StageJobs.assertWritten(r.summary().toJson(), written.resolve(AuditLayout.INGEST_SUMMARY_FILE));
          assertEquals(r.read(), r.summary().totals().read());
          assertEquals(r.accepted(), r.summary().totals().accepted());
          assertEquals(r.quarantined(), r.summary().totals().quarantined());
          // one serde: the file read back and written again is the same text
          String text = Files.readString(written.resolve(AuditLayout.INGEST_SUMMARY_FILE));
          assertEquals(text, Json.MAPPER.writeValueAsString(IngestSummary.read(Json.MAPPER.readTree(text), "file").toJson()));
          assertEquals(2, spark.read().parquet(written.resolve(AuditLayout.TRACE_DIR).toString()).count());
          assertEquals(1, spark.read().parquet(written.resolve(AuditLayout.QUARANTINE_DIR).toString()).count());
        });
  }

  @Test
  void existingOutput_isRefusedWithoutOverwrite() throws IOException {
    Path f = write("s.jsonl", String.format(GOOD, "a", "1"));
    String out = tmp.resolve("o").toString();
    IngestJob.Options o = new IngestJob.Options(List.of(f.toString()), null, null, 1000);
    StageRuns.ingest(o, out);
    assertThrows(OutputExistsException.class, () -> StageRuns.ingest(o, out));
    StageRuns.Ingested again = StageRuns.ingest(o, out, true);
    assertEquals(1, again.accepted());
  }

  @Test
  void failedRun_leavesNoOutputFolder() throws IOException {
    Path f = write("notes.txt", "hello");
    String out = tmp.resolve("never").toString();
    assertThrows(BadInputException.class,
        () -> StageRuns.ingest(new IngestJob.Options(List.of(f.toString()), null, null, 1000), out));
    assertFalse(Files.exists(Path.of(out)));
    try (var s = Files.list(tmp)) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith(".never")), "temp folder cleaned up");
    }
  }

  @Test
  void twoFilesOverlappingInTime_areMergedInArrivalOrder_withUniqueSeq() throws IOException {
    Path a = write("a.jsonl", String.format(GOOD, "a1", "1"), String.format(GOOD, "a2", "3"));
    Path b = write("b.jsonl", String.format(GOOD, "b1", "2"), String.format(GOOD, "b2", "3"));
    StageRuns.Ingested r = ingest(a, b);
    // tie at 3.0: input order (file a before file b) decides
    assertEquals(List.of("a1", "b1", "a2", "b2"), trace(r).stream().map(TraceRecord::requestId).toList());
    assertEquals(1, r.summary().get("totals").get("files_overlapping_earlier_files").asLong());
    long distinctSeq = spark.read().parquet(r.out() + "/trace").select(col(Canonical.SEQ)).distinct().count();
    assertEquals(4, distinctSeq);
  }
}
