package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * An audit output folder on any Hadoop file system (docs/report.md "Folder layout"): reads its
 * JSON files and its small result tables (collected to the driver: series, distributions and
 * per-run rows, never the trace) and writes the report's files into it.
 */
public final class AuditFolder {
  private final SparkSession spark;
  private final FileSystem fs;
  private final Path root;
  private final String label;
  /** The names written through this handle, in order. */
  private final List<String> written = new java.util.ArrayList<>();

  private AuditFolder(SparkSession spark, FileSystem fs, Path root, String label) {
    this.spark = spark;
    this.fs = fs;
    this.root = root;
    this.label = label;
  }

  /** Opens an existing folder; a missing one is bad input naming it. */
  public static AuditFolder open(SparkSession spark, String dir) {
    return open(spark, dir, dir);
  }

  /** As {@link #open(SparkSession, String)}, naming the folder {@code label} in the report. */
  public static AuditFolder open(SparkSession spark, String dir, String label) {
    try {
      Path p = new Path(dir);
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      p = fs.makeQualified(p);
      if (!fs.getFileStatus(p).isDirectory()) throw new BadInputException(dir, "not a folder (expected an audit output folder)");
      return new AuditFolder(spark, fs, p, label == null ? dir : label);
    } catch (java.io.FileNotFoundException e) {
      throw new BadInputException(dir, "audit folder does not exist");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The folder as the user named it. */
  public String label() {
    return label;
  }

  public String uri() {
    return root.toString();
  }

  public SparkSession spark() {
    return spark;
  }

  public boolean exists(String rel) {
    try {
      return fs.exists(new Path(root, rel));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JSON file of the folder, or null when it does not exist; malformed JSON is bad input. */
  public JsonNode json(String rel) {
    Path p = new Path(root, rel);
    try {
      if (!fs.exists(p)) return null;
      try (InputStream in = fs.open(p)) {
        return Json.MAPPER.readTree(in);
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new BadInputException(p.toString(), e.getLocation() == null ? -1 : e.getLocation().getLineNr(), null,
          "not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + p + ": " + e.getMessage(), e);
    }
  }

  /**
   * A result table (a Parquet folder) collected to the driver, sorted as written; null when the
   * folder does not exist or holds no data file.
   */
  public List<Row> table(String rel) {
    return table(rel, null);
  }

  /** As {@link #table(String)}, keeping only the rows matching {@code filter} (applied in Spark). */
  public List<Row> table(String rel, org.apache.spark.sql.Column filter) {
    Path p = new Path(root, rel);
    try {
      if (!fs.exists(p)) return null;
      boolean data = false;
      for (FileStatus s : fs.listStatus(p)) {
        String n = s.getPath().getName();
        if (!n.startsWith("_") && !n.startsWith(".")) data = true;
      }
      if (!data) return null;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + p + ": " + e.getMessage(), e);
    }
    org.apache.spark.sql.Dataset<Row> d = spark.read().parquet(p.toString());
    if (filter != null) d = d.where(filter);
    return d.collectAsList();
  }

  /** The {@code n} rows with the largest {@code orderCol} (sorted in Spark: the table may be large), or null. */
  public List<Row> top(String rel, String orderCol, int n) {
    Path p = new Path(root, rel);
    try {
      if (!fs.exists(p)) return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return spark.read().parquet(p.toString())
        .orderBy(org.apache.spark.sql.functions.col(orderCol).desc_nulls_last()).limit(n).collectAsList();
  }

  public void writeBytes(String name, byte[] bytes) {
    Path p = new Path(root, name);
    try (OutputStream out = fs.create(p, true)) {
      out.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + p + ": " + e.getMessage(), e);
    }
    synchronized (written) {
      written.add(name);
    }
  }

  /** The names written into the folder through this handle so far, in order. */
  public List<String> written() {
    synchronized (written) {
      return List.copyOf(written);
    }
  }

  public void writeString(String name, String s) {
    writeBytes(name, s.getBytes(StandardCharsets.UTF_8));
  }
}
