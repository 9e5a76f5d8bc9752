package io.smetric.audit.generate;

/** Hand formatting of numbers into byte buffers (no String or boxing per number). */
final class Ascii {
  private Ascii() {}

  /** Writes v (any long) in decimal at pos; returns the new position. Needs 20 free bytes. */
  static int putLong(byte[] buf, int pos, long v) {
    if (v == Long.MIN_VALUE) {
      byte[] m = Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      System.arraycopy(m, 0, buf, pos, m.length);
      return pos + m.length;
    }
    if (v < 0) {
      buf[pos++] = '-';
      v = -v;
    }
    int digits = digits(v);
    int end = pos + digits;
    int p = end;
    do {
      long q = v / 10;
      buf[--p] = (byte) ('0' + (int) (v - q * 10));
      v = q;
    } while (v != 0);
    return end;
  }

  static int digits(long v) {
    int d = 1;
    while (v >= 10) {
      v /= 10;
      d++;
    }
    return d;
  }

  /**
   * Writes a non-negative time in seconds rounded to the microsecond, always with six decimals
   * ({@code 12.000500}): exact, locale-free and the same on every JVM.
   */
  static int putMicros(byte[] buf, int pos, long micros) {
    if (micros < 0) {
      buf[pos++] = '-';
      micros = -micros;
    }
    pos = putLong(buf, pos, micros / 1_000_000);
    buf[pos++] = '.';
    long frac = micros % 1_000_000;
    for (long div = 100_000; div > 0; div /= 10) {
      buf[pos++] = (byte) ('0' + (int) (frac / div % 10));
    }
    return pos;
  }
}
