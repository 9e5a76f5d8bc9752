// Notebook 02: start from an audit folder: read its verdict, load its Parquet tables, recompute
// headline numbers from the per-minute table, and draw a custom chart from the replay.
//
// Run:  notebooks-java/run.sh notebooks-java/02-audit-tables.jsh -Daudit=out/audit -Dout=out/nb02
// (make the audit first: ./smetric-audit audit sample-traces/generated/agent.smetric.b64.jsonl.gz --instances 4 --out out/audit)
// Without -Daudit it audits the shipped agent sample (small replay sweep) into a temporary folder.
import org.apache.spark.sql.*;
import static org.apache.spark.sql.functions.*;
import com.fasterxml.jackson.databind.*;
import io.smetric.audit.cli.Main;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.contract.CharacterizationTables;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.Source;
import io.smetric.audit.contract.ReplayTables;
import org.knowm.xchart.*;
import java.io.*;
import java.nio.file.*;
import java.util.*;

SparkSession spark = SparkSession.builder().master("local[2]").appName("notebook-02").
    config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").
    config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1").getOrCreate();
spark.sparkContext().setLogLevel("ERROR");

String repo = System.getProperty("smetric.repo", ".");
Path outDir = Path.of(System.getProperty("out", Files.createTempDirectory("nb02").toString()));
Files.createDirectories(outDir);
String audit = System.getProperty("audit");
if (audit == null) {
  audit = outDir.resolve("audit").toString();
  int rc = Main.run(new String[] {"audit", repo + "/sample-traces/generated/agent.smetric.b64.jsonl.gz", "--instances", "4",
      "--policies", "smetric,least-load,cache-affinity", "--global-ratio", "0,0.8", "--rate-scale", "0.25,0.5",
      "--out", audit, "--overwrite"}, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
  if (rc != 0) throw new IllegalStateException("audit exited with " + rc);
}

// 1. The verdict, as a CI gate or a script would read it.
ObjectMapper json = new ObjectMapper();
JsonNode verdict = json.readTree(new File(audit, "audit.json"));
System.out.println("verdict: " + verdict.get("verdict").asText());
for (JsonNode c : verdict.get("criteria")) {
  System.out.printf(Locale.ROOT, "  %-28s %-14s %s%n", c.get("id").asText(), c.get("status").asText(), c.get("reason").asText());
}

// 2. Recompute the headline reuse and its intra-session share from the per-minute table: the
//    minutes partition the requests, so summing numerators and denominators must give the
//    characterization's overall numbers exactly (a ratio of sums, not a mean of ratios).
// characterization.json read through its record in the contract (the fields the tool itself reads)
CharacterizationSummary ch = CharacterizationSummary.read(json.readTree(new File(audit, AuditLayout.CHARACTERIZATION_JSON)),
    AuditLayout.CHARACTERIZATION_JSON);
Row s = spark.read().parquet(audit + "/" + AuditLayout.characterizationTable(CharacterizationTables.T_REUSE_MINUTE)).
    agg(sum(Cols.HIT_TOKENS), sum(Cols.PREFILL_TOKENS), sum(Cols.hitTokens(Source.INTRA_SESSION))).first();
double reuse = (double) s.getLong(0) / s.getLong(1);
double intra = (double) s.getLong(2) / s.getLong(0);
double reuseJson = ch.reuse().tokenWeighted().value();
double intraJson = ch.reuseBySource().of(Source.INTRA_SESSION).shareOfHitTokens().value();
System.out.printf(Locale.ROOT, "reuse from minutes %.6f vs characterization.json %.6f%n", reuse, reuseJson);
System.out.printf(Locale.ROOT, "intra-session share from minutes %.6f vs characterization.json %.6f%n", intra, intraJson);
if (Math.abs(reuse - reuseJson) > 1e-9 || Math.abs(intra - intraJson) > 1e-9) throw new IllegalStateException("recomputed numbers differ");

// 3. A custom chart: hit ratio (local + global) against the global-tier capacity, one line per
//    policy, at the offered rate where each policy had its best TPS within SLO.
Path replay = Path.of(audit, "replay");
if (Files.exists(replay)) {
  // table and column names from the contract, as the report reads them
  Dataset<Row> runs = spark.read().parquet(replay.resolve(AuditLayout.REPLAY_RUNS_DIR).toString());
  Dataset<Row> best = spark.read().parquet(replay.resolve(AuditLayout.REPLAY_HEADLINE_DIR).toString()).select(ReplayTables.RUN_ID);
  List<Row> rows = runs.join(best, ReplayTables.RUN_ID).orderBy(ReplayTables.POLICY, ReplayTables.GLOBAL_RATIO).
      select(ReplayTables.POLICY, ReplayTables.GLOBAL_RATIO, ReplayTables.RunMetrics.TOTAL_HIT_RATIO,
          ReplayTables.RunMetrics.LOCAL_HIT_RATIO).collectAsList();
  XYChart chart = new XYChartBuilder().width(800).height(450).title("Hit ratio by global-tier capacity (best rate per policy)").
      xAxisTitle("global / local capacity").yAxisTitle("hit tokens / input tokens").build();
  Map<String, List<double[]>> byPolicy = new TreeMap<>();
  for (Row r : rows) {
    if (r.isNullAt(2)) continue;
    byPolicy.computeIfAbsent(r.getString(0), k -> new ArrayList<>()).add(new double[] {r.getDouble(1), r.getDouble(2), r.getDouble(3)});
  }
  for (Map.Entry<String, List<double[]>> e : byPolicy.entrySet()) {
    double[] x = e.getValue().stream().mapToDouble(v -> v[0]).toArray();
    chart.addSeries(e.getKey() + " total", x, e.getValue().stream().mapToDouble(v -> v[1]).toArray());
    chart.addSeries(e.getKey() + " local", x, e.getValue().stream().mapToDouble(v -> v[2]).toArray());
  }
  BitmapEncoder.saveBitmap(chart, outDir.resolve("hit-ratio-by-capacity.png").toString(), BitmapEncoder.BitmapFormat.PNG);
  System.out.println("chart: " + outDir.resolve("hit-ratio-by-capacity.png") + " (" + byPolicy.size() + " policies)");
  if (byPolicy.isEmpty()) throw new IllegalStateException("no replay rows");
}
System.out.println("NOTEBOOK OK");
spark.stop();
/exit
