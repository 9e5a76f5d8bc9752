package io.smetric.audit.ingest;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.SerializableConf;
import io.smetric.audit.model.Canonical;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Reads trace files of any supported format into the canonical dataset (trace-model.md section
 * 1) with full accounting. Layout of the output folder:
 *
 * <pre>
 *   trace/               canonical Parquet, ordered by (arrival_s, seq) across part files
 *   quarantine/          every rejected record: source_file, line, reason, field, detail, raw
 *   ingest-summary.json  per file and in total: read = accepted + quarantined, and the findings
 * </pre>
 *
 * Plan: one Spark task per input file parses it once, streaming, straight into Parquet parts
 * (no Spark Row per record). Only when the data needs it does a second, Spark-SQL pass rewrite
 * the parts: to drop duplicate request ids, to derive Bailian sessions from parent chains, or to
 * sort out-of-order arrivals. The output folder appears only when everything is written.
 */
public final class IngestJob {

  public static final String TRACE_DIR = "trace";
  public static final String QUARANTINE_DIR = "quarantine";
  public static final String SUMMARY_FILE = "ingest-summary.json";
  public static final int DEFAULT_MAX_LINE_BYTES = 64 << 20;

  public static final StructType QUARANTINE_SCHEMA =
      new StructType(
          new StructField[] {
            new StructField("source_file", DataTypes.StringType, false, Metadata.empty()),
            new StructField("line", DataTypes.LongType, false, Metadata.empty()),
            new StructField("reason", DataTypes.StringType, false, Metadata.empty()),
            new StructField("field", DataTypes.StringType, true, Metadata.empty()),
            new StructField("detail", DataTypes.StringType, true, Metadata.empty()),
            new StructField("raw", DataTypes.StringType, true, Metadata.empty())
          });

  /** What to ingest and where. {@code format} null means auto-detect per file. */
  public record Options(
      List<String> inputs, TraceFormat format, Integer blockSize, int maxLineBytes, String out, boolean overwrite) {
    public Options {
      if (inputs == null || inputs.isEmpty()) throw new io.smetric.audit.common.UsageException("no input files given");
      if (blockSize != null && blockSize <= 0) throw new io.smetric.audit.common.UsageException("--block-size must be > 0");
      if (maxLineBytes <= 0) throw new io.smetric.audit.common.UsageException("--max-line-bytes must be > 0");
    }
  }

  /** The committed output and its accounting. */
  public record Result(String out, ObjectNode summary, long read, long accepted, long quarantined) {}

  private final SparkSession spark;

  public IngestJob(SparkSession spark) {
    this.spark = spark;
  }

