package io.smetric.audit.testing;

import org.apache.spark.sql.SparkSession;

/**
 * The one SparkSession of the test JVM: local[2], UI off, 2 shuffle partitions, loopback. Tests
 * call {@link #get()}; nobody stops it (surefire reuses one fork for the whole run).
 */
public final class TestSpark {
  private static SparkSession session;

  private TestSpark() {}

  public static synchronized SparkSession get() {
    if (session == null) {
      session =
          SparkSession.builder()
              .appName("smetric-audit-tests")
              .master("local[2]")
              .config("spark.ui.enabled", "false")
              .config("spark.sql.shuffle.partitions", "2")
              .config("spark.default.parallelism", "2")
              .config("spark.driver.bindAddress", "127.0.0.1")
              .config("spark.driver.host", "127.0.0.1")
              .config("spark.sql.session.timeZone", "UTC")
              .config("spark.sql.adaptive.enabled", "true")
              .config("spark.sql.codegen.wholeStage", "false")
              .getOrCreate();
      session.sparkContext().setLogLevel("ERROR");
    }
    return session;
  }
}
