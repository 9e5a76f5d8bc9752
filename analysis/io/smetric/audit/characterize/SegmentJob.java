package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.CanonicalParquet;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.LongAccumulator;

/**
 * The segment plan on a cluster: one Spark task per {@link Routing} part; each reads the
 * canonical files itself (block-id pages decoded in bulk, in trace order) and keeps only its own
 * regions, so no block id becomes a Spark row or crosses a shuffle. Tasks return their sums as
 * rows of the aggregate table ({@link ReuseAggregates}) (O(minutes + turns + distinct intervals) each); one
 * small aggregation merges them. The driver holds the routing sample and the accumulators only.
 */
final class SegmentJob {
  static final StructType AGG = new StructType()
      .add(ReuseAggregates.KIND, DataTypes.IntegerType, false).add(ReuseAggregates.SRC, DataTypes.IntegerType, false)
      .add(ReuseAggregates.KEY, DataTypes.LongType, false).add(ReuseAggregates.TOKENS, DataTypes.LongType, false)
      .add(ReuseAggregates.BLOCKS, DataTypes.LongType, false);

  record Result(Dataset<Row> aggregates, ObjectNode counters) {}

  private final SparkSession spark;
  private final CanonicalParquet files;
  private final int templateMinSessions;

  SegmentJob(SparkSession spark, CanonicalParquet files, int templateMinSessions) {
    this.spark = spark;
    this.files = files;
    this.templateMinSessions = templateMinSessions;
  }

  /** @throws Characterization.UnsortedInput when the files are not in (arrival_s, seq) order */
  Result execute() {
    spark.sparkContext().setJobGroup(ReuseAggregates.JOB_GROUP, "ideal prefix reuse by prefix segments", false);
    try {
      int parts = Math.max(1, spark.sparkContext().defaultParallelism());
      Routing routing = parts == 1 ? Routing.single()
          : Routing.fromSample(files.sample(Characterization.ROUTING_SAMPLE_GROUPS, Characterization.ROUTING_SAMPLE_ROWS),
              parts);
      LongAccumulator[] acc = new LongAccumulator[5];
      String[] names = {"distinct", "template", "segments", "regions", "runs"};
      for (int i = 0; i < acc.length; i++) acc[i] = spark.sparkContext().longAccumulator("segments." + names[i]);
      CanonicalParquet in = files;
      int k = templateMinSessions;
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      JavaRDD<Row> rows = jsc.parallelize(IntStream.range(0, parts).boxed().toList(), parts).mapPartitions(it -> {
        List<Row> out = new ArrayList<>();
        while (it.hasNext()) {
          int part = it.next();
          ReuseSums s = SegmentReuse.task(in.batches(Characterization.BATCH_ROWS), routing, part, k, in.folder);
          acc[0].add(s.distinctBlocks);
          acc[1].add(s.templateBlocks);
          acc[2].add(s.segments);
          acc[3].add(s.regionRequests);
          acc[4].add(s.hitRuns);
          s.emit(out);
        }
        return out.iterator();
      });
      Dataset<Row> aggs = spark.createDataFrame(rows, AGG).groupBy(ReuseAggregates.KIND, ReuseAggregates.SRC, ReuseAggregates.KEY)
          .agg(sum(ReuseAggregates.TOKENS).as(ReuseAggregates.TOKENS), sum(ReuseAggregates.BLOCKS).as(ReuseAggregates.BLOCKS))
          .select(col(ReuseAggregates.KIND), col(ReuseAggregates.SRC), col(ReuseAggregates.KEY), col(ReuseAggregates.TOKENS), col(ReuseAggregates.BLOCKS))
          .persist(StorageLevel.MEMORY_AND_DISK());
      try {
        aggs.count();
      } catch (RuntimeException e) {
        aggs.unpersist(false);
        for (Throwable c = e; c != null; c = c.getCause()) {
          if (c instanceof Characterization.UnsortedInput o) throw o;
        }
        throw e;
      }
      ReuseSums totals = new ReuseSums();
      totals.distinctBlocks = acc[0].value();
      totals.templateBlocks = acc[1].value();
      totals.segments = acc[2].value();
      totals.regionRequests = acc[3].value();
      totals.hitRuns = acc[4].value();
      return new Result(aggs, Characterization.planCounters(totals, routing, "spark"));
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }
}
