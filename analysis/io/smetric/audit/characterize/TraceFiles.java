package io.smetric.audit.characterize;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A canonical dataset opened without Spark (the in-process path of {@code analyze}): the same
 * folder rules as {@link TraceInput#load} (the ingest output folder or the Parquet folder itself,
 * the ingest summary next to it), the Parquet files read by {@link CanonicalParquet}.
 */
public record TraceFiles(CanonicalParquet parquet, String location, JsonNode ingestSummary) {
  public static TraceFiles load(String dir, Configuration conf) {
    try {
      TraceInput.Located at = TraceInput.locate(fileSystem(dir, conf), dir);
      String parquet = at.parquet().toString();
      return new TraceFiles(CanonicalParquet.open(parquet, conf), parquet, at.ingestSummary());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The file system of {@code path}: for local paths a raw local file system made directly (no
   * checksum files, and none of the service scanning and user login of {@code FileSystem.get},
   * about half a second of CPU), else the configured one.
   */
  public static FileSystem fileSystem(String path, Configuration conf) throws IOException {
    Path p = new Path(path);
    if (isLocal(path)) {
      org.apache.hadoop.fs.RawLocalFileSystem fs = new org.apache.hadoop.fs.RawLocalFileSystem();
      fs.initialize(java.net.URI.create("file:///"), conf);
      return fs;
    }
    return p.getFileSystem(conf);
  }

  /** A path without a scheme, or a file: URI. */
  static boolean isLocal(String path) {
    String scheme = new Path(path).toUri().getScheme();
    return scheme == null || scheme.equals("file");
  }

  /** Block ids in the dataset (from the footers). */
  public long blockIds() {
    return parquet.blockValues();
  }
}
