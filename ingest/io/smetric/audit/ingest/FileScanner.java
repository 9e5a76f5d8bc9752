package io.smetric.audit.ingest;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.model.Canonical;
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
 * The ingest task for one text input file: streams it line by line (memory bounded by the
 * longest line), parses each line once, writes accepted records to a canonical Parquet part and
 * rejected ones to a quarantine part, and returns the file's accounting. Every non-blank data
 * line ends up in exactly one of the two parts: read = accepted + quarantined.
 */
final class FileScanner {
  private FileScanner() {}

  /** Everything a task needs to scan one file; serialisable for Spark. */
  record Task(int fileIndex, String path, TraceFormat format, TraceFormat.ParseContext context,
      int maxLineBytes, String traceDir, String quarantineDir) implements Serializable {}

  static FileStats run(Task t, Configuration conf) {
    FileStats st = new FileStats();
    st.fileIndex = t.fileIndex();
    st.path = t.path();
    st.format = t.format().id();
    String part = String.format(Locale.ROOT, "part-%05d.parquet", t.fileIndex());
    Path file = new Path(t.path());
    RecordParser parser = t.format().parser(t.context());
    Staged s = new Staged();
    ParquetWriter<ParquetSinks.QRow> qw = null;
    try (InputStream in = InputFiles.open(file, conf);
        ParquetWriter<Staged> tw = ParquetSinks.canonical(new Path(t.traceDir(), part), conf)) {
      LineReader r = new LineReader(in, t.maxLineBytes());
      boolean headerPending = parser.hasHeader();
      long index = 0;
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
      if (r.streamError() != null) {
        st.findings.add("input ends early after line " + r.lineNumber() + ": " + r.streamError());
      }
      if (st.read == 0) st.findings.add("empty file: no data lines");
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
