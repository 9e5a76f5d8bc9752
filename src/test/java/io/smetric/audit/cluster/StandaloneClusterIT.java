package io.smetric.audit.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.model.Canonical;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
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
        "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4",
        "--class", "io.smetric.audit.cli.Main",
        REPO.resolve("target/smetric-audit-" + System.getProperty("smetric.version", "0.1.0") + "-spark.jar").toString()));
    cmd.addAll(List.of(appArgs));
    return cmd;
  }

  @Test
  void ingestOnStandaloneCluster_equalsLocalMode() throws Exception {
    Path mooncake = REPO.resolve("sample-traces/mooncake/synthetic_trace.jsonl");
    Path azure = REPO.resolve("sample-traces/azure-llm-2023/AzureLLMInferenceTrace_conv_first2000.csv");
    Path onCluster = tmp.resolve("cluster");
    Path local = tmp.resolve("local");
    List<Long> pids;
    try (LocalStandaloneCluster c = new LocalStandaloneCluster(tmp, REPO, 2, "1g")) {
      int rc = c.run("submit-cluster", submit(c, c.masterUrl(), "ingest", mooncake.toString(), azure.toString(),
          "--out", onCluster.toString()), 600);
      assertEquals(0, rc, c.log("submit-cluster"));
      assertTrue(c.log("master").contains("Registering app"), "the job ran on the cluster");
      rc = c.run("submit-local", submit(c, "local[2]", "ingest", mooncake.toString(), azure.toString(),
          "--out", local.toString()), 600);
      assertEquals(0, rc, c.log("submit-local"));
      pids = c.pids();
    }
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " left behind");
    }

    JsonNode a = withoutPaths(Json.MAPPER.readTree(Files.readString(onCluster.resolve("ingest-summary.json"))));
    JsonNode b = withoutPaths(Json.MAPPER.readTree(Files.readString(local.resolve("ingest-summary.json"))));
    assertEquals(b, a);
    assertEquals(5993, a.get("totals").get("accepted").asLong());

    SparkSession spark = io.smetric.audit.testing.TestSpark.get();
    List<Row> ra = spark.read().parquet(onCluster.resolve("trace").toString()).orderBy(Canonical.SEQ).collectAsList();
    List<Row> rb = spark.read().parquet(local.resolve("trace").toString()).orderBy(Canonical.SEQ).collectAsList();
    assertEquals(rb, ra);
  }

  private static JsonNode withoutPaths(JsonNode n) {
    ObjectNode o = n.deepCopy();
    for (JsonNode f : o.withArray("files")) ((ObjectNode) f).remove("path");
    o.remove("findings");
    return o;
  }
}
