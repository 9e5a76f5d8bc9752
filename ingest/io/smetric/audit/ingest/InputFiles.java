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

  /**
   * The data files of the user's inputs, and the files of input folders left out as documentation
   * ({@link #documentation}): a dataset folder often carries its README, LICENSE and provenance
   * beside the data. A file named on its own is always a data file.
   */
  public record Resolved(List<Path> files, List<Path> skipped) {}

  /** Expands the user's inputs to a sorted list of data files, failing on a path that matches nothing. */
  public static List<Path> expand(List<String> inputs, Configuration conf) {
    return resolve(inputs, conf).files();
  }

  /** As {@link #expand}, also naming the documentation files it left out of input folders. */
  public static Resolved resolve(List<String> inputs, Configuration conf) {
    List<Path> out = new ArrayList<>();
    List<Path> skipped = new ArrayList<>();
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
            // a stage's output folder (ingest, hash, infer-sessions, replay --record-trace): its
            // trace/ holds the dataset, beside summaries that are not trace records
            Path stage = stageTrace(fs, st.getPath());
            FileStatus[] children = fs.listStatus(stage != null ? stage : st.getPath(), f -> !hidden(f.getName()));
            Arrays.sort(children);
            int before = out.size();
            List<String> docs = new ArrayList<>();
            for (FileStatus c : children) {
              if (!c.isFile()) continue;
              if (documentation(c.getPath().getName())) {
                skipped.add(fs.makeQualified(c.getPath()));
                docs.add(c.getPath().getName());
              } else {
                out.add(fs.makeQualified(c.getPath()));
              }
            }
            if (out.size() == before) {
              throw new BadInputException(in, "folder holds no data files"
                  + (docs.isEmpty() ? "" : " (only documentation: " + String.join(", ", docs) + ")"));
            }
          } else {
            out.add(fs.makeQualified(st.getPath()));
          }
        }
      } catch (IOException e) {
        throw new BadInputException(in, "cannot list: " + e.getMessage());
      }
    }
    return new Resolved(out, skipped);
  }

  private static final java.util.regex.Pattern DOC_NAME = java.util.regex.Pattern.compile(
      "(readme|license|licence|notice|copying|citation|provenance|authors|changelog)([._-].*)?");
  private static final List<String> DOC_EXTENSIONS = List.of(".md", ".markdown", ".rst", ".pdf", ".html", ".htm");
  private static final List<String> DATA_EXTENSIONS = List.of(".jsonl", ".json", ".csv", ".parquet");

  /**
   * A file that documents a dataset rather than holding it: README, LICENSE, NOTICE, COPYING,
   * CITATION, PROVENANCE, AUTHORS, CHANGELOG (any case, alone or with a . - _ suffix), and Markdown,
   * reST, PDF and HTML files; never a .jsonl, .json, .csv or .parquet file (compressed or not).
   */
  static boolean documentation(String name) {
    String n = name.toLowerCase(java.util.Locale.ROOT);
    String stem = n.replaceFirst("\\.(gz|bz2|zst|lz4|snappy|deflate)$", "");
    for (String ext : DATA_EXTENSIONS) if (stem.endsWith(ext)) return false; // readme_sessions.jsonl is data
    if (DOC_NAME.matcher(n).matches()) return true;
    for (String ext : DOC_EXTENSIONS) if (n.endsWith(ext)) return true;
    return false;
  }

  /**
   * The {@code trace/} folder of a stage's output folder, when it holds Parquet files; null for any
   * other folder (a folder of the user's own data files is read as it is).
   */
  static Path stageTrace(FileSystem fs, Path dir) throws IOException {
    Path t = new Path(dir, io.smetric.audit.contract.AuditLayout.TRACE_DIR);
    if (!fs.isDirectory(t)) return null;
    for (FileStatus c : fs.listStatus(t, f -> !hidden(f.getName()))) {
      if (c.isFile() && c.getPath().getName().endsWith(".parquet")) return t;
    }
    return null;
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
