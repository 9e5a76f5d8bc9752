package io.smetric.audit.ingest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/** Times the ingest task alone (parse + Parquet write of one file), without Spark around it. */
public final class ScanBench {
  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("scanbench");
    Configuration conf = new Configuration();
    for (int rep = 0; rep < 2; rep++) {
      long t0 = System.nanoTime();
      FileScanner.Task t = new FileScanner.Task(0, args[0], TraceFormat.SMETRIC, new TraceFormat.ParseContext(null, "", 0),
          IngestJob.DEFAULT_MAX_LINE_BYTES, dir.resolve("t" + rep).toString(), dir.resolve("q" + rep).toString());
      FileStats st = FileScanner.run(t, conf);
      System.out.printf(Locale.ROOT, "scan: %d records, %d blocks, %.2f s%n", st.accepted, st.blocksTotal, (System.nanoTime() - t0) / 1e9);
    }
  }
}
