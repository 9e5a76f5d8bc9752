package io.smetric.audit.ingest;

import io.smetric.audit.common.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

/** Resolves input URIs (files, folders, globs on any Hadoop FileSystem) and opens them decompressed. */
public final class InputFiles {
  private InputFiles() {}

  /** Expands the user's inputs to a sorted list of data files, failing on a path that matches nothing. */
  public static List<Path> expand(List<String> inputs, Configuration conf) {
    List<Path> out = new ArrayList<>();
    for (String in : inputs) {
      try {
        Path p = new Path(in);
        FileSystem fs = p.getFileSystem(conf);
        FileStatus[] matches = fs.globStatus(p);
        if (matches == null || matches.length == 0) {
          throw new BadInputException(in, "no such file or folder");
        }
        Arrays.sort(matches);
        for (FileStatus st : matches) {
          if (st.isDirectory()) {
            FileStatus[] children = fs.listStatus(st.getPath(), f -> !hidden(f.getName()));
            Arrays.sort(children);
            int before = out.size();
            for (FileStatus c : children) if (c.isFile()) out.add(fs.makeQualified(c.getPath()));
            if (out.size() == before) throw new BadInputException(in, "folder holds no data files");
          } else {
            out.add(fs.makeQualified(st.getPath()));
          }
        }
      } catch (IOException e) {
        throw new BadInputException(in, "cannot list: " + e.getMessage());
      }
    }
    return out;
  }

  private static boolean hidden(String name) {
    return name.startsWith(".") || name.startsWith("_");
  }

  /** True if the file is stored uncompressed, so that byte ranges of it can be read on their own. */
  static boolean splittable(Path file, Configuration conf) {
    return !file.getName().endsWith(".gz") && new CompressionCodecFactory(conf).getCodec(file) == null;
  }

  /**
   * Opens an uncompressed file for the byte range starting at {@code start}: positioned at
   * {@code start - 1} (the byte before the range says whether a line starts at {@code start};
   * see {@link LineReader}), or at 0.
   */
  static InputStream openRange(Path file, Configuration conf, long start) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    org.apache.hadoop.fs.FSDataInputStream in = fs.open(file, 1 << 16);
    if (start > 0) in.seek(start - 1);
    return in;
  }

  /** Opens a file, decompressing by extension (.gz, .bz2, .zst, ...) with Hadoop's codecs. */
  public static InputStream open(Path file, Configuration conf) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    InputStream raw = fs.open(file, 1 << 16);
    if (file.getName().endsWith(".gz")) {
      // the JDK's reader reports truncation as an EOFException we can name; Hadoop's may not
      return new java.util.zip.GZIPInputStream(raw, 1 << 16);
    }
    CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(file);
    return codec == null ? raw : codec.createInputStream(raw);
  }
}
