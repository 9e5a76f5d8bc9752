package io.smetric.audit.ingest;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetWriter;

/**
 * The ingest task for one text input file, or for one byte range of a large uncompressed one:
 * streams its lines (memory bounded by the longest line), parses each line once, writes accepted
 * records to a canonical Parquet part and rejected ones to a quarantine part, and returns the
 * accounting of what it read. Every non-blank data line ends up in exactly one of the two parts:
 * read = accepted + quarantined. A range knows how many lines (and data lines) of the file come
 * before it, counted by a pre-pass, so line numbers, {@code seq} and line-number ids are the same
 * as if one task had read the whole file.
 */
final class FileScanner {
  private FileScanner() {}

  /**
   * The part of a file one task reads: the lines that start in {@code [start, end)}.
   *
   * @param index 0-based range index within the file
   * @param linesBefore physical lines of the file before the range
   * @param dataBefore data lines (not blank; the CSV header included) before the range
   * @param expectedLines lines the pre-pass counted in this range, or -1 if not counted (last range)
   */
  record Range(int index, long start, long end, long linesBefore, long dataBefore, long expectedLines) implements Serializable {
    static final Range WHOLE = new Range(0, 0, Long.MAX_VALUE, 0, 0, -1);

    boolean whole() {
      return start == 0 && end == Long.MAX_VALUE;
    }
  }

  /**
   * Everything a task needs to scan one file or range; serialisable for Spark. {@code header} is
   * the file's first data line, for formats with a header that a later range must know (CSV).
   */
  record Task(int fileIndex, String path, TraceFormat format, TraceFormat.ParseContext context,
      int maxLineBytes, String traceDir, String quarantineDir, Range range, String header, long headerLine)
      implements Serializable {
    /** A task for a whole file. */
    Task(int fileIndex, String path, TraceFormat format, TraceFormat.ParseContext context,
        int maxLineBytes, String traceDir, String quarantineDir) {
      this(fileIndex, path, format, context, maxLineBytes, traceDir, quarantineDir, Range.WHOLE, null, 0);
    }
  }

  /** Name of the Parquet part of one range; names sort in input order (file, then range). */
  static String partName(int fileIndex, int range) {
    return String.format(Locale.ROOT, "part-%05d-%05d.parquet", fileIndex, range);
  }

  static FileStats run(Task t, Configuration conf) {
    FileStats st = new FileStats();
    st.fileIndex = t.fileIndex();
    st.range = t.range().index();
    st.path = t.path();
    st.format = t.format().id();
    Range rg = t.range();
    String part = partName(t.fileIndex(), rg.index());
    Path file = new Path(t.path());
    RecordParser parser = t.format().parser(t.context());
    Staged s = new Staged();
    ParquetWriter<ParquetSinks.QRow> qw = null;
    try (InputStream in = rg.whole() ? InputFiles.open(file, conf) : InputFiles.openRange(file, conf, rg.start());
        ParquetWriter<Staged> tw = ParquetSinks.canonical(new Path(t.traceDir(), part), conf)) {
      LineReader r = new LineReader(in, t.maxLineBytes(), rg.start(), rg.end(), rg.linesBefore());
      // the header is the file's first data line: this range reads it if no data line came before
      boolean headerPending = parser.hasHeader() && rg.dataBefore() == 0;
      if (parser.hasHeader() && !headerPending) {
        String err = parser.header(t.header());
        if (err != null) throw new BadInputException(t.path(), t.headerLine(), null, err);
      }
      long index = parser.hasHeader() && !headerPending ? rg.dataBefore() - 1 : rg.dataBefore();
      double runMax = Double.NEGATIVE_INFINITY;
      while (r.next()) {
        if (r.blank() && !r.tooLong()) {
          st.blankLines++;
          continue;
        }
        if (headerPending) {
          headerPending = false;
          st.headerLines++;
          String err = parser.header(new String(r.bytes(), 0, r.length(), StandardCharsets.UTF_8));
          if (err != null) throw new BadInputException(t.path(), r.lineNumber(), null, err);
          continue;
        }
        st.read++;
        s.reset();
        if (r.tooLong()) {
          s.fail(Reasons.LINE_TOO_LONG, null, "line is longer than " + t.maxLineBytes() + " bytes (--max-line-bytes); first 4096 bytes kept");
        } else if (r.cutByError()) {
          s.fail(Reasons.TRUNCATED_INPUT, null, "the line was cut short: " + r.streamError());
        } else {
          parser.parse(r.bytes(), r.length(), index, s);
        }
        index++;
        if (s.ok()) {
          s.seqValue = Canonical.seq(t.fileIndex(), r.lineNumber());
          account(st, s, runMax);
          runMax = Math.max(runMax, s.arrivalS);
          tw.write(s);
        } else {
          if (qw == null) qw = ParquetSinks.quarantine(new Path(t.quarantineDir(), part), conf);
          st.quarantine(s.reason);
          qw.write(new ParquetSinks.QRow(t.path(), r.lineNumber(), s.reason, s.field, s.detail,
              new String(r.bytes(), 0, r.length(), StandardCharsets.UTF_8)));
        }
      }
      st.lines = r.lineNumber() - rg.linesBefore();
      if (r.streamError() != null) {
        st.findings.add("input ends early after line " + r.lineNumber() + ": " + r.streamError());
      } else if (rg.expectedLines() >= 0 && st.lines != rg.expectedLines()) {
        // the pre-pass and this pass disagree: the file changed while it was read
        throw new BadInputException(t.path(), rg.linesBefore() + 1, null, String.format(Locale.ROOT,
            "bytes %d..%d held %d lines when counted but %d when parsed: was the file changed during ingest?",
            rg.start(), rg.end(), rg.expectedLines(), st.lines));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("ingest of " + t.path() + " failed: " + e.getMessage(), e);
    } finally {
      if (qw != null) {
        try {
          qw.close();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot close the quarantine part of " + t.path(), e);
        }
      }
    }
    return st;
  }

  private static void account(FileStats st, Staged s, double runMax) {
    st.accepted++;
    double a = s.arrivalS;
    if (a < runMax) st.outOfOrder++;
    if (Double.isNaN(st.firstArrival)) st.firstArrival = a;
    st.lastArrival = a;
    st.minArrival = Math.min(st.minArrival, a);
    st.maxArrival = Math.max(st.maxArrival, a);
    if (s.tsAbsUs != null) st.minAbsUs = st.minAbsUs == null ? s.tsAbsUs : Math.min(st.minAbsUs, s.tsAbsUs);
    if (s.hasBlocks) {
      st.withBlocks++;
      st.blocksTotal += s.blocks.size();
      st.blockSizes.add(s.blockSize);
      if (s.blocks.size() != Canonical.expectedBlocks((int) s.inputTokens, s.blockSize)) st.blockCountMismatch++;
    }
    if (s.sessionId != null) st.withSession++;
    if (s.turn != null) {
      st.withTurn++;
      if (s.turn == 0) st.turnZero++;
      if (s.parentId == null) st.minRootTurn = Math.min(st.minRootTurn, s.turn);
    }
    st.inputTokens += s.inputTokens;
    st.outputTokens += s.outputTokens;
  }
}
