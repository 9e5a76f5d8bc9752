package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.smetric.audit.common.Json;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * hash-summary.json ({@link AuditLayout#HASH_SUMMARY_FILE}, docs/block-hasher.md): what the
 * block-hasher read from the raw logs, per file and in total, and how it hashed them. The hasher
 * writes it (each file's entry is built in the task that hashed the file) and the CLI and the
 * report read it through this one record. Fields are written in declaration order; the optional
 * ones (marked) are left out when they have no value; unknown fields are ignored when reading.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"files", "per_file", "records_read", "conversations", "requests", "sessions",
    "requests_without_session", "input_tokens", "output_tokens", "output_tokens_missing", "blocks",
    "provider_cache_requests", "recorded_requests", "warnings", "skipped", "tokenizer", "template", "block_size",
    "hash", "dense_ids", "log_format", "messages_path", "arrivals"})
public record HashSummary(
    int files,
    @JsonProperty("per_file") List<FileEntry> perFile,
    @JsonProperty("records_read") long recordsRead,
    long conversations,
    long requests,
    long sessions,
    @JsonProperty("requests_without_session") long requestsWithoutSession,
    @JsonProperty("input_tokens") long inputTokens,
    @JsonProperty("output_tokens") long outputTokens,
    @JsonProperty("output_tokens_missing") long outputTokensMissing,
    long blocks,
    @JsonProperty("provider_cache_requests") long providerCacheRequests,
    /** Optional: only when some log recorded routing or latency (trace-model v1.3). */
    @JsonProperty("recorded_requests") Long recordedRequests,
    /** One per file with more than half of its records skipped. */
    List<String> warnings,
    Skipped skipped,
    String tokenizer,
    Template template,
    @JsonProperty("block_size") int blockSize,
    /** How block ids are computed (the salt is never written). */
    String hash,
    @JsonProperty("dense_ids") boolean denseIds,
    @JsonProperty("log_format") String logFormat,
    /** Optional: the --messages-path given. */
    @JsonProperty("messages_path") String messagesPath,
    Arrivals arrivals) {

  /**
   * One log file's counters. Its maps keep the order they were built in (skip reasons most
   * frequent first, notes as met), not the mapper's sorted order.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"file", "format", "records", "conversations", "requests", "skipped", "skip_reasons",
      "formats_that_fit", "synthesised", "output_tokens_missing", "synthetic_arrivals", "log_timestamps",
      "requests_without_session", "provider_cache_requests", "provider_usage_inconsistent", "synthetic_units",
      "min_log_time_s", "messages_path", "messages_path_source", "recorded_requests"})
  public record FileEntry(
      String file,
      /** The log format the file was read as (its CLI name). */
      String format,
      long records,
      long conversations,
      long requests,
      long skipped,
      /** Skip reason kind -> records, most frequent first. */
      @JsonProperty("skip_reasons") @JsonSerialize(using = InOrder.class) Map<String, Long> skipReasons,
      /** The formats whose reader accepts the file's first records. */
      @JsonProperty("formats_that_fit") List<String> formatsThatFit,
      /** What the log lacks and was synthesised or left out: key -> count and description, in the order met. */
      @JsonSerialize(using = InOrder.class) Map<String, Note> synthesised,
      @JsonProperty("output_tokens_missing") long outputTokensMissing,
      @JsonProperty("synthetic_arrivals") long syntheticArrivals,
      @JsonProperty("log_timestamps") long logTimestamps,
      @JsonProperty("requests_without_session") long requestsWithoutSession,
      @JsonProperty("provider_cache_requests") long providerCacheRequests,
      @JsonProperty("provider_usage_inconsistent") long providerUsageInconsistent,
      /** Conversations, or records without timestamp: the units synthetic arrivals are spaced by. */
      @JsonProperty("synthetic_units") long syntheticUnits,
      /** The earliest log timestamp (epoch seconds); null when the file has none. */
      @JsonProperty("min_log_time_s") @JsonInclude(JsonInclude.Include.ALWAYS) @JsonSerialize(using = PlainSeconds.class)
      Double minLogTimeS,
      /** Optional: where the records keep their message list, and who said so (user or detected). */
      @JsonProperty("messages_path") String messagesPath,
      @JsonProperty("messages_path_source") String messagesPathSource,
      /** Optional: requests with recorded routing or latency, only when non-zero. */
      @JsonProperty("recorded_requests") Long recordedRequests) {}

  /**
   * Writes a map in its own iteration order: the mapper sorts map entries by key
   * (ORDER_MAP_ENTRIES_BY_KEYS), which would reorder the skip reasons and notes the file has always
   * listed in their own order. Reading keeps the file's order (a LinkedHashMap).
   */
  static final class InOrder extends StdSerializer<Map<String, ?>> {
    @SuppressWarnings({"unchecked", "rawtypes"})
    InOrder() {
      super((Class) Map.class);
    }

    @Override
    public void serialize(Map<String, ?> map, JsonGenerator gen, SerializerProvider provider) throws IOException {
      gen.writeStartObject();
      for (Map.Entry<String, ?> e : map.entrySet()) provider.defaultSerializeField(e.getKey(), e.getValue(), gen);
      gen.writeEndObject();
    }
  }

  /**
   * A timestamp as the file has always written it: a whole number of seconds as an integer
   * (1775816541), a fraction as a double (1.7758165415E9). The task once wrote the plain decimal and
   * the driver re-read it, which gave exactly these forms.
   */
  static final class PlainSeconds extends StdSerializer<Double> {
    PlainSeconds() {
      super(Double.class);
    }

    @Override
    public void serialize(Double v, JsonGenerator gen, SerializerProvider provider) throws IOException {
      if (v == Math.rint(v) && Math.abs(v) < 9.0e18) gen.writeNumber(v.longValue());
      else gen.writeNumber(v);
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"count", "what"})
  public record Note(long count, String what) {}

  /** Skipped records: how many, the first reasons (at most 200) and how many of them are listed. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"count", "reasons", "reasons_listed"})
  public record Skipped(long count, List<String> reasons, @JsonProperty("reasons_listed") int reasonsListed) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"name", "version"})
  public record Template(String name, int version) {}

  /** Where arrivals came from; first and last only when the trace has a request. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"from_log_timestamps", "synthesised", "rule", "first_s", "last_s"})
  public record Arrivals(
      @JsonProperty("from_log_timestamps") long fromLogTimestamps,
      long synthesised,
      String rule,
      @JsonProperty("first_s") Double firstS,
      @JsonProperty("last_s") Double lastS) {}

  /** The JSON tree as written to the file. */
  public ObjectNode toJson() {
    return Json.MAPPER.valueToTree(this);
  }

  /** Reads a summary; {@code where} names it in an error. */
  public static HashSummary read(JsonNode n, String where) {
    return ContractJson.read(n, HashSummary.class, where, "a hash summary");
  }

  /** Reads one file's entry (the JSON a hashing task hands the driver). */
  public static FileEntry readFile(String json) {
    try {
      return Json.MAPPER.readValue(json, FileEntry.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a hashing task's file counters do not read: " + e.getMessage(), e);
    }
  }
}
