package io.smetric.audit.testing;

import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Builds small hand-made canonical traces for tests. Block ids given to {@link Builder#req} are
 * raw per-block content ids; they are chained as ingest would chain them, so tests can write
 * {@code blocks(1, 2, 3)} and reason about prefixes.
 */
public final class Traces {
  private Traces() {}

  public static Builder builder() {
    return new Builder();
  }

  public static long[] raw(long... ids) {
    return ids;
  }

  public static final class Builder {
    private final List<TraceRecord> records = new ArrayList<>();
    private int blockSize = 16;

    public Builder blockSize(int b) {
      this.blockSize = b;
      return this;
    }

    /** Adds a request; {@code rawBlocks} are chained here; seq is the insertion order. */
    public Builder req(String id, String session, String parent, Integer turn, String trigger,
        double arrival, int in, int out, long... rawBlocks) {
      records.add(new TraceRecord(id, session, parent, turn, trigger, arrival, in, out,
          blockSize, BlockChain.chain(rawBlocks), null, records.size()));
      return this;
    }

    /** A request with input = blocks x block size and 10 output tokens, trigger tool (user at turn 0). */
    public Builder simple(String id, String session, int turn, double arrival, long... rawBlocks) {
      return req(id, session, null, turn, turn == 0 ? Canonical.TRIGGER_USER : Canonical.TRIGGER_TOOL,
          arrival, rawBlocks.length * blockSize, 10, rawBlocks);
    }

    public Builder add(TraceRecord r) {
      records.add(r);
      return this;
    }

    public List<TraceRecord> records() {
      return records;
    }

    public Dataset<Row> toDataset(SparkSession spark) {
      List<Row> rows = new ArrayList<>();
      for (TraceRecord r : records) rows.add(r.toRow());
      return spark.createDataFrame(rows, Canonical.SCHEMA);
    }
  }
}
