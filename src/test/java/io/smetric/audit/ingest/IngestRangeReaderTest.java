package io.smetric.audit.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Byte ranges of a file read with {@link LineReader} (Hadoop's rule: a range owns the lines that
 * start in it) give exactly the lines, line numbers and flags of one reader over the whole file,
 * for every possible split size, and {@link LineReader#countRange} counts what the ranges read.
 */
class IngestRangeReaderTest {
  @TempDir Path tmp;

  /** What a reader returned for one line. */
  private record Seen(long line, String text, boolean blank, boolean tooLong) {}

  // lines: CRLF ends, a blank CRLF line, a blank line of spaces, a line over the limit (30 bytes),
  // an empty line, a line of one byte, and a last line without a newline
  private static final String CONTENT =
      "{\"a\":1}\r\n"
          + "\r\n"
          + "   \n"
          + "{\"b\":2,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n"
          + "\n"
          + "x\n"
          + "{\"c\":3}\r\n"
          + "      \t                                   \n" // blank but over the limit: a data line
          + "{\"d\":4}";

  private static final int MAX = 30;

  private static List<Seen> read(LineReader r) {
    List<Seen> out = new ArrayList<>();
    while (r.next()) {
      out.add(new Seen(r.lineNumber(), new String(r.bytes(), 0, r.length(), StandardCharsets.UTF_8), r.blank(), r.tooLong()));
    }
    return out;
  }

  private static InputStream at(byte[] b, long start) {
    ByteArrayInputStream in = new ByteArrayInputStream(b);
    in.skip(start > 0 ? start - 1 : 0);
    return in;
  }

  @Test
  void everySplitSize_rangesReadTheWholeFilesLinesOnce_withItsLineNumbers() throws IOException {
    for (String content : List.of(CONTENT, CONTENT + "\n", "\n" + CONTENT, "", "\n", "x", "\r\n\r\n")) {
      byte[] b = content.getBytes(StandardCharsets.UTF_8);
      List<Seen> whole = read(new LineReader(new ByteArrayInputStream(b), MAX));
      for (int split = 1; split <= b.length + 1; split++) {
        List<Seen> joined = new ArrayList<>();
        long linesBefore = 0;
        for (long start = 0; start < Math.max(b.length, 1); start += split) {
          boolean last = start + split >= b.length;
          long end = last ? Long.MAX_VALUE : start + split;
          List<Seen> got = read(new LineReader(at(b, start), MAX, start, end, linesBefore));
          joined.addAll(got);
          LineReader.Count c = LineReader.countRange(at(b, start), MAX, start, end);
          String where = "split " + split + " range at " + start + " of " + content.replace("\n", "\\n").replace("\r", "\\r");
          assertEquals(got.size(), c.lines(), "lines counted, " + where);
          // a data line is what ingest reads as a record: not blank, or over the limit
          assertEquals(got.stream().filter(s -> !s.blank() || s.tooLong()).count(), c.dataLines(), "data lines, " + where);
          linesBefore += c.lines();
        }
        assertEquals(whole, joined, "split " + split);
      }
    }
  }

  @Test
  void wholeFile_linesAreNumberedFromOne_crOfCrlfStripped_longLineFlagged() {
    List<Seen> whole = read(new LineReader(new ByteArrayInputStream(CONTENT.getBytes(StandardCharsets.UTF_8)), MAX));
    // 9 physical lines; the 4th (50 bytes) and the 8th (43 blank bytes) are over the 30-byte limit
    assertEquals(9, whole.size());
    assertEquals(new Seen(1, "{\"a\":1}", false, false), whole.get(0));
    assertTrue(whole.get(1).blank(), "a CRLF blank line is blank");
    assertTrue(whole.get(3).tooLong());
    assertTrue(whole.get(7).tooLong());
    assertEquals(new Seen(9, "{\"d\":4}", false, false), whole.get(8));
  }

  @Test
  void rangeCountedWithOtherLines_thanItHoldsWhenParsed_isReportedAsAChangedFile() throws IOException {
    Path f = tmp.resolve("t.jsonl");
    Files.writeString(f, "{\"request_id\":\"a\",\"arrival_s\":1,\"input_tokens\":1,\"output_tokens\":1}\n".repeat(3));
    // bytes 0..10 hold one line start (line 1); claim the pre-pass counted 2
    FileScanner.Task t = new FileScanner.Task(0, f.toString(), TraceFormat.SMETRIC, new TraceFormat.ParseContext(null, "", 0),
        1000, tmp.resolve("tr").toString(), tmp.resolve("q").toString(), new FileScanner.Range(0, 0, 10, 0, 0, 2), null, 0);
    BadInputException e = assertThrows(BadInputException.class, () -> FileScanner.run(t, new Configuration()));
    assertTrue(e.oneLine().contains("changed during ingest"), e.oneLine());
  }
}
