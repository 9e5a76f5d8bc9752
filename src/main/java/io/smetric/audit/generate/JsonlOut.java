package io.smetric.audit.generate;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A byte buffer in front of an output stream with just the JSON pieces the trace writers need.
 * Numbers are formatted by hand into the buffer ({@link Ascii}); field names are pre-encoded.
 */
final class JsonlOut implements AutoCloseable {
  private final OutputStream out;
  private final byte[] buf = new byte[1 << 20];
  private int pos;

  JsonlOut(OutputStream out) {
    this.out = out;
  }

  private void room(int n) throws IOException {
    if (pos + n > buf.length) {
      out.write(buf, 0, pos);
      pos = 0;
    }
  }

  JsonlOut raw(byte[] b) throws IOException {
    return raw(b, 0, b.length);
  }

  JsonlOut raw(byte[] b, int off, int len) throws IOException {
    if (len > buf.length / 2) {
      out.write(buf, 0, pos);
      pos = 0;
      out.write(b, off, len);
      return this;
    }
    room(len);
    System.arraycopy(b, off, buf, pos, len);
    pos += len;
    return this;
  }

  JsonlOut num(long v) throws IOException {
    room(21);
    pos = Ascii.putLong(buf, pos, v);
    return this;
  }

  JsonlOut micros(long micros) throws IOException {
    room(30);
    pos = Ascii.putMicros(buf, pos, micros);
    return this;
  }

  JsonlOut ch(char c) throws IOException {
    room(1);
    buf[pos++] = (byte) c;
    return this;
  }

  /** An ASCII string without characters that need escaping (ids, enum words). */
  JsonlOut str(String s) throws IOException {
    room(s.length() + 2);
    buf[pos++] = '"';
    for (int i = 0; i < s.length(); i++) buf[pos++] = (byte) s.charAt(i);
    buf[pos++] = '"';
    return this;
  }

  /** {@code [id,id,...]} from an {@link IdList}'s cached text (which ends every id with a comma). */
  JsonlOut ids(IdList l) throws IOException {
    ch('[');
    if (l.textLen > 0) raw(l.text, 0, l.textLen - 1);
    return ch(']');
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  void flush() throws IOException {
    out.write(buf, 0, pos);
    pos = 0;
    out.flush();
  }

  @Override
  public void close() throws IOException {
    flush();
    out.close();
  }
}
