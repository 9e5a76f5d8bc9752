package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.CanonicalParquet;
import static io.smetric.audit.contract.AuditLayout.INGEST_SUMMARY_FILE;
import static io.smetric.audit.contract.AuditLayout.TRACE_DIR;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * A canonical dataset as the ingest writes it: {@code DIR/trace/} (Parquet, {@link Canonical#SCHEMA})
 * and {@code DIR/ingest-summary.json} (data-quality findings). Either DIR or the Parquet folder
 * itself is accepted; the summary is looked up next to the Parquet folder in the second case.
 */
public record TraceInput(Dataset<Row> trace, String location, JsonNode ingestSummary) {
  /** Where a canonical dataset's Parquet folder is, and its ingest summary (null when there is none). */
  record Located(Path parquet, JsonNode ingestSummary) {}

  /**
   * The folder rules of {@link #load} and {@link TraceFiles#load}: DIR/trace when it exists, else
   * DIR itself; the summary next to the Parquet folder, read when present.
   */
  static Located locate(FileSystem fs, String dir) throws IOException {
    Path p = new Path(dir);
    if (!fs.exists(p)) throw new BadInputException(dir, "no such file or folder");
    Path parquet = fs.exists(new Path(p, TRACE_DIR)) ? new Path(p, TRACE_DIR) : p;
    Path summary = new Path(parquet.equals(p) ? p.getParent() : p, INGEST_SUMMARY_FILE);
    JsonNode s = null;
    if (summary != null && fs.exists(summary)) {
      try (InputStream in = fs.open(summary)) {
        s = Json.MAPPER.readTree(in);
      } catch (IOException e) {
        throw new BadInputException(summary.toString(), "unreadable ingest summary: " + e.getMessage());
      }
    }
    return new Located(parquet, s);
  }

  public static TraceInput load(SparkSession spark, String dir) {
    try {
      FileSystem fs = new Path(dir).getFileSystem(spark.sparkContext().hadoopConfiguration());
      Located at = locate(fs, dir);
      Path parquet = at.parquet();
      JsonNode s = at.ingestSummary();
      Dataset<Row> ds;
      try {
        StructType known = sparkSchema(fs, parquet, spark.sparkContext().hadoopConfiguration());
        // a known schema skips Spark's schema inference, which is a job of its own
        ds = known != null ? spark.read().schema(known).parquet(parquet.toString()) : spark.read().parquet(parquet.toString());
      } catch (RuntimeException e) {
        throw new BadInputException(parquet.toString(), "not a canonical Parquet dataset: " + e.getMessage());
      }
      List<String> have = Arrays.asList(ds.columns());
      for (String f : Canonical.SCHEMA.fieldNames()) {
        if (!have.contains(f) && !Canonical.OPTIONAL_COLUMNS.contains(f)) {
          throw new BadInputException(parquet.toString(), -1, f, "column missing (expected the canonical schema)");
        }
      }
      ds = Canonical.withOptionalColumns(ds);
      return new TraceInput(ds, parquet.toString(), s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The Spark schema Spark itself stored in the footer of the first data file (key
   * {@code org.apache.spark.sql.parquet.row.metadata}), read on the driver; null when there is
   * none (another writer), and Spark infers it as usual.
   */
  private static StructType sparkSchema(FileSystem fs, Path dir, Configuration conf) {
    try {
      if (!fs.getFileStatus(dir).isDirectory()) return null;
      Path firstFile = null;
      for (FileStatus f : fs.listStatus(dir)) {
        String n = f.getPath().getName();
        if (f.isFile() && n.endsWith(".parquet") && !n.startsWith("_") && !n.startsWith(".")
            && (firstFile == null || n.compareTo(firstFile.getName()) < 0)) {
          firstFile = f.getPath();
        }
      }
      if (firstFile == null) return null;
      try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(firstFile, conf))) {
        String json = r.getFooter().getFileMetaData().getKeyValueMetaData().get(SPARK_SCHEMA_KEY);
        return json == null ? null : (DataType.fromJson(json) instanceof StructType st ? st : null);
      }
    } catch (IOException | RuntimeException e) {
      return null; // fall back to Spark's inference, which reports unreadable data itself
    }
  }

  private static final String SPARK_SCHEMA_KEY = "org.apache.spark.sql.parquet.row.metadata";

  /**
   * The trace's Parquet files when the Dataset is a plain read of them (no filter, no projection),
   * so that the segment plan can read them itself; null otherwise (rows built in memory, a
   * transformed Dataset), and the trace is then sorted and streamed by Spark.
   */
  CanonicalParquet files(SparkSession spark) {
    var plan = trace.queryExecution().analyzed();
    if (!(plan instanceof org.apache.spark.sql.execution.datasources.LogicalRelation lr)
        || !(lr.relation() instanceof org.apache.spark.sql.execution.datasources.HadoopFsRelation fs)
        || !(fs.fileFormat() instanceof org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat)
        || fs.partitionSchema().nonEmpty()) {
      return null;
    }
    String[] files = trace.inputFiles();
    if (files.length == 0) return null;
    return CanonicalParquet.ofFiles(location, Arrays.asList(files), spark.sparkContext().hadoopConfiguration());
  }
}
