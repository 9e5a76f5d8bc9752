package io.smetric.audit.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.testing.StageRuns;
import io.smetric.audit.testing.TestSpark;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A large uncompressed file is parsed in byte ranges (forced here with a tiny --split-bytes):
 * the canonical rows, the quarantine and the summary must be exactly those of one task reading
 * the whole file, wherever the boundaries fall.
 */
class IngestSplitTest {
  private final SparkSession spark = TestSpark.get();
  @TempDir Path tmp;

  private static final String GOOD =
      "{\"request_id\":\"%s\",\"session_id\":\"s%s\",\"turn\":0,\"arrival_s\":%s,\"input_tokens\":20,\"output_tokens\":5,\"block_size\":16,\"hash_ids\":[1,2]}";

  private Path write(String name, String content) throws IOException {
    Path p = tmp.resolve(name);
    Files.writeString(p, content);
    return p;
  }

  private StageRuns.Ingested ingest(long split, int maxLine, Path... files) {
    List<String> in = Arrays.stream(files).map(Path::toString).toList();
    return StageRuns.ingest(new IngestJob.Options(in, null, null, maxLine, split), tmp.resolve("out-" + System.nanoTime()).toString());
  }

  private List<String> rows(StageRuns.Ingested r) {
    return spark.read().parquet(r.out() + "/trace").orderBy(Canonical.SEQ).collectAsList().stream().map(Row::toString).toList();
  }

  private List<String> quarantine(StageRuns.Ingested r) {
    return spark.read().parquet(r.out() + "/quarantine").orderBy("source_file", "line").collectAsList().stream()
        .map(Row::toString).toList();
  }

  private static long parts(StageRuns.Ingested r, String dir, int file) throws IOException {
    try (var s = Files.list(Path.of(r.out().replace("file:", ""), dir))) {
      return s.filter(p -> p.getFileName().toString().startsWith(String.format("part-%05d-", file))).count();
    }
  }

  /** The one-range ingest and the ingest of each split size (in the order given). */
  private record Runs(StageRuns.Ingested one, List<StageRuns.Ingested> split) {}

  /**
   * Ingests with each split size and with one range, and asserts identical outputs. The one-range
   * output is read once (each read is a Spark job), and the split results are returned so a test
   * can look further into them without ingesting the same split again.
   */
  private Runs assertSameAsOneRange(int maxLine, long[] splits, Path... files) {
    StageRuns.Ingested one = ingest(Long.MAX_VALUE, maxLine, files);
    List<String> oneRows = rows(one);
    List<String> oneQuarantine = quarantine(one);
    List<StageRuns.Ingested> results = new java.util.ArrayList<>();
    for (long split : splits) {
      StageRuns.Ingested r = ingest(split, maxLine, files);
      assertEquals(oneRows, rows(r), "canonical rows, split " + split);
      assertEquals(oneQuarantine, quarantine(r), "quarantine, split " + split);
      assertEquals(one.summary(), r.summary(), "summary, split " + split);
      results.add(r);
    }
    return new Runs(one, results);
  }

  /** Byte offset of the start of 1-based line {@code line}. */
  private static long lineStart(String content, int line) {
    int p = 0;
    for (int i = 1; i < line; i++) p = content.indexOf('\n', p) + 1;
    return p;
  }

