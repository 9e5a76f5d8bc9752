package io.smetric.audit.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.testing.SharedAudits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application jar submitted through SparkSubmit to a real standalone cluster (a Master and
 * two Workers on 127.0.0.1, started from the Maven jars) gives the same result, number for
 * number, as local mode; and no process is left behind.
 */
class StandaloneClusterIT {
  private static final Path REPO = Path.of(System.getProperty("smetric.repo", "."));
  @TempDir Path tmp;

  private List<String> submit(LocalStandaloneCluster c, String master, String... appArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(c.jvmArgs());
    cmd.add("-Xmx1g");
    cmd.add("-cp");
    cmd.add(c.classPath());
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.addAll(List.of("--master", master, "--deploy-mode", "client",
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.executor.memory=700m", "--conf", "spark.executor.cores=1",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=" + SharedAudits.SHUFFLE_PARTITIONS,
        "--class", "io.smetric.audit.cli.Main",
        REPO.resolve("target/smetric-audit-" + System.getProperty("smetric.version", "0.1.0") + "-spark.jar").toString()));
    cmd.addAll(List.of(appArgs));
    return cmd;
  }

  /**
   * Every stage on the cluster: the full audit of the session-less Mooncake sample (ingest,
   * session inference, characterization, replay sweep as Spark tasks, verdict) and of raw
   * SWE-agent logs (block-hasher), submitted through SparkSubmit, equal to local mode. The
   * local-mode audits are run in this JVM (TestSpark, local[2], the same 4 shuffle partitions) by
   * {@link SharedAudits}, while the cluster works on its submission; NotebooksIT reads the same
   * Mooncake audit.
   */
  @Test
  // the two submissions have limits of their own (30 and 20 min, below); the suite's default of 15
  // min per test (junit-platform.properties) cut this one at 15 min on a machine at load 45
  @Timeout(value = 55, unit = TimeUnit.MINUTES)
  void auditOnStandaloneCluster_equalsLocalMode() throws Exception {
    List<Long> pids;
    Path mcLocal;
    Path logsLocal;
    try (LocalStandaloneCluster c = new LocalStandaloneCluster(tmp, REPO, 2, "1g")) {
      List<String> a = new ArrayList<>(List.of("audit", SharedAudits.MOONCAKE.toString(), "--out",
          tmp.resolve("mc-cluster").toString()));
      a.addAll(SharedAudits.MOONCAKE_SWEEP);
      Process mc = c.launch("audit-cluster", submit(c, c.masterUrl(), a.toArray(new String[0])));
      mcLocal = SharedAudits.mooncakeLocal(); // local mode, meanwhile
      // generous limits: they only catch a hang (13 min measured for this submission on a heavily loaded 2-core machine)
      assertEquals(0, c.await("audit-cluster", mc, 1800), c.log("audit-cluster"));
      List<String> l = new ArrayList<>(List.of("audit", SharedAudits.SWE_AGENT_LOGS.toString(), "--salt-file",
          SharedAudits.saltFile().toString(), "--out", tmp.resolve("logs-cluster").toString()));
      l.addAll(SharedAudits.LOGS_OPTIONS);
      Process logs = c.launch("logs-cluster", submit(c, c.masterUrl(), l.toArray(new String[0])));
      logsLocal = SharedAudits.logsLocal();
      assertEquals(0, c.await("logs-cluster", logs, 1200), c.log("logs-cluster"));
      assertTrue(c.log("master").contains("Registering app"), "the jobs ran on the cluster");
      pids = c.pids();
    }
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " left behind");
    }
    SparkSession spark = io.smetric.audit.testing.TestSpark.get();
    for (String audit : List.of("mc", "logs")) {
      Path cl = tmp.resolve(audit + "-cluster");
      Path lo = audit.equals("mc") ? mcLocal : logsLocal;
      JsonNode va = Json.MAPPER.readTree(Files.readString(cl.resolve("audit.json")));
      JsonNode vb = Json.MAPPER.readTree(Files.readString(lo.resolve("audit.json")));
      assertEquals(vb.get("verdict"), va.get("verdict"));
      assertEquals(vb.get("criteria"), va.get("criteria"), audit + ": criteria differ");
      JsonNode ca = Json.MAPPER.readTree(Files.readString(cl.resolve("characterization/characterization.json")));
      JsonNode cb = Json.MAPPER.readTree(Files.readString(lo.resolve("characterization/characterization.json")));
      for (String k : List.of("trace", "data_quality", "reuse", "reuse_by_source", "reuse_interval", "sessions",
          "request_instance_ratio")) {
        assertEquals(cb.get(k), ca.get(k), audit + ": characterization " + k + " differs");
      }
      for (String table : List.of("reuse_by_minute", "reuse_interval_cdf", "session_token_lorenz", "request_instance_ratio")) {
        assertEquals(rows(spark, lo.resolve("characterization/" + table)), rows(spark, cl.resolve("characterization/" + table)),
            audit + ": table " + table + " differs");
      }
    }
    // ingest on the executors wrote the same canonical rows
    List<Row> ta = spark.read().parquet(tmp.resolve("mc-cluster/ingest/trace").toString()).orderBy(Canonical.SEQ).collectAsList();
    List<Row> tb = spark.read().parquet(mcLocal.resolve("ingest/trace").toString()).orderBy(Canonical.SEQ).collectAsList();
    assertEquals(3993, ta.size());
    assertEquals(tb, ta);
    JsonNode ia = withoutPaths(Json.MAPPER.readTree(Files.readString(tmp.resolve("mc-cluster/ingest/ingest-summary.json"))));
    JsonNode ib = withoutPaths(Json.MAPPER.readTree(Files.readString(mcLocal.resolve("ingest/ingest-summary.json"))));
    assertEquals(ib, ia);
    // the replay sweep ran as Spark tasks on the executors: the same runs, metric for metric
    List<Row> ra = runs(spark, tmp.resolve("mc-cluster/replay/runs"));
    List<Row> rb = runs(spark, mcLocal.resolve("replay/runs"));
    assertEquals(3 * 2 * 1, ra.size()); // policies x global ratios x rates of MOONCAKE_SWEEP
    assertEquals(rb, ra);
    assertEquals("inferred", Json.MAPPER.readTree(Files.readString(tmp.resolve("mc-cluster/provenance.json")))
        .get("sessions").asText());
  }

  private static List<Row> rows(SparkSession spark, Path table) {
    org.apache.spark.sql.Dataset<Row> d = spark.read().parquet(table.toString());
    return d.orderBy(d.columns()[0], java.util.Arrays.copyOfRange(d.columns(), 1, d.columns().length)).collectAsList();
  }

  /** The runs table without its timing columns (wall and CPU seconds differ run to run). */
  private static List<Row> runs(SparkSession spark, Path table) {
    return spark.read().parquet(table.toString()).drop("wall_s", "cpu_s").orderBy("run_id").collectAsList();
  }

  private static JsonNode withoutPaths(JsonNode n) {
    ObjectNode o = n.deepCopy();
    for (JsonNode f : o.withArray("files")) ((ObjectNode) f).remove("path");
    o.remove("findings");
    return o;
  }
}
