package io.smetric.audit.hasher;

import io.smetric.audit.common.BadInputException;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

/**
 * One log file opened for its reader: through any Hadoop file system, decompressed by the codec its
 * name implies (.gz, .bz2, ...), with leading whitespace and a UTF-8 byte-order mark skipped, so that
 * a reader's first byte is the first JSON character. Records whether the file is empty and whether
 * its content is one JSON array (the readers then stream its elements).
 */
final class LogInput implements Closeable {
  private final InputStream in;
  private final boolean empty;
  private final boolean startsWithArray;

  private LogInput(InputStream in, boolean empty, boolean startsWithArray) {
    this.in = in;
    this.empty = empty;
    this.startsWithArray = startsWithArray;
  }

  /** Opens {@code uri}; a missing file is bad input naming it. */
  static LogInput open(String uri, Configuration conf) throws IOException {
    Path p = new Path(uri);
    InputStream raw;
    try {
      raw = p.getFileSystem(conf).open(p);
    } catch (java.io.FileNotFoundException e) {
      throw new BadInputException(uri, "file not found");
    }
    CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(p);
    PushbackInputStream pb = new PushbackInputStream(codec == null ? raw : codec.createInputStream(raw), 1);
    int c;
    do {
      c = pb.read();
    } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF);
    if (c < 0) return new LogInput(pb, true, false);
    pb.unread(c);
    return new LogInput(pb, false, c == '[');
  }

  InputStream stream() {
    return in;
  }

  /** Nothing but whitespace (or nothing at all). */
  boolean empty() {
    return empty;
  }

  /** The content is one JSON array of records (or trajectories). */
  boolean startsWithArray() {
    return startsWithArray;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
