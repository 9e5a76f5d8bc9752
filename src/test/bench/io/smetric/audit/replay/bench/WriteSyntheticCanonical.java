package io.smetric.audit.replay.bench;

import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Writes the synthetic agent trace as a canonical Parquet dataset: {@code REQUESTS SESSIONS_PER_S OUT_DIR}. */
public final class WriteSyntheticCanonical {
  public static void main(String[] a) {
    int n = Integer.parseInt(a[0]);
    double sps = Double.parseDouble(a[1]);
    List<Row> rows = new ArrayList<>();
    AgentTraceSynth.generate(n, sps, 7, (id, s, turn, at, in, out, bs, c, cnt, seq) ->
        rows.add(new TraceRecord(id, s, null, turn, turn == 0 ? Canonical.TRIGGER_USER : Canonical.TRIGGER_TOOL, at, in, out,
            bs, java.util.Arrays.copyOf(c, cnt), null, seq).toRow()));
    SparkSession spark = SparkSession.builder().master("local[2]").appName("write-synthetic")
        .config("spark.ui.enabled", "false").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1").getOrCreate();
    spark.createDataFrame(rows, Canonical.SCHEMA).repartition(4).write().parquet(a[2]);
    spark.stop();
  }
}