  @Test
  void mixedFileWithCrlf_splitAnywhere_equalsOneRange() throws IOException {
    String content =
        String.format(GOOD, "a", "1", "1.0") + "\n"                                              // 1 ok
            + "{not json\r\n"                                                                     // 2 malformed_json
            + "   \n"                                                                             // 3 blank
            + String.format(GOOD, "b", "1", "2.0") + "\r\n"                                       // 4 ok, CRLF
            + "{\"request_id\":\"big\",\"pad\":\"" + "x".repeat(300) + "\"}\n"                    // 5 line_too_long
            + "{\"request_id\":\"c\",\"arrival_s\":\"x\",\"input_tokens\":1,\"output_tokens\":1}\n" // 6 bad_type
            + String.format(GOOD, "a", "2", "3.0") + "\n"                                         // 7 duplicate of 1
            + "\r\n"                                                                              // 8 blank CRLF
            + String.format(GOOD, "d", "2", "0.5") + "\r\n"                                       // 9 ok, out of order
            + String.format(GOOD, "e", "3", "4.0");                                               // 10 ok, no newline
    Path f = write("mixed.jsonl", content);
    long bad6 = lineStart(content, 6);
    long cr2 = content.indexOf("\r\n");
    long[] splits = {
      bad6,          // a boundary exactly at the start of a bad line (line 6)
      cr2,           // between the CR and the LF of line 2, and further boundaries at its multiples
      cr2 + 1,       // right after a CRLF
      lineStart(content, 5) + 150, // inside the over-long line: its range owns it, later ones own nothing
      64,            // many boundaries, most inside lines
      37
    };
    StageRuns.Ingested one = assertSameAsOneRange(200, splits, f).one();
    // and it is the right result: 8 data lines (3 and 8 are blank); a, b, d, e accepted; 4 quarantined
    JsonNode file = one.summary().get("files").get(0);
    assertEquals(8, file.get("read").asLong());
    assertEquals(4, file.get("accepted").asLong());
    assertEquals(4, file.get("quarantined").asLong());
    assertEquals(2, file.get("blank_lines").asLong());
    assertEquals(1, file.get("out_of_order").asLong()); // d (0.5) comes after a (1.0) and b (2.0)
    Map<Long, String> reasonByLine = new TreeMap<>();
    for (Row q : spark.read().parquet(one.out() + "/quarantine").collectAsList()) {
      reasonByLine.put(q.getLong(q.fieldIndex("line")), q.getAs("reason"));
    }
    assertEquals(Map.of(2L, "malformed_json", 5L, "line_too_long", 6L, "bad_type", 7L, "duplicate_request_id"), reasonByLine);
  }

