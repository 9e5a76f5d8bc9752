package io.smetric.audit.ingest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.zip.ZipException;

/**
 * Reads '\n'-terminated lines as bytes with a size limit, counting physical line numbers. A line
 * longer than the limit is not buffered whole: its first {@code keepPrefix} bytes are kept for
 * the quarantine entry and the rest is skipped. A truncated or corrupt compressed stream ends the
 * file with {@link #streamError()} set instead of an exception, so the records before it count.
 *
 * <p>A reader may also cover one byte range of a file (Hadoop's split rule): it owns every line
 * that STARTS in {@code [start, end)}. A range that does not begin the file is given a stream
 * positioned at {@code start - 1} and skips through the first newline (the byte before the
 * range tells whether a line starts exactly at {@code start}); the last owned line is read to
 * its end even past {@code end}. {@link #countRange} counts the same lines without buffering
 * them, so that each range learns its first line number before it is parsed.
 */
final class LineReader {
  private final InputStream in;
  private final int maxLine;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int lim;
  private byte[] line = new byte[1 << 12];
  private int len;
  private boolean tooLong;
  private long lineNo;
  private String streamError;
  private boolean eof;
  private boolean cut;
  /** Absolute stream position of buf[0]. */
  private long bufBase;
  private final long end;
  private boolean skipPartial;
  private static final int KEEP_PREFIX = 4096;

  LineReader(InputStream in, int maxLineBytes) {
    this(in, maxLineBytes, 0, Long.MAX_VALUE, 0);
  }

  /**
   * A reader of the lines that start in {@code [start, end)}.
   *
   * @param in the stream, positioned at {@code start - 1} if {@code start > 0}, else at 0
   * @param linesBefore physical lines of the file before this range (line numbers continue from it)
   */
  LineReader(InputStream in, int maxLineBytes, long start, long end, long linesBefore) {
    this.in = in;
    this.maxLine = maxLineBytes;
    this.end = end;
    this.skipPartial = start > 0;
    this.bufBase = start > 0 ? start - 1 : 0;
    this.lineNo = linesBefore;
  }

  /** Advances to the next line; false at end of input (or at a stream error). */
  boolean next() {
    if (eof) return false;
    if (skipPartial) {
      skipPartial = false;
      if (!skipThroughNewline()) return false;
    }
    if (bufBase + pos >= end) return false;
    len = 0;
    tooLong = false;
    cut = false;
    long count = 0;
    boolean any = false;
    while (true) {
      if (pos == lim) {
        if (!fill()) {
          if (!any) return false;
          cut = streamError != null; // a line the broken stream cut short
          break; // last line without newline
        }
      }
      any = true;
      int start = pos;
      while (pos < lim && buf[pos] != '\n') pos++;
      int n = pos - start;
      count += n;
      append(start, n);
      if (pos < lim) {
        pos++; // consume '\n'
        break;
      }
    }
    if (count > maxLine) tooLong = true;
    // strip CR of CRLF files
    if (!tooLong && len > 0 && line[len - 1] == '\r') len--;
    lineNo++;
    return true;
  }

  /** Consumes bytes through the first newline; false if the input ends first. */
  private boolean skipThroughNewline() {
    while (true) {
      if (pos == lim && !fill()) return false;
      while (pos < lim && buf[pos] != '\n') pos++;
      if (pos < lim) {
        pos++;
        return true;
      }
    }
  }

  private void append(int start, int n) {
    if (n == 0) return;
    int room = (int) Math.min((long) maxLine + 1, Integer.MAX_VALUE - 16) - len;
    int take = Math.min(n, Math.max(0, room));
    if (take > 0) {
      ensure(len + take);
      System.arraycopy(buf, start, line, len, take);
      len += take;
    }
  }

  private void ensure(int cap) {
    if (cap > line.length) line = Arrays.copyOf(line, Math.max(cap, line.length * 2));
  }

  private boolean fill() {
    try {
      int n = in.read(buf, 0, buf.length);
      if (n <= 0) {
        eof = true;
        return false;
      }
      bufBase += lim;
      pos = 0;
      lim = n;
      return true;
    } catch (EOFException | ZipException e) {
      streamError = "compressed stream is truncated or corrupt (" + e.getMessage() + ")";
      eof = true;
      return false;
    } catch (IOException e) {
      streamError = "read failed: " + e.getMessage();
      eof = true;
      return false;
    }
  }

  /** Lines in a range and how many of them are data lines (not blank, or over the size limit). */
  record Count(long lines, long dataLines) implements java.io.Serializable {}

  /**
   * Counts the lines that start in {@code [start, end)} of {@code in} (positioned as for the range
   * constructor) exactly as {@link #next()} would return them: a line is a data line unless it is
   * at most {@code maxLineBytes} long and holds only blanks (space, tab, CR), as {@link #blank()}.
   * A tight loop over the bytes: no line is copied.
   */
  static Count countRange(InputStream in, int maxLineBytes, long start, long end) throws IOException {
    LineReader r = new LineReader(in, maxLineBytes, start, end, 0);
    if (r.skipPartial) {
      r.skipPartial = false;
      if (!r.skipThroughNewline()) return new Count(0, 0);
    }
    byte[] b = r.buf;
    long lines = 0;
    long data = 0;
    boolean inLine = false; // inside a line whose first byte has been seen
    boolean nonBlank = false;
    long lineLen = 0;
    while (true) {
      int p = r.pos;
      int lim = r.lim;
      while (p < lim) {
        if (!inLine) {
          if (r.bufBase + p >= end) return new Count(lines, data);
          inLine = true;
          nonBlank = false;
          lineLen = 0;
        }
        int s = p;
        if (!nonBlank) {
          // blank prefix; usually the first byte of a line already decides
          while (p < lim) {
            byte c = b[p];
            if (c == '\n' || (c != ' ' && c != '\t' && c != '\r')) break;
            p++;
          }
          if (p < lim && b[p] != '\n') nonBlank = true;
        }
        while (p < lim && b[p] != '\n') p++;
        lineLen += p - s;
        if (p < lim) {
          p++; // the newline ends the line
          lines++;
          if (nonBlank || lineLen > maxLineBytes) data++;
          inLine = false;
        }
      }
      r.pos = p;
      if (!r.fill()) break;
    }
    if (r.streamError != null) throw new IOException(r.streamError);
    if (inLine) {
      lines++;
      if (nonBlank || lineLen > maxLineBytes) data++;
    }
    return new Count(lines, data);
  }

  byte[] bytes() { return line; }

  int length() { return tooLong ? Math.min(len, KEEP_PREFIX) : len; }

  boolean tooLong() { return tooLong; }

  long lineNumber() { return lineNo; }

  /** True if the current line was cut short by a stream error (e.g. a truncated gzip file). */
  boolean cutByError() { return cut; }

  /** Non-null when the stream ended with an error (truncated gzip, I/O failure). */
  String streamError() { return streamError; }

  /** True if the current line consists of blanks only. */
  boolean blank() {
    for (int i = 0; i < len; i++) {
      byte b = line[i];
      if (b != ' ' && b != '\t' && b != '\r') return false;
    }
    return true;
  }
}
