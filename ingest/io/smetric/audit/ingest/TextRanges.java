package io.smetric.audit.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import io.smetric.audit.common.SerializableConf;

/**
 * Splits large uncompressed text inputs into byte ranges that tasks parse in parallel, the way
 * Hadoop splits text files: a range owns every line that starts inside it. Line numbers must
 * stay exact (quarantine entries, {@code seq}, and the line-number ids of Mooncake and Azure
 * records), so a pre-pass counts the lines of every range but the last, itself a Spark job (a
 * tight byte loop per range, no parsing); each range then starts from the count of the ranges
 * before it. Compressed files are one range: their bytes cannot be entered in the middle.
 */
final class TextRanges {
  private TextRanges() {}

  /** One text file to scan: its task template (range WHOLE) and its planned range starts. */
  record Planned(FileScanner.Task whole, long length, long rangeBytes, int ranges) {}

  /** A range of a file to count in the pre-pass. */
  record CountTask(String path, long start, long end, int maxLineBytes) implements Serializable {}

  /**
   * Bytes per range: the user's {@code splitBytes}, or Spark's rule for file sources
   * ({@code FilePartition.maxSplitBytes}: min(spark.sql.files.maxPartitionBytes, max(open cost,
   * total bytes / default parallelism))).
   */
  static long defaultSplitBytes(SparkSession spark, long totalBytes, int files) {
    long maxBytes = spark.sessionState().conf().filesMaxPartitionBytes();
    long openCost = spark.sessionState().conf().filesOpenCostInBytes();
    long perCore = (totalBytes + (long) files * openCost) / Math.max(1, spark.sparkContext().defaultParallelism());
    return Math.min(maxBytes, Math.max(openCost, perCore));
  }

  /**
   * How a file of {@code length} bytes is cut. With the user's split size the ranges start at its
   * multiples (tests rely on exact boundaries). With the default one the number of ranges is
   * rounded up to a multiple of the parallelism and the ranges made equal, so that no core idles
   * while the last range of a file is parsed (3 ranges on 2 cores would take 2 rounds of 1/3).
   */
  static Planned plan(FileScanner.Task whole, long length, boolean splittable, long split, boolean userSplit, int parallelism) {
    if (!splittable || length <= split) return new Planned(whole, length, Math.max(length, 1), 1);
    long n = ceilDiv(length, split);
    if (!userSplit) n = ceilDiv(n, parallelism) * parallelism;
    long size = userSplit ? split : ceilDiv(length, n);
    n = ceilDiv(length, size);
    if (n > Integer.MAX_VALUE) throw new IllegalArgumentException("split size " + split + " is too small for " + whole.path());
    return new Planned(whole, length, size, (int) n);
  }

  /**
   * The tasks for every range of every planned file. Runs the pre-pass (one Spark task per
   * counted range) when some file has more than one range.
   */
  static List<FileScanner.Task> tasks(JavaSparkContext jsc, SerializableConf sc, List<Planned> planned) {
    List<CountTask> counts = new ArrayList<>();
    for (Planned p : planned) {
      for (int k = 0; k < p.ranges() - 1; k++) {
        counts.add(new CountTask(p.whole().path(), k * p.rangeBytes(), (k + 1) * p.rangeBytes(), p.whole().maxLineBytes()));
      }
    }
    Map<String, LineReader.Count> counted = new TreeMap<>();
    if (!counts.isEmpty()) {
      List<LineReader.Count> c = jsc.parallelize(counts, counts.size()).map(t -> count(t, sc)).collect();
      for (int i = 0; i < counts.size(); i++) counted.put(key(counts.get(i).path(), counts.get(i).start()), c.get(i));
    }
    List<FileScanner.Task> tasks = new ArrayList<>();
    for (Planned p : planned) {
      FileScanner.Task w = p.whole();
      if (p.ranges() == 1) {
        tasks.add(w);
        continue;
      }
      long linesBefore = 0;
      long dataBefore = 0;
      for (int k = 0; k < p.ranges(); k++) {
        long start = k * p.rangeBytes();
        boolean last = k == p.ranges() - 1;
        LineReader.Count c = last ? null : counted.get(key(w.path(), start));
        FileScanner.Range r = new FileScanner.Range(k, start, last ? Long.MAX_VALUE : start + p.rangeBytes(),
            linesBefore, dataBefore, last ? -1 : c.lines());
        tasks.add(new FileScanner.Task(w.fileIndex(), w.path(), w.format(), w.context(), w.maxLineBytes(),
            w.traceDir(), w.quarantineDir(), r, w.header(), w.headerLine()));
        if (!last) {
          linesBefore += c.lines();
          dataBefore += c.dataLines();
        }
      }
    }
    return tasks;
  }

  private static String key(String path, long start) {
    return path + "@" + start;
  }

  private static LineReader.Count count(CountTask t, SerializableConf sc) {
    Path f = new Path(t.path());
    try (InputStream in = InputFiles.openRange(f, sc.get(), t.start())) {
      return LineReader.countRange(in, t.maxLineBytes(), t.start(), t.end());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot count the lines of " + t.path() + " bytes " + t.start() + ".." + t.end(), e);
    }
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