  @Test
  void inOrderFile_rangesBecomePartsOfTheOutput_inFileOrder() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 40; i++) sb.append(String.format(GOOD, "r" + i, "" + (i / 4), i + ".0")).append('\n');
    Path f = write("ordered.jsonl", sb.toString());
    long size = Files.size(f);
    Runs runs = assertSameAsOneRange(1000, new long[] {size / 5, 333}, f);
    StageRuns.Ingested one = runs.one();
    StageRuns.Ingested split = runs.split().get(0); // the size / 5 ingest
    // in order with unique ids: the staged parts are kept, one per range (5, plus a remainder)
    assertTrue(parts(split, "trace", 0) >= 5, "parts: " + parts(split, "trace", 0));
    assertEquals(1, parts(one, "trace", 0));
    JsonNode ds = split.summary().get("dataset");
    assertEquals(40, ds.get("requests").asLong());
    assertEquals(10, ds.get("sessions").asLong()); // s0..s9, four requests each
    assertEquals(80, ds.get("blocks").asLong());
    assertEquals(0.0, ds.get("first_arrival_s").asDouble());
    assertEquals(39.0, ds.get("last_arrival_s").asDouble());
  }

  @Test
  void outOfOrderAcrossRanges_isCountedAsInOneRange() throws IOException {
    // arrivals 1, 3, 2, 5, 4, 6, 0.5, 7: below the running maximum are 2 (<3), 4 (<5), 0.5 (<6) = 3
    double[] a = {1, 3, 2, 5, 4, 6, 0.5, 7};
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < a.length; i++) sb.append(String.format(GOOD, "r" + i, "1", a[i])).append('\n');
    Path f = write("ooo.jsonl", sb.toString());
    String content = sb.toString();
    // boundaries before line 3 (2 < 3 only against the previous range), before line 7, and everywhere
    StageRuns.Ingested one = assertSameAsOneRange(1000,
        new long[] {lineStart(content, 3), lineStart(content, 7), lineStart(content, 2), 50}, f).one();
    assertEquals(3, one.summary().get("files").get(0).get("out_of_order").asLong());
  }

  @Test
  void mooncake_lineNumberIdsAcrossRanges_countDataLinesOnly() throws IOException {
    String rec = "{\"timestamp\": %d, \"input_length\": 600, \"output_length\": 6, \"hash_ids\": [0, %d]}";
    String content =
        String.format(rec, 0, 1) + "\n"      // line 1: data line 0 -> id "0"
            + "\n"                           // line 2: blank, not a data line
            + String.format(rec, 1000, 2) + "\r\n" // line 3: id "1"
            + "{\"timestamp\": oops\n"       // line 4: data line 2, quarantined (its id is used up)
            + String.format(rec, 2000, 3) + "\n"   // line 5: id "3"
            + "  \r\n"                       // line 6: blank
            + String.format(rec, 3000, 4) + "\n"   // line 7: id "4"
            + String.format(rec, 4000, 5) + "\n";  // line 8: id "5"
    Path f = write("mc.jsonl", content);
    StageRuns.Ingested one = assertSameAsOneRange(1000, new long[] {lineStart(content, 4), lineStart(content, 5) + 7, 30}, f).one();
    Map<Long, String> idByLine = spark.read().parquet(one.out() + "/trace").collectAsList().stream()
        .collect(Collectors.toMap(r -> r.getLong(r.fieldIndex(Canonical.SEQ)), r -> r.getAs(Canonical.REQUEST_ID), (x, y) -> x, TreeMap::new));
    assertEquals(Map.of(1L, "0", 3L, "1", 5L, "3", 7L, "4", 8L, "5"), idByLine);
  }

  @Test
  void azureCsv_headerInTheFirstRangeOnly_idsAndRebasingAsInOneRange() throws IOException {
    String content = "\n"
        + "TIMESTAMP,ContextTokens,GeneratedTokens\n"
        + "2023-11-16 18:15:46.6805900,374,44\n"
        + "2023-11-16 18:15:50.9951690,396,109\n"
        + "yesterday,1,1\n"
        + "\n"
        + "2023-11-16 18:16:01.5,10,2\n"
        + "2023-11-16 18:16:02.5,11,3\n";
    Path f = write("azure.csv", content);
    StageRuns.Ingested one = assertSameAsOneRange(1000, new long[] {lineStart(content, 3), lineStart(content, 5), 20}, f).one();
    // ids are 0-based among data rows after the header: 0, 1, (2 quarantined), 3, 4
    List<String> ids = spark.read().parquet(one.out() + "/trace").orderBy(Canonical.SEQ).collectAsList().stream()
        .map(r -> (String) r.getAs(Canonical.REQUEST_ID)).toList();
    assertEquals(List.of("0", "1", "3", "4"), ids);
  }

  @Test
  void splitFileBesideAGzipFile_eachKeepsItsFileIndexAndLines() throws IOException {
    String rec = "{\"timestamp\": %d, \"input_length\": 600, \"output_length\": 6, \"hash_ids\": [0, %d]}\n";
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 12; i++) sb.append(String.format(rec, 1000 * i, i));
    Path plain = write("a.jsonl", sb.toString());
    Path gz = tmp.resolve("b.jsonl.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      o.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    }
    Runs runs = assertSameAsOneRange(1000, new long[] {100}, plain, gz);
    StageRuns.Ingested one = runs.one();
    StageRuns.Ingested split = runs.split().get(0);
    List<String> ids = spark.read().parquet(split.out() + "/trace").orderBy(Canonical.SEQ).collectAsList().stream()
        .map(r -> (String) r.getAs(Canonical.REQUEST_ID)).toList();
    assertEquals("f0:0", ids.get(0));
    assertEquals("f0:11", ids.get(11));
    assertEquals("f1:0", ids.get(12));
    assertEquals(24, one.accepted());
  }
}
