package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.CanonicalParquet;
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

  /** The file system of {@code path} ({@link CanonicalParquet#fileSystem}). */
  public static FileSystem fileSystem(String path, Configuration conf) throws IOException {
    return CanonicalParquet.fileSystem(path, conf);
  }

  /** Block ids in the dataset (from the footers). */
  public long blockIds() {
    return parquet.blockValues();
  }
}
