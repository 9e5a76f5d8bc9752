// Notebook 01: load a canonical trace, recompute ideal prefix reuse by hand, draw a chart.
//
// Run:  notebooks-java/run.sh notebooks-java/01-trace-basics.jsh -Dtrace=out/mooncake/trace -Dout=out/nb01
// (make the canonical trace first: ./smetric-audit ingest sample-traces/mooncake/synthetic_trace.jsonl --out out/mooncake)
// Without -Dtrace it ingests the shipped Mooncake sample into a temporary folder first.
import org.apache.spark.sql.*;
import static org.apache.spark.sql.functions.*;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.*;
import io.smetric.audit.ingest.*;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import org.knowm.xchart.*;
import java.nio.file.*;
import java.util.*;

// (JShell ends a statement at a line break where it could end: keep the dots at line ends)
SparkSession spark = SparkSession.builder().master("local[2]").appName("notebook-01").
    config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").
    config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1").getOrCreate();
spark.sparkContext().setLogLevel("ERROR");

String repo = System.getProperty("smetric.repo", ".");
Path outDir = Path.of(System.getProperty("out", Files.createTempDirectory("nb01").toString()));
Files.createDirectories(outDir);
String tracePath = System.getProperty("trace");
if (tracePath == null) {
  String canon = outDir.resolve("canonical").toString();
  IngestJob job = new IngestJob(spark, new IngestJob.Options(List.of(repo + "/sample-traces/mooncake/synthetic_trace.jsonl"),
      null, null, IngestJob.DEFAULT_MAX_LINE_BYTES));
  try (OutputDir dir = OutputDir.open(canon, true, spark.sparkContext().hadoopConfiguration())) {
    job.run(dir);
    dir.commit();
  }
  tracePath = canon + "/trace";
}
Dataset<Row> trace = spark.read().parquet(tracePath);
trace.printSchema();
System.out.println("requests: " + trace.count());

// Ideal reuse (trace-model section 2), the plain way: walk the trace in (arrival, seq) order and
// keep every chained block id seen so far. Fine for samples; the analyze command does it at scale.
LongOpenHashSet seen = new LongOpenHashSet();
long hitTokens = 0, prefill = 0;
TreeMap<Long, double[]> perMinute = new TreeMap<>();
Iterator<Row> it = trace.orderBy(Canonical.ARRIVAL_S, Canonical.SEQ).toLocalIterator();
while (it.hasNext()) {
  TraceRecord r = TraceRecord.fromRow(it.next());
  prefill += r.inputTokens();
  long[] b = r.blocks();
  if (b == null) continue;
  int n = Math.min(b.length, Canonical.expectedBlocks(r.inputTokens(), r.blockSize()));
  int k = 0;
  while (k < n && seen.contains(b[k])) k++;     // prefix property: the hit is the longest seen prefix
  long hit = Math.min((long) k * r.blockSize(), r.inputTokens());
  hitTokens += hit;
  for (int i = 0; i < n; i++) seen.add(b[i]);
  double[] m = perMinute.computeIfAbsent((long) Math.floor(r.arrivalS() / 60), x -> new double[2]);
  m[0] += hit; m[1] += r.inputTokens();
}
System.out.printf(Locale.ROOT, "ideal reuse (token-weighted): %.4f = %d / %d%n", (double) hitTokens / prefill, hitTokens, prefill);

double[] xs = perMinute.keySet().stream().mapToDouble(Long::doubleValue).toArray();
double[] ys = perMinute.values().stream().mapToDouble(v -> v[0] / v[1]).toArray();
XYChart chart = new XYChartBuilder().width(800).height(400).title("Ideal reuse per minute of arrival").
    xAxisTitle("minute").yAxisTitle("hit tokens / prefill tokens").build();
chart.addSeries("reuse", xs, ys);
BitmapEncoder.saveBitmap(chart, outDir.resolve("reuse-per-minute.png").toString(), BitmapEncoder.BitmapFormat.PNG);
System.out.println("chart: " + outDir.resolve("reuse-per-minute.png"));
if (hitTokens <= 0 || hitTokens > prefill) throw new IllegalStateException("reuse out of range");
System.out.println("NOTEBOOK OK");
spark.stop();
/exit
