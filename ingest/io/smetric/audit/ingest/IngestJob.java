package io.smetric.audit.ingest;

import static io.smetric.audit.contract.AuditLayout.INGEST_SUMMARY_FILE;
import static io.smetric.audit.contract.AuditLayout.QUARANTINE_DIR;
import static io.smetric.audit.contract.AuditLayout.TRACE_DIR;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.common.SerializableConf;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.IngestSummary;
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
 * Plan: one Spark task per input file (or per byte range of a large uncompressed one, after a
 * line-count pre-pass that keeps line numbers exact) parses it once, streaming, straight into
 * Parquet parts (no Spark Row per record). Only when the data needs it does a second, Spark-SQL pass rewrite
 * the parts: to drop duplicate request ids, to derive Bailian sessions from parent chains, or to
 * sort out-of-order arrivals.
 *
 * <p>The stage as one job (docs/architecture.md, "Stage jobs"): {@link Options} in; the
 * constructor resolves the input files (a missing one fails before any output is opened);
 * {@link #run} writes the three entries above into the folder it is given, under the job group
 * {@link #JOB_GROUP}; an immutable {@link Result} out. The folder is not committed: the caller
 * owns it (the ingest command commits it, the audit commits its whole folder once).
 */
public final class IngestJob {
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

  /**
   * What to ingest and how. {@code format} null means auto-detect per file. {@code splitBytes}
   * is the size of the byte ranges a large uncompressed text file is cut into, parsed in
   * parallel; null means Spark's rule for file sources (see {@link TextRanges}).
   */
  public record Options(List<String> inputs, TraceFormat format, Integer blockSize, int maxLineBytes, Long splitBytes) {
    public Options {
      if (inputs == null || inputs.isEmpty()) throw new io.smetric.audit.common.UsageException("no input files given");
      if (blockSize != null && blockSize <= 0) throw new io.smetric.audit.common.UsageException("--block-size must be > 0");
      if (maxLineBytes <= 0) throw new io.smetric.audit.common.UsageException("--max-line-bytes must be > 0");
      if (splitBytes != null && splitBytes <= 0) throw new io.smetric.audit.common.UsageException("--split-bytes must be > 0");
    }

    public Options(List<String> inputs, TraceFormat format, Integer blockSize, int maxLineBytes) {
      this(inputs, format, blockSize, maxLineBytes, null);
    }
  }

  /**
   * What the stage wrote and its accounting.
   *
   * @param summary ingest-summary.json
   * @param read records read, over all files: {@code accepted + quarantined}
   */
  public record Result(IngestSummary summary, long read, long accepted, long quarantined) {}

  /** The Spark job group the stage's jobs run under (the Spark UI names them by it). */
  public static final String JOB_GROUP = "smetric-ingest";

  private final SparkSession spark;
  private final Options o;
  private final List<Path> files;
  /** Documentation files of input folders, left out (named in the summary, never lost silently). */
  private final List<Path> skipped;

  /** Resolves the input files (files, folders, globs); fails on a missing one before any output exists. */
  public IngestJob(SparkSession spark, Options options) {
    this.spark = spark;
    this.o = options;
    InputFiles.Resolved r = InputFiles.resolve(options.inputs(), spark.sparkContext().hadoopConfiguration());
    this.files = r.files();
    this.skipped = r.skipped();
  }

  /** Ingests the inputs and writes the stage's output into {@code out} (not committed). */
  public Result run(OutputDir out) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    jsc.setJobGroup(JOB_GROUP, "smetric-audit ingest: " + String.join(" ", o.inputs()), false);
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    try {
      String stTrace = out.child("_staging/" + TRACE_DIR);
      String stQuar = out.child("_staging/" + QUARANTINE_DIR);
      mkdirs(out, stTrace);
      mkdirs(out, stQuar);

      // 1. formats (driver reads the first line of each file only)
      List<FileScanner.Task> wholeTasks = new ArrayList<>();
      List<FileStats> stats = new ArrayList<>();
      List<Path> parquetFiles = new ArrayList<>();
      List<Integer> parquetIdx = new ArrayList<>();
      TraceFormat[] formats = new TraceFormat[files.size()];
      FormatDetector.Probe[] probes = new FormatDetector.Probe[files.size()];
      for (int i = 0; i < files.size(); i++) {
        Path f = files.get(i);
        FormatDetector.Probe probe = FormatDetector.detect(f, conf, o.maxLineBytes());
        probes[i] = probe;
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
        wholeTasks.add(new FileScanner.Task(i, files.get(i).toString(), fmt,
            new TraceFormat.ParseContext(o.blockSize(), prefix, originUs), o.maxLineBytes(), stTrace, stQuar,
            FileScanner.Range.WHOLE, probes[i].firstText(), probes[i].firstLine()));
      }

      // 2. one task per text file, or per byte range of a large uncompressed one
      long t0 = System.nanoTime();
      if (!wholeTasks.isEmpty()) {
        SerializableConf sc = new SerializableConf(conf);
        List<TextRanges.Planned> planned = plan(wholeTasks, o, conf);
        List<FileScanner.Task> tasks = TextRanges.tasks(jsc, sc, planned);
        int ranges = tasks.size();
        if (ranges > wholeTasks.size()) {
          progress("counted the lines of %d byte ranges in %.1f s", ranges - wholeTasks.size(), secondsSince(t0));
        }
        // the longest ranges first, so that no core is left with a long one at the end
        Map<String, Long> bytes = new java.util.HashMap<>();
        for (TextRanges.Planned p : planned) bytes.put(p.whole().path(), p.ranges() == 1 ? p.length() : p.rangeBytes());
        List<FileScanner.Task> order = new ArrayList<>(tasks);
        order.sort(Comparator.comparingLong((FileScanner.Task t) -> -bytes.get(t.path())));
        List<FileStats> parts = jsc.parallelize(order, order.size()).map(t -> FileScanner.run(t, sc.get())).collect();
        stats.addAll(mergeRanges(parts, stTrace));
      }
      for (int k = 0; k < parquetFiles.size(); k++) {
        stats.add(ParquetInput.stage(spark, parquetFiles.get(k), parquetIdx.get(k), stTrace, stQuar));
      }
      stats.sort(Comparator.comparingInt(s -> s.fileIndex));
      progress("parsed %d files in %.1f s", files.size(), secondsSince(t0));
      long accepted = stats.stream().mapToLong(s -> s.accepted).sum();
      if (accepted == 0) {
        long read = stats.stream().mapToLong(s -> s.read).sum();
        String why = read == 0 ? "no data lines in any input" : "all " + read + " records were rejected";
        String top = stats.stream().flatMap(s -> s.quarantined.keySet().stream()).distinct().sorted().toList().toString();
        // the format each file was read as: a record every parser rejects often means the wrong one
        java.util.TreeSet<String> as = new java.util.TreeSet<>();
        for (TraceFormat f : formats) if (f != null) as.add(f.toString());
        String readAs = as.isEmpty() ? "; no file had a first record to detect a format from"
            : "; read as " + String.join(", ", as) + (o.format() != null ? " (--format)" : " (detected from the first record)");
        throw new BadInputException(files.get(0).toString(), why + (read == 0 ? "" : " (reasons: " + top + ")") + readAs);
      }

      // 3. second pass where the data needs one
      Fixups fx = new Fixups(spark, stats, formats, stTrace);
      Dataset<Row> staged = spark.read().schema(Canonical.SCHEMA).parquet(stTrace);
      long t1 = System.nanoTime();
      // one pass over the ids: repeated request ids, and the distinct sessions the summary needs
      long[] ids = Fixups.idCounts(staged);
      Dataset<Row> dups = ids[0] == 0 ? null : fx.duplicates(staged);
      long dupCount = dups == null ? 0 : dups.count();
      progress("checked request ids for duplicates in %.1f s (%d found)", secondsSince(t1), dupCount);
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
      progress("wrote the canonical trace (%s) in %.1f s", rewrite ? "rewritten and sorted" : "staged parts kept", secondsSince(t1));
      long t2 = System.nanoTime();
      Dataset<Row> fin = rewrite ? spark.read().parquet(finalTrace) : null;
      IngestSummary summary = Summaries.build(fin, stats, fx, originUs, o, rewrite ? null : ids[1]);
      if (!skipped.isEmpty()) {
        summary = summary.withSkipped(
            skipped.stream().map(p -> new IngestSummary.SkippedFile(p.toString(), "documentation, not trace data")).toList(),
            List.of(skipped.size() + " file(s) of the input folders left out as documentation, not trace data: "
                + String.join(", ", skipped.stream().map(Path::getName).toList()) + " (name a file to read it)"));
      }
      out.writeString(INGEST_SUMMARY_FILE, Json.MAPPER.writeValueAsString(summary.toJson()));
      progress("summarised in %.1f s", secondsSince(t2));
      long read = stats.stream().mapToLong(s -> s.read).sum();
      long acc = stats.stream().mapToLong(s -> s.accepted).sum();
      long q = stats.stream().mapToLong(FileStats::quarantinedTotal).sum();
      return new Result(summary, read, acc, q);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    } finally {
      jsc.clearJobGroup();
    }
  }

  private List<TextRanges.Planned> plan(List<FileScanner.Task> whole, Options o, Configuration conf) {
    long[] len = new long[whole.size()];
    boolean[] splittable = new boolean[whole.size()];
    long total = 0;
    for (int i = 0; i < whole.size(); i++) {
      Path f = new Path(whole.get(i).path());
      try {
        len[i] = f.getFileSystem(conf).getFileStatus(f).getLen();
      } catch (IOException e) {
        throw new BadInputException(f.toString(), "cannot read: " + e.getMessage());
      }
      splittable[i] = InputFiles.splittable(f, conf);
      if (splittable[i]) total += len[i];
    }
    boolean user = o.splitBytes() != null;
    long split = user ? o.splitBytes() : TextRanges.defaultSplitBytes(spark, total, whole.size());
    int par = spark.sparkContext().defaultParallelism();
    List<TextRanges.Planned> out = new ArrayList<>();
    for (int i = 0; i < whole.size(); i++) out.add(TextRanges.plan(whole.get(i), len[i], splittable[i], split, user, par));
    return out;
  }

  /**
   * Per-file accounting from the ranges' accounting. A record can be out of order against an
   * earlier range of its file, which the range's task could not see: where a range starts below
   * the largest arrival of the earlier ranges, those records are counted from the staged parts.
   */
  private List<FileStats> mergeRanges(List<FileStats> parts, String stTrace) {
    Map<Integer, List<FileStats>> byFile = new TreeMap<>();
    for (FileStats p : parts) byFile.computeIfAbsent(p.fileIndex, k -> new ArrayList<>()).add(p);
    List<FileStats> merged = new ArrayList<>();
    List<Fixups.Crossing> crossings = new ArrayList<>();
    for (List<FileStats> ranges : byFile.values()) {
      ranges.sort(Comparator.comparingInt(r -> r.range));
      double before = Double.NEGATIVE_INFINITY;
      for (FileStats r : ranges) {
        if (r.accepted == 0) continue;
        if (r.minArrival < before) crossings.add(new Fixups.Crossing(r.fileIndex, r.range, before));
        before = Math.max(before, r.maxArrival);
      }
      FileStats m = FileStats.merge(ranges);
      if (m.read == 0) m.findings.add("empty file: no data lines");
      merged.add(m);
    }
    if (!crossings.isEmpty()) {
      Map<Integer, Long> extra = Fixups.outOfOrderAcrossRanges(spark, stTrace, crossings);
      for (FileStats m : merged) m.outOfOrder += extra.getOrDefault(m.fileIndex, 0L);
    }
    return merged;
  }

  private static double secondsSince(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Progress lines go to stderr so that stdout stays the command's result. */
  private static void progress(String fmt, Object... args) {
    System.err.println("ingest: " + String.format(java.util.Locale.ROOT, fmt, args));
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
