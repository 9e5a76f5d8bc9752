package io.smetric.audit.common;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * Builds the SparkSession for a command's {@code main}; library code only receives one. When the
 * process was started by spark-submit (spark.master already set) nothing here overrides the
 * user's cluster settings; otherwise it runs embedded in local mode bound to loopback.
 */
public final class Sparks {
  private Sparks() {}

  public static SparkSession session(String appName, String masterOrNull, boolean ui) {
    SparkConf probe = new SparkConf();
    SparkSession.Builder b = SparkSession.builder().appName(appName);
    String master = masterOrNull != null ? masterOrNull : probe.get("spark.master", null);
    if (master == null) master = "local[*]";
    b.master(master);
    if (master.startsWith("local")) {
      b.config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1");
      if (!probe.contains("spark.ui.enabled")) b.config("spark.ui.enabled", ui);
      if (!probe.contains("spark.sql.shuffle.partitions")) {
        b.config("spark.sql.shuffle.partitions", Math.max(2, Runtime.getRuntime().availableProcessors() * 2));
      }
    }
    b.config("spark.sql.session.timeZone", "UTC");
    SparkSession s = b.getOrCreate();
    s.sparkContext().setLogLevel(System.getProperty("smetric.sparkLogLevel", "WARN"));
    return s;
  }
}
