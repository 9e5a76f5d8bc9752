package io.smetric.audit.ingest;

import io.smetric.audit.contract.Canonical;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Parquet writers used inside ingest tasks. Each input file is parsed once and its records go
 * straight to Parquet through a {@link WriteSupport}, with no Spark Row per record: converting
 * block arrays into Spark rows boxes every id, which is most of the cost of a naive ingest. The
 * files carry Spark's schema metadata, so Spark reads them with exactly {@link Canonical#SCHEMA}.
 */
final class ParquetSinks {
  private ParquetSinks() {}

  static final MessageType CANONICAL =
      MessageTypeParser.parseMessageType(
          "message spark_schema {\n"
              + "  required binary request_id (STRING);\n"
              + "  optional binary session_id (STRING);\n"
              + "  optional binary parent_id (STRING);\n"
              + "  optional int32 turn;\n"
              + "  required binary trigger (STRING);\n"
              + "  required double arrival_s;\n"
              + "  required int32 input_tokens;\n"
              + "  required int32 output_tokens;\n"
              + "  optional int32 block_size;\n"
              + "  optional group blocks (LIST) { repeated group list { required int64 element; } }\n"
              + "  optional binary request_type (STRING);\n"
              + "  required int64 seq;\n"
              + "  optional int32 provider_input_tokens;\n"
              + "  optional int32 provider_cached_tokens;\n"
              + "  optional int32 provider_cache_write_tokens;\n"
              + "  optional binary provider_cache (STRING);\n"
              + "  optional binary served_instance (STRING);\n"
              + "  optional double ttft_s;\n"
              + "  optional double e2e_s;\n"
              + "  optional binary outcome (STRING);\n"
              + "}");

  static final MessageType QUARANTINE =
      MessageTypeParser.parseMessageType(
          "message spark_schema {\n"
              + "  required binary source_file (STRING);\n"
              + "  required int64 line;\n"
              + "  required binary reason (STRING);\n"
              + "  optional binary field (STRING);\n"
              + "  optional binary detail (STRING);\n"
              + "  optional binary raw (STRING);\n"
              + "}");

  /** One quarantined record as it is written. */
  record QRow(String sourceFile, long line, String reason, String field, String detail, String raw) {}

  static ParquetWriter<Staged> canonical(Path path, Configuration conf) throws IOException {
    // chained ids are uniformly random 64-bit values: a dictionary never pays off, and trying one
    // (a hash map lookup per id until the fallback) was the largest single cost of ingest
    return new Builder<Staged>(path, conf, new CanonicalSupport())
        .withDictionaryEncoding(Canonical.BLOCKS + ".list.element", false)
        .withPageWriteChecksumEnabled(false)
        .build();
  }

  static ParquetWriter<QRow> quarantine(Path path, Configuration conf) throws IOException {
    return new Builder<QRow>(path, conf, new QuarantineSupport()).build();
  }

  private static final class Builder<T> extends ParquetWriter.Builder<T, Builder<T>> {
    private final WriteSupport<T> support;

    Builder(Path path, Configuration conf, WriteSupport<T> support) throws IOException {
      super(HadoopOutputFile.fromPath(path, conf));
      this.support = support;
      withConf(conf);
      withCompressionCodec(CompressionCodecName.SNAPPY);
      withWriteMode(ParquetFileWriter.Mode.OVERWRITE);
    }

    @Override
    protected Builder<T> self() {
      return this;
    }

    @Override
    protected WriteSupport<T> getWriteSupport(Configuration conf) {
      return support;
    }
  }

  private static Map<String, String> sparkMeta(String json) {
    Map<String, String> m = new HashMap<>();
    m.put("org.apache.spark.sql.parquet.row.metadata", json);
    return m;
  }

  private static final class CanonicalSupport extends WriteSupport<Staged> {
    private RecordConsumer rc;

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(CANONICAL, sparkMeta(Canonical.SCHEMA.json()));
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.rc = recordConsumer;
    }

