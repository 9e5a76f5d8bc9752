package io.smetric.audit.infer.corpus;

import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * A corpus member as files (Mooncake-format lines and the truth side file that
 * {@code infer-sessions --truth} reads) or as in-memory datasets for tests.
 */
public final class CorpusWriter {
  private CorpusWriter() {}

  /** Writes {@code dir/<name>.jsonl} and {@code dir/<name>.jsonl.truth.jsonl}; returns the trace path. */
  public static Path write(List<CorpusRequest> reqs, Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    Path trace = dir.resolve(name + ".jsonl");
    try (BufferedWriter w = Files.newBufferedWriter(trace, StandardCharsets.UTF_8)) {
      StringBuilder sb = new StringBuilder();
      for (CorpusRequest r : reqs) {
        sb.setLength(0);
        sb.append("{\"timestamp\":").append(r.timestampMs).append(",\"input_length\":").append(r.inputTokens)
            .append(",\"output_length\":").append(r.outputTokens).append(",\"hash_ids\":[");
        for (int i = 0; i < r.hashIds.length; i++) sb.append(i == 0 ? "" : ",").append(r.hashIds[i]);
        w.append(sb).append("]}\n");
      }
    }
    try (BufferedWriter w = Files.newBufferedWriter(dir.resolve(name + ".jsonl.truth.jsonl"), StandardCharsets.UTF_8)) {
      for (CorpusRequest r : reqs) w.append(truthLine(r)).append('\n');
    }
    return trace;
  }

  static String truthLine(CorpusRequest r) {
    return "{\"line\":" + r.line + ",\"session_id\":\"" + r.session + "\",\"parent_line\":"
        + (r.parentLine < 0 ? "null" : "" + r.parentLine) + ",\"turn\":" + r.turn + ",\"trigger\":\"" + r.trigger
        + "\",\"fork\":" + r.fork + ",\"compacted\":" + r.compacted + ",\"family\":\"" + r.family
        + "\",\"link_class\":\"" + r.linkClass + "\",\"content_class\":\"" + r.contentClass + "\"}";
  }

  /** The canonical dataset ingest would make of the Mooncake file (ids = line numbers, chained blocks). */
  public static Dataset<Row> canonical(SparkSession spark, List<CorpusRequest> reqs, int blockSize) {
    List<Row> rows = new ArrayList<>(reqs.size());
    for (CorpusRequest r : reqs) {
      long[] raw = new long[r.hashIds.length];
      for (int i = 0; i < raw.length; i++) raw[i] = r.hashIds[i];
      rows.add(new TraceRecord("" + r.line, null, null, null, Canonical.TRIGGER_UNKNOWN, r.timestampMs / 1000.0,
          r.inputTokens, r.outputTokens, blockSize, BlockChain.chain(raw), null, r.line).toRow());
    }
    return spark.createDataFrame(rows, Canonical.SCHEMA);
  }

  /** The truth as a dataset of {@code InferenceAccuracy.TRUTH_SCHEMA}. */
  public static Dataset<Row> truth(SparkSession spark, List<CorpusRequest> reqs) {
    List<Row> rows = new ArrayList<>(reqs.size());
    for (CorpusRequest r : reqs) {
      rows.add(RowFactory.create((long) r.line, r.session, r.parentLine < 0 ? null : (long) r.parentLine, r.turn,
          r.trigger, r.fork, r.compacted, r.family, r.linkClass, r.contentClass));
    }
    return spark.createDataFrame(rows, io.smetric.audit.infer.InferenceAccuracy.TRUTH_SCHEMA);
  }
}
