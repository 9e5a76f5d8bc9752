package io.smetric.audit.ingest;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.length;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;

/**
 * Parquet input in the canonical schema (columns by name). Its {@code blocks} column is taken as
 * canonical, already-chained ids, so a dataset this tool wrote ingests unchanged; a
 * {@code hash_ids} column instead holds source ids and is chained. The "line" of a Parquet
 * record is its 1-based row position in the file ({@code _metadata.row_index} + 1).
 */
final class ParquetInput {
  private ParquetInput() {}

  private static final UserDefinedFunction CHAIN =
      org.apache.spark.sql.functions.udf(
          (UDF1<scala.collection.Seq<Long>, long[]>) s -> {
            if (s == null) return null;
            long[] a = new long[s.size()];
            scala.collection.Iterator<Long> it = s.iterator();
            for (int i = 0; it.hasNext(); i++) a[i] = it.next();
            return BlockChain.chainInPlace(a, a.length);
          },
          DataTypes.createArrayType(DataTypes.LongType, false));

  static FileStats stage(SparkSession spark, Path file, int fileIndex, String stTrace, String stQuar) {
    Dataset<Row> raw = spark.read().parquet(file.toString());
    Map<String, DataType> types = new HashMap<>();
    for (StructField f : raw.schema().fields()) types.put(f.name(), f.dataType());
    for (String req : List.of(Canonical.REQUEST_ID, Canonical.ARRIVAL_S, Canonical.INPUT_TOKENS, Canonical.OUTPUT_TOKENS)) {
      if (!types.containsKey(req)) {
        throw new BadInputException(file.toString(), -1, req, "required column is missing (columns: " + new java.util.TreeSet<>(types.keySet()) + ")");
      }
    }
    for (String num : List.of(Canonical.ARRIVAL_S, Canonical.INPUT_TOKENS, Canonical.OUTPUT_TOKENS)) {
      if (!(types.get(num) instanceof org.apache.spark.sql.types.NumericType)) {
        throw new BadInputException(file.toString(), -1, num, "column has type " + types.get(num).simpleString() + ", expected a number");
      }
    }
    Dataset<Row> d = raw.withColumn("_row", col("_metadata.row_index").plus(1));
    Column blocks;
    if (types.containsKey(Canonical.BLOCKS)) blocks = col(Canonical.BLOCKS).cast(DataTypes.createArrayType(DataTypes.LongType));
    else if (types.containsKey("hash_ids")) blocks = CHAIN.apply(col("hash_ids").cast(DataTypes.createArrayType(DataTypes.LongType)));
    else blocks = lit(null).cast(DataTypes.createArrayType(DataTypes.LongType));
    Column blockSize = opt(types, Canonical.BLOCK_SIZE, DataTypes.IntegerType);
    Column arrival = col(Canonical.ARRIVAL_S).cast(DataTypes.DoubleType);
    Column in = col(Canonical.INPUT_TOKENS).cast(DataTypes.LongType);
    Column out = col(Canonical.OUTPUT_TOKENS).cast(DataTypes.LongType);
    Column turn = opt(types, Canonical.TURN, DataTypes.LongType);
    String[] original = raw.columns();
    Dataset<Row> v =
        d.select(
            col(Canonical.REQUEST_ID).cast("string").as(Canonical.REQUEST_ID),
            opt(types, Canonical.SESSION_ID, DataTypes.StringType).as(Canonical.SESSION_ID),
            opt(types, Canonical.PARENT_ID, DataTypes.StringType).as(Canonical.PARENT_ID),
            turn.as("_turn"),
            org.apache.spark.sql.functions.coalesce(opt(types, Canonical.TRIGGER, DataTypes.StringType), lit(Canonical.TRIGGER_UNKNOWN)).as(Canonical.TRIGGER),
            arrival.as(Canonical.ARRIVAL_S),
            in.as("_in"),
            out.as("_out"),
            blockSize.as(Canonical.BLOCK_SIZE),
            blocks.as(Canonical.BLOCKS),
            opt(types, Canonical.REQUEST_TYPE, DataTypes.StringType).as(Canonical.REQUEST_TYPE),
            lit(((long) fileIndex) << Canonical.SEQ_FILE_SHIFT).plus(col("_row")).as(Canonical.SEQ),
            opt(types, Canonical.PROVIDER_INPUT_TOKENS, DataTypes.LongType).as("_pin"),
            opt(types, Canonical.PROVIDER_CACHED_TOKENS, DataTypes.LongType).as("_pc"),
            opt(types, Canonical.PROVIDER_CACHE_WRITE_TOKENS, DataTypes.LongType).as("_pw"),
            opt(types, Canonical.PROVIDER_CACHE, DataTypes.StringType).as(Canonical.PROVIDER_CACHE),
            // recorded routing (trace-model v1.3): durations, or first-token / finish times on the arrival's clock
            when(length(opt(types, Canonical.SERVED_INSTANCE, DataTypes.StringType)).gt(0),
                opt(types, Canonical.SERVED_INSTANCE, DataTypes.StringType)).as(Canonical.SERVED_INSTANCE),
            opt(types, Canonical.TTFT_S, DataTypes.DoubleType).as("_ttft"),
            opt(types, Canonical.E2E_S, DataTypes.DoubleType).as("_e2e"),
            opt(types, Canonical.FIRST_TOKEN_S, DataTypes.DoubleType).as("_ft"),
            opt(types, Canonical.FINISH_S, DataTypes.DoubleType).as("_fin"),
            opt(types, Canonical.OUTCOME, DataTypes.StringType).as(Canonical.OUTCOME),
            col("_row"),
            to_json(struct(Arrays.stream(original).map(c -> col("`" + c + "`")).toArray(Column[]::new))).as("_raw"));
    Column reason =
        when(col(Canonical.REQUEST_ID).isNull(), lit(Reasons.MISSING_FIELD + "|" + Canonical.REQUEST_ID))
            .when(col(Canonical.ARRIVAL_S).isNull(), lit(Reasons.MISSING_FIELD + "|" + Canonical.ARRIVAL_S))
            .when(org.apache.spark.sql.functions.isnan(col(Canonical.ARRIVAL_S)).or(col(Canonical.ARRIVAL_S).lt(0))
                .or(col(Canonical.ARRIVAL_S).equalTo(Double.POSITIVE_INFINITY)), lit(Reasons.BAD_TIMESTAMP + "|" + Canonical.ARRIVAL_S))
            .when(col("_in").isNull(), lit(Reasons.MISSING_FIELD + "|" + Canonical.INPUT_TOKENS))
            .when(col("_in").lt(0), lit(Reasons.NEGATIVE_VALUE + "|" + Canonical.INPUT_TOKENS))
            .when(col("_in").gt(Integer.MAX_VALUE), lit(Reasons.BAD_VALUE + "|" + Canonical.INPUT_TOKENS))
            .when(col("_out").isNull(), lit(Reasons.MISSING_FIELD + "|" + Canonical.OUTPUT_TOKENS))
            .when(col("_out").lt(0), lit(Reasons.NEGATIVE_VALUE + "|" + Canonical.OUTPUT_TOKENS))
            .when(col("_out").gt(Integer.MAX_VALUE), lit(Reasons.BAD_VALUE + "|" + Canonical.OUTPUT_TOKENS))
            .when(col("_turn").lt(0), lit(Reasons.NEGATIVE_VALUE + "|" + Canonical.TURN))
            .when(col(Canonical.BLOCKS).isNotNull().and(col(Canonical.BLOCK_SIZE).isNull().or(col(Canonical.BLOCK_SIZE).leq(0))),
                lit(Reasons.BAD_VALUE + "|" + Canonical.BLOCK_SIZE))
            // the optional provider cache fields (trace-model v1.2): none, or a consistent set
            .when(col(Canonical.PROVIDER_CACHE).isNull().and(col("_pin").isNotNull().or(col("_pc").isNotNull()).or(col("_pw").isNotNull())),
                lit(Reasons.MISSING_FIELD + "|" + Canonical.PROVIDER_CACHE))
            .when(col(Canonical.PROVIDER_CACHE).isNotNull().and(col(Canonical.PROVIDER_CACHE).isin(Canonical.CACHE_KINDS.toArray()).unary_$bang()),
                lit(Reasons.BAD_VALUE + "|" + Canonical.PROVIDER_CACHE))
            .when(col(Canonical.PROVIDER_CACHE).isNotNull().and(col("_pin").isNull()), lit(Reasons.MISSING_FIELD + "|" + Canonical.PROVIDER_INPUT_TOKENS))
            .when(col(Canonical.PROVIDER_CACHE).isNotNull().and(col("_pc").isNull()), lit(Reasons.MISSING_FIELD + "|" + Canonical.PROVIDER_CACHED_TOKENS))
            .when(col("_pin").lt(0).or(col("_pc").lt(0)).or(col("_pw").lt(0)), lit(Reasons.NEGATIVE_VALUE + "|" + Canonical.PROVIDER_CACHED_TOKENS))
            .when(col("_pin").gt(Integer.MAX_VALUE), lit(Reasons.BAD_VALUE + "|" + Canonical.PROVIDER_INPUT_TOKENS))
            .when(col("_pc").gt(col("_pin")), lit(Reasons.BAD_VALUE + "|" + Canonical.PROVIDER_CACHED_TOKENS))
            .when(coalesce(col("_pw"), lit(0L)).plus(col("_pc")).gt(col("_pin")), lit(Reasons.BAD_VALUE + "|" + Canonical.PROVIDER_CACHE_WRITE_TOKENS))
            // the optional recorded routing (trace-model v1.3): the rules of TraceRecord.Recorded
            .when(notFinite(col("_ft")).or(col("_ft").lt(col(Canonical.ARRIVAL_S))), lit(Reasons.BAD_VALUE + "|" + Canonical.FIRST_TOKEN_S))
            .when(notFinite(col("_fin")).or(col("_fin").lt(col(Canonical.ARRIVAL_S))), lit(Reasons.BAD_VALUE + "|" + Canonical.FINISH_S))
            .when(col(Canonical.TTFT_S).lt(0), lit(Reasons.NEGATIVE_VALUE + "|" + Canonical.TTFT_S))
            .when(col(Canonical.E2E_S).lt(0), lit(Reasons.NEGATIVE_VALUE + "|" + Canonical.E2E_S))
            .when(notFinite(col(Canonical.TTFT_S)), lit(Reasons.BAD_VALUE + "|" + Canonical.TTFT_S))
            .when(notFinite(col(Canonical.E2E_S)), lit(Reasons.BAD_VALUE + "|" + Canonical.E2E_S))
            .when(col(Canonical.TTFT_S).gt(col(Canonical.E2E_S).plus(1e-6)), lit(Reasons.BAD_VALUE + "|" + Canonical.TTFT_S))
            .when(col(Canonical.OUTCOME).isNotNull().and(col(Canonical.OUTCOME).isin(Canonical.OUTCOMES.toArray()).unary_$bang()),
                lit(Reasons.BAD_VALUE + "|" + Canonical.OUTCOME));
    v = v.withColumn(Canonical.TTFT_S, coalesce(col("_ttft"), col("_ft").minus(col(Canonical.ARRIVAL_S))))
        .withColumn(Canonical.E2E_S, coalesce(col("_e2e"), col("_fin").minus(col(Canonical.ARRIVAL_S))));
    Dataset<Row> checked = v.withColumn("_reason", reason).persist(org.apache.spark.storage.StorageLevel.DISK_ONLY());
    try {
      Dataset<Row> good =
          checked.filter(col("_reason").isNull())
              .select(col(Canonical.REQUEST_ID), col(Canonical.SESSION_ID), col(Canonical.PARENT_ID),
                  col("_turn").cast("int").as(Canonical.TURN), col(Canonical.TRIGGER), col(Canonical.ARRIVAL_S),
                  col("_in").cast("int").as(Canonical.INPUT_TOKENS), col("_out").cast("int").as(Canonical.OUTPUT_TOKENS),
                  when(col(Canonical.BLOCKS).isNull(), lit(null).cast("int")).otherwise(col(Canonical.BLOCK_SIZE)).as(Canonical.BLOCK_SIZE),
                  col(Canonical.BLOCKS), col(Canonical.REQUEST_TYPE), col(Canonical.SEQ),
                  col("_pin").cast("int").as(Canonical.PROVIDER_INPUT_TOKENS), col("_pc").cast("int").as(Canonical.PROVIDER_CACHED_TOKENS),
                  col("_pw").cast("int").as(Canonical.PROVIDER_CACHE_WRITE_TOKENS), col(Canonical.PROVIDER_CACHE),
                  col(Canonical.SERVED_INSTANCE), col(Canonical.TTFT_S), col(Canonical.E2E_S), col(Canonical.OUTCOME));
      good.write().mode(SaveMode.Append).parquet(stTrace);
      Column parts = org.apache.spark.sql.functions.split(col("_reason"), "\\|");
      checked.filter(col("_reason").isNotNull())
          .select(lit(file.toString()).as("source_file"), col("_row").as("line"), parts.getItem(0).as("reason"),
              parts.getItem(1).as("field"), lit("invalid value in Parquet row").as("detail"), col("_raw").as("raw"))
          .write().mode(SaveMode.Append).parquet(stQuar);
      FileStats st = new FileStats();
      st.fileIndex = fileIndex;
      st.path = file.toString();
      st.format = TraceFormat.PARQUET.id();
      Row agg =
          checked.agg(
                  org.apache.spark.sql.functions.count(lit(1)),
                  org.apache.spark.sql.functions.count(when(col("_reason").isNull(), lit(1))),
                  org.apache.spark.sql.functions.min(when(col("_reason").isNull(), col(Canonical.ARRIVAL_S))),
                  org.apache.spark.sql.functions.max(when(col("_reason").isNull(), col(Canonical.ARRIVAL_S))),
                  org.apache.spark.sql.functions.sum(when(col("_reason").isNull(), col("_in"))),
                  org.apache.spark.sql.functions.sum(when(col("_reason").isNull(), col("_out"))))
              .first();
      st.read = agg.getLong(0);
      st.accepted = agg.getLong(1);
      if (st.accepted > 0) {
        st.minArrival = agg.getDouble(2);
        st.maxArrival = agg.getDouble(3);
        st.inputTokens = agg.getLong(4);
        st.outputTokens = agg.getLong(5);
      }
      for (Row r : checked.filter(col("_reason").isNotNull()).groupBy(parts.getItem(0)).count().collectAsList()) {
        st.quarantined.put(r.getString(0), r.getLong(1));
      }
      if (st.read == 0) st.findings.add("empty file: no rows");
      st.findings.add("Parquet input: arrival order within the file is not checked; the dataset is sorted on output");
      return st;
    } finally {
      checked.unpersist();
    }
  }

  /** NaN or infinite (null stays null, so that a missing value passes). */
  private static Column notFinite(Column c) {
    return org.apache.spark.sql.functions.isnan(c).or(c.equalTo(Double.POSITIVE_INFINITY)).or(c.equalTo(Double.NEGATIVE_INFINITY));
  }

  private static Column opt(Map<String, DataType> types, String name, DataType t) {
    return types.containsKey(name) ? col(name).cast(t) : lit(null).cast(t);
  }
}
