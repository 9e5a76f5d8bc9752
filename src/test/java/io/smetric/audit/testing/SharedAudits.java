package io.smetric.audit.testing;

import io.smetric.audit.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Audits of the shipped samples that several test classes in one JVM read, each computed once,
 * lazily, in process on {@link TestSpark} (local[2], {@link #SHUFFLE_PARTITIONS} shuffle
 * partitions) through the CLI entry point, as {@code smetric-audit audit ...} runs it. The integration tests share the failsafe JVM:
 * StandaloneClusterIT compares its cluster runs against these local-mode audits, and NotebooksIT
 * hands the Mooncake audit to notebook 02. The folders live in one temporary directory deleted
 * when the JVM exits.
 */
public final class SharedAudits {
  /** The repository root (surefire/failsafe set smetric.repo). */
  public static final Path REPO = Path.of(System.getProperty("smetric.repo", ".")).toAbsolutePath();
  public static final Path MOONCAKE = REPO.resolve("sample-traces/mooncake/synthetic_trace.jsonl");
  public static final Path SWE_AGENT_LOGS = REPO.resolve("sample-traces/raw-logs/swe-agent");

  /**
   * The replay sweep of the Mooncake audit: three policies (SMetric, the load-only and the
   * cache-affinity baseline) with and without a global tier, at the trace's own rate. Each run is
   * one Spark task, so on a cluster they spread over the executors.
   */
  public static final List<String> MOONCAKE_SWEEP = List.of("--instances", "4", "--policies",
      "smetric,least-load,cache-affinity", "--global-ratio", "0,0.8", "--rate-scale", "1",
      "--bootstrap", "0", "--no-conditions"); // no replicates or conditions: the tests sharing this audit check stages, not intervals

  /** Options of the raw-log audit (the block-hasher path; no replay). */
  public static final List<String> LOGS_OPTIONS = List.of("--instances", "1", "--no-replay");

  private static Path root;
  private static Path salt;
  private static Path mooncake;
  private static Path logs;

  private SharedAudits() {}

  /** The salt file of the raw-log audits (local and cluster runs must hash with the same salt). */
  public static synchronized Path saltFile() {
    if (salt == null) {
      salt = root().resolve("salt");
      write(salt, "cluster-test-salt-0123456789abcdef\n");
    }
    return salt;
  }

  /** {@code audit sample-traces/mooncake/synthetic_trace.jsonl} with {@link #MOONCAKE_SWEEP}, local mode. */
  public static synchronized Path mooncakeLocal() {
    if (mooncake == null) {
      Path out = root().resolve("mc-local");
      List<String> a = new ArrayList<>(List.of("audit", MOONCAKE.toString(), "--out", out.toString()));
      a.addAll(MOONCAKE_SWEEP);
      run(a);
      mooncake = out;
    }
    return mooncake;
  }

  /** {@code audit sample-traces/raw-logs/swe-agent --salt-file ...} with {@link #LOGS_OPTIONS}, local mode. */
  public static synchronized Path logsLocal() {
    if (logs == null) {
      Path out = root().resolve("logs-local");
      List<String> a = new ArrayList<>(List.of("audit", SWE_AGENT_LOGS.toString(), "--salt-file", saltFile().toString(),
          "--out", out.toString()));
      a.addAll(LOGS_OPTIONS);
      run(a);
      logs = out;
    }
    return logs;
  }

  /**
   * Shuffle partitions of these audits: what {@code smetric-audit} picks by itself in local mode on
   * a 2-core machine (2 x cores) and what StandaloneClusterIT gives its cluster submissions, so
   * the local and cluster runs partition their data alike.
   */
  public static final String SHUFFLE_PARTITIONS = "4";

  private static void run(List<String> args) {
    // the command's getOrCreate reuses the shared test session; its runtime SQL conf is set for
    // the run and restored after (the unit tests' 2 partitions)
    SparkSession spark = TestSpark.get();
    String before = spark.conf().get("spark.sql.shuffle.partitions");
    spark.conf().set("spark.sql.shuffle.partitions", SHUFFLE_PARTITIONS);
    try {
      StringWriter err = new StringWriter();
      int code = Main.run(args.toArray(new String[0]), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
      if (code != 0) throw new IllegalStateException(String.join(" ", args) + " exited with " + code + ":\n" + err);
    } finally {
      spark.conf().set("spark.sql.shuffle.partitions", before);
    }
  }

  private static Path root() {
    if (root == null) {
      try {
        root = Files.createTempDirectory("smetric-shared-audits");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Path r = root;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> FixtureTables.deleteQuietly(r)));
    }
    return root;
  }

  private static void write(Path p, String text) {
    try {
      Files.writeString(p, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
