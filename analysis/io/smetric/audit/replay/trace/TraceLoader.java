package io.smetric.audit.replay.trace;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.model.Canonical;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Reads a canonical Parquet dataset into a {@link ReplayTrace}. The replay is one sequential
 * simulation, so the trace must end up in one JVM; rows are streamed partition by partition in
 * replay order ({@code toLocalIterator}) and folded into segments on the fly, so the driver holds
 * the compact trace, never the rows.
 */
public final class TraceLoader {
  private TraceLoader() {}

  public static ReplayTrace load(SparkSession spark, String dir, boolean keepBlocks) {
    Dataset<Row> df;
    try {
      df = spark.read().parquet(dir);
    } catch (Exception e) {
      throw new BadInputException(dir, "cannot read a canonical Parquet dataset: " + firstLine(e));
    }
    for (String c : new String[] {Canonical.REQUEST_ID, Canonical.ARRIVAL_S, Canonical.INPUT_TOKENS,
        Canonical.OUTPUT_TOKENS, Canonical.SEQ}) {
      if (!List.of(df.columns()).contains(c)) throw new BadInputException(dir, -1, c, "column missing (not a canonical dataset?)");
    }
    spark.sparkContext().setJobGroup("smetric-replay-load", "replay: load canonical trace " + dir, false);
    Dataset<Row> sorted = df.select(
            col(df, Canonical.REQUEST_ID), col(df, Canonical.SESSION_ID), col(df, Canonical.TURN),
            col(df, Canonical.ARRIVAL_S), col(df, Canonical.INPUT_TOKENS), col(df, Canonical.OUTPUT_TOKENS),
            col(df, Canonical.BLOCK_SIZE), col(df, Canonical.BLOCKS), col(df, Canonical.SEQ))
        .orderBy(functions.col(Canonical.ARRIVAL_S), functions.col(Canonical.SEQ));
    ReplayTraceBuilder b = new ReplayTraceBuilder(dir, keepBlocks);
    long[] buf = new long[1024];
    Iterator<Row> it = sorted.toLocalIterator();
    while (it.hasNext()) {
      Row r = it.next();
      long[] blocks = null;
      int count = 0;
      if (!r.isNullAt(7)) {
        scala.collection.Seq<?> s = (scala.collection.Seq<?>) r.get(7);
        count = s.size();
        if (buf.length < count) buf = new long[Math.max(count, buf.length * 2)];
        scala.collection.Iterator<?> si = s.iterator();
        for (int i = 0; si.hasNext(); i++) buf[i] = (Long) si.next();
        blocks = buf;
      }
      b.add(r.getString(0), r.isNullAt(1) ? null : r.getString(1), r.isNullAt(2) ? null : r.getInt(2),
          r.getDouble(3), r.getInt(4), r.getInt(5), r.isNullAt(6) ? null : r.getInt(6), blocks, count, r.getLong(8));
    }
    spark.sparkContext().clearJobGroup();
    return b.build();
  }

  private static org.apache.spark.sql.Column col(Dataset<Row> df, String name) {
    return List.of(df.columns()).contains(name) ? functions.col(name) : functions.lit(null).as(name);
  }

  private static String firstLine(Exception e) {
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
  }
}
