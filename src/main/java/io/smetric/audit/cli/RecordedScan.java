package io.smetric.audit.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.lit;

import io.smetric.audit.contract.Canonical;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Whether the trace records its routing (trace-model v1.3): more than half of its requests name
 * the instance that served them. One Spark job over the served_instance column.
 */
record RecordedScan(long requests, long withInstance, int distinct) {
  static RecordedScan of(SparkSession spark, String dataset) {
    Dataset<Row> d = Canonical.withOptionalColumns(spark.read().parquet(dataset));
    Row r = d.agg(count(lit(1)), count(Canonical.SERVED_INSTANCE), countDistinct(col(Canonical.SERVED_INSTANCE))).first();
    RecordedScan s = new RecordedScan(r.getLong(0), r.getLong(1), (int) r.getLong(2));
    return 2 * s.withInstance() > s.requests() ? s : null;
  }
}
