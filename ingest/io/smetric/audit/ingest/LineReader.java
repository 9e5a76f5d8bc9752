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
  private static final int KEEP_PREFIX = 4096;

  LineReader(InputStream in, int maxLineBytes) {
    this.in = in;
    this.maxLine = maxLineBytes;
  }

  /** Advances to the next line; false at end of input (or at a stream error). */
  boolean next() {
    if (eof) return false;
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