  public Result execute(Options o) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    jsc.setJobGroup("smetric-ingest", "smetric-audit ingest: " + String.join(" ", o.inputs()), false);
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    List<Path> files = InputFiles.expand(o.inputs(), conf);
    try (OutputDir out = OutputDir.open(o.out(), o.overwrite(), conf)) {
      String stTrace = out.child("_staging/" + TRACE_DIR);
      String stQuar = out.child("_staging/" + QUARANTINE_DIR);
      mkdirs(out, stTrace);
      mkdirs(out, stQuar);

      // 1. formats (driver reads the first line of each file only)
      List<FileScanner.Task> tasks = new ArrayList<>();
      List<FileStats> stats = new ArrayList<>();
      List<Path> parquetFiles = new ArrayList<>();
      List<Integer> parquetIdx = new ArrayList<>();
      TraceFormat[] formats = new TraceFormat[files.size()];
      for (int i = 0; i < files.size(); i++) {
        Path f = files.get(i);
        FormatDetector.Probe probe = FormatDetector.detect(f, conf, o.maxLineBytes());
        TraceFormat fmt = o.format() != null ? o.format() : probe.format();
        formats[i] = fmt;
        if (fmt == null) {
          FileStats empty = new FileStats();
          empty.fileIndex = i;
          empty.path = f.toString();
          empty.format = "unknown";
          empty.findings.add("empty file: no data lines");
          stats.add(empty);
        } else if (fmt == TraceFormat.PARQUET) {
          parquetFiles.add(f);
          parquetIdx.add(i);
        }
      }
      long originUs = azureOrigin(files, formats, conf, o.maxLineBytes());
      for (int i = 0; i < files.size(); i++) {
        TraceFormat fmt = formats[i];
        if (fmt == null || fmt == TraceFormat.PARQUET) continue;
        // line-number ids are plain for a single input file, else prefixed with the file index so
        // that they cannot collide with another file's ids (line numbers or real ids)
        String prefix = files.size() > 1 ? "f" + i + ":" : "";
        tasks.add(new FileScanner.Task(i, files.get(i).toString(), fmt,
            new TraceFormat.ParseContext(o.blockSize(), prefix, originUs), o.maxLineBytes(), stTrace, stQuar));
      }

      // 2. one task per text file
      if (!tasks.isEmpty()) {
        SerializableConf sc = new SerializableConf(conf);
        stats.addAll(jsc.parallelize(tasks, tasks.size()).map(t -> FileScanner.run(t, sc.get())).collect());
      }
      for (int k = 0; k < parquetFiles.size(); k++) {
        stats.add(ParquetInput.stage(spark, parquetFiles.get(k), parquetIdx.get(k), stTrace, stQuar));
      }
      stats.sort(Comparator.comparingInt(s -> s.fileIndex));
      long accepted = stats.stream().mapToLong(s -> s.accepted).sum();
      if (accepted == 0) {
        long read = stats.stream().mapToLong(s -> s.read).sum();
        String why = read == 0 ? "no data lines in any input" : "all " + read + " records were rejected";
        String top = stats.stream().flatMap(s -> s.quarantined.keySet().stream()).distinct().sorted().toList().toString();
        throw new BadInputException(files.get(0).toString(), why + (read == 0 ? "" : " (reasons: " + top + ")"));
      }

      // 3. second pass where the data needs one
      Fixups fx = new Fixups(spark, stats, formats, stTrace);
      Dataset<Row> staged = spark.read().schema(Canonical.SCHEMA).parquet(stTrace);
      Dataset<Row> dups = fx.duplicates(staged);
      long dupCount = dups == null ? 0 : dups.count();
      String finalTrace = out.child(TRACE_DIR);
      String finalQuar = out.child(QUARANTINE_DIR);
      Map<Integer, Long> dupsPerFile = new TreeMap<>();
      boolean rewrite = dupCount > 0 || fx.hasBailian() || fx.needsSort() || !parquetFiles.isEmpty();
      if (rewrite) {
        Dataset<Row> t = staged;
        if (dupCount > 0) {
          for (Row r : dups.groupBy(fileOf(col(Canonical.SEQ)).as("f")).count().collectAsList()) {
            dupsPerFile.put(r.getInt(0), r.getLong(1));
          }
          fx.quarantineDuplicates(dups, files).write().mode(SaveMode.Append).parquet(stQuar);
          t = t.join(org.apache.spark.sql.functions.broadcast(dups.select(Canonical.SEQ)), t.col(Canonical.SEQ).equalTo(dups.col(Canonical.SEQ)), "left_anti");
        }
        if (fx.hasBailian()) t = fx.bailianSessions(t);
        t = t.select(Canonical.SCHEMA.fieldNames()[0], java.util.Arrays.copyOfRange(Canonical.SCHEMA.fieldNames(), 1, Canonical.SCHEMA.size()));
        t.orderBy(col(Canonical.ARRIVAL_S), col(Canonical.SEQ)).write().mode(SaveMode.ErrorIfExists).parquet(finalTrace);
      } else {
        rename(out, stTrace, finalTrace);
      }
      // quarantine: the staged parts (plus duplicates), or an empty dataset with the schema
      if (hasParts(out, stQuar)) {
        rename(out, stQuar, finalQuar);
      } else {
        spark.createDataFrame(List.<Row>of(), QUARANTINE_SCHEMA).coalesce(1).write().parquet(finalQuar);
      }
      try {
        out.fs().delete(new Path(out.child("_staging")), true);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (FileStats s : stats) {
        Long d = dupsPerFile.get(s.fileIndex);
        if (d != null) {
          s.accepted -= d;
          s.quarantined.merge(Reasons.DUPLICATE_REQUEST_ID, d, Long::sum);
        }
      }
      Dataset<Row> fin = spark.read().parquet(finalTrace);
      ObjectNode summary = Summaries.build(fin, stats, fx, originUs, o, !rewrite);
      out.writeString(SUMMARY_FILE, Json.MAPPER.writeValueAsString(summary));
      out.commit();
      long read = stats.stream().mapToLong(s -> s.read).sum();
      long acc = stats.stream().mapToLong(s -> s.accepted).sum();
      long q = stats.stream().mapToLong(FileStats::quarantinedTotal).sum();
      return new Result(out.targetPath().toString(), summary, read, acc, q);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Origin of wall-clock formats: the whole minute of the earliest first record among Azure CSVs. */
  private static long azureOrigin(List<Path> files, TraceFormat[] formats, Configuration conf, int maxLine) {
    long origin = Long.MAX_VALUE;
    for (int i = 0; i < files.size(); i++) {
      if (formats[i] != TraceFormat.CSV) continue;
      Long first = firstAzureMicros(files.get(i), conf, maxLine);
      if (first != null) origin = Math.min(origin, first);
    }
    return origin == Long.MAX_VALUE ? 0 : Math.floorDiv(origin, 60_000_000L) * 60_000_000L;
  }

  private static Long firstAzureMicros(Path f, Configuration conf, int maxLine) {
    try (java.io.InputStream in = InputFiles.open(f, conf)) {
      LineReader r = new LineReader(in, maxLine);
      CsvRecordParser p = new CsvRecordParser(new TraceFormat.ParseContext(null, "", 0));
      boolean header = true;
      while (r.next()) {
        if (r.blank() || r.tooLong()) continue;
        String line = new String(r.bytes(), 0, r.length(), java.nio.charset.StandardCharsets.UTF_8);
        if (header) {
          if (p.header(line) != null || !p.isAzure()) return null;
          header = false;
          continue;
        }
        List<String> f2 = CsvRecordParser.split(line);
        if (f2 == null || f2.isEmpty()) continue;
        Long us = CsvRecordParser.azureMicros(f2.get(0));
        if (us != null) return us;
      }
      return null;
    } catch (IOException e) {
      throw new BadInputException(f.toString(), "cannot read: " + e.getMessage());
    }
  }

  private static void mkdirs(OutputDir out, String dir) {
    try {
      out.fs().mkdirs(new Path(dir));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void rename(OutputDir out, String from, String to) {
    try {
      if (!out.fs().rename(new Path(from), new Path(to))) throw new IOException("rename " + from + " -> " + to + " failed");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean hasParts(OutputDir out, String dir) {
    try {
      return out.fs().listStatus(new Path(dir), p -> p.getName().endsWith(".parquet")).length > 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ArrayNode strings(List<String> xs) {
    ArrayNode a = Json.MAPPER.createArrayNode();
    xs.forEach(a::add);
    return a;
  }

  /** The input file index encoded in a seq column. */
  static org.apache.spark.sql.Column fileOf(org.apache.spark.sql.Column seq) {
    return org.apache.spark.sql.functions.shiftright(seq, Canonical.SEQ_FILE_SHIFT).cast("int");
  }

  static org.apache.spark.sql.Column lineOf(org.apache.spark.sql.Column seq) {
    return seq.bitwiseAND(lit((1L << Canonical.SEQ_FILE_SHIFT) - 1));
  }

  static org.apache.spark.sql.Column whenIn(List<Integer> fileIdx, org.apache.spark.sql.Column yes, org.apache.spark.sql.Column no) {
    return when(fileOf(col(Canonical.SEQ)).isin(fileIdx.toArray()), yes).otherwise(no);
  }
}