    @Override
    public void write(Staged s) {
      rc.startMessage();
      str(0, Canonical.REQUEST_ID, s.requestId);
      str(1, Canonical.SESSION_ID, s.sessionId);
      str(2, Canonical.PARENT_ID, s.parentId);
      if (s.turn != null) int32(3, Canonical.TURN, s.turn);
      str(4, Canonical.TRIGGER, s.trigger);
      rc.startField(Canonical.ARRIVAL_S, 5);
      rc.addDouble(s.arrivalS);
      rc.endField(Canonical.ARRIVAL_S, 5);
      int32(6, Canonical.INPUT_TOKENS, (int) s.inputTokens);
      int32(7, Canonical.OUTPUT_TOKENS, (int) s.outputTokens);
      if (s.blockSize != null) int32(8, Canonical.BLOCK_SIZE, s.blockSize);
      if (s.hasBlocks) {
        rc.startField(Canonical.BLOCKS, 9);
        rc.startGroup();
        int n = s.blocks.size();
        if (n > 0) {
          long[] a = s.blocks.elements();
          rc.startField("list", 0);
          for (int i = 0; i < n; i++) {
            rc.startGroup();
            rc.startField("element", 0);
            rc.addLong(a[i]);
            rc.endField("element", 0);
            rc.endGroup();
          }
          rc.endField("list", 0);
        }
        rc.endGroup();
        rc.endField(Canonical.BLOCKS, 9);
      }
      str(10, Canonical.REQUEST_TYPE, s.requestType);
      rc.startField(Canonical.SEQ, 11);
      rc.addLong(s.seqValue);
      rc.endField(Canonical.SEQ, 11);
      if (s.providerInputTokens != null) int32(12, Canonical.PROVIDER_INPUT_TOKENS, s.providerInputTokens);
      if (s.providerCachedTokens != null) int32(13, Canonical.PROVIDER_CACHED_TOKENS, s.providerCachedTokens);
      if (s.providerCacheWriteTokens != null) int32(14, Canonical.PROVIDER_CACHE_WRITE_TOKENS, s.providerCacheWriteTokens);
      str(15, Canonical.PROVIDER_CACHE, s.providerCache);
      str(16, Canonical.SERVED_INSTANCE, s.servedInstance);
      if (s.ttftS != null) dbl(17, Canonical.TTFT_S, s.ttftS);
      if (s.e2eS != null) dbl(18, Canonical.E2E_S, s.e2eS);
      str(19, Canonical.OUTCOME, s.outcome);
      rc.endMessage();
    }

    private void str(int i, String name, String v) {
      if (v == null) return;
      rc.startField(name, i);
      rc.addBinary(Binary.fromString(v));
      rc.endField(name, i);
    }

    private void int32(int i, String name, int v) {
      rc.startField(name, i);
      rc.addInteger(v);
      rc.endField(name, i);
    }

    private void dbl(int i, String name, double v) {
      rc.startField(name, i);
      rc.addDouble(v);
      rc.endField(name, i);
    }
  }

  private static final class QuarantineSupport extends WriteSupport<QRow> {
    private RecordConsumer rc;

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(QUARANTINE, sparkMeta(IngestJob.QUARANTINE_SCHEMA.json()));
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.rc = recordConsumer;
    }

    @Override
    public void write(QRow q) {
      rc.startMessage();
      str(0, "source_file", q.sourceFile());
      rc.startField("line", 1);
      rc.addLong(q.line());
      rc.endField("line", 1);
      str(2, "reason", q.reason());
      str(3, "field", q.field());
      str(4, "detail", q.detail());
      str(5, "raw", q.raw());
      rc.endMessage();
    }

    private void str(int i, String name, String v) {
      if (v == null) return;
      rc.startField(name, i);
      rc.addBinary(Binary.fromReusedByteArray(v.getBytes(StandardCharsets.UTF_8)));
      rc.endField(name, i);
    }
  }
}
