package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import java.util.List;
import java.util.Map;

/**
 * ingest-summary.json ({@link AuditLayout#INGEST_SUMMARY_FILE}, docs/ingest.md): what the ingest
 * read, accepted and quarantined per file and in total, the canonical dataset it wrote, and its
 * findings. The ingest writes it and the CLI and the report read it through this one record, so a
 * field renamed here is renamed for all. Fields are written in declaration order; a field marked
 * {@code ALWAYS} is written as null when it has no value (the file has always said so), the others
 * are left out. Unknown fields are ignored when reading (an older or newer file still reads).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"tool", "version", "contract", "parameters", "files", "totals", "dataset", "bailian_sessions",
    "findings", "outputs", "skipped_files"})
public record IngestSummary(
    String tool,
    String version,
    String contract,
    Parameters parameters,
    List<FileEntry> files,
    Totals totals,
    DatasetPart dataset,
    /** Only when a Bailian trace was read: how its parent chains became sessions. */
    @JsonProperty("bailian_sessions") BailianSessions bailianSessions,
    List<String> findings,
    Outputs outputs,
    /** Only when documentation files of the input folders were left out. */
    @JsonProperty("skipped_files") List<SkippedFile> skippedFiles) {

  /** The command's parameters: the format asked for ("auto" or a format id), the block size override (null: the trace's own). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"format", "block_size", "max_line_bytes"})
  public record Parameters(
      String format,
      @JsonProperty("block_size") @JsonInclude(JsonInclude.Include.ALWAYS) Integer blockSize,
      @JsonProperty("max_line_bytes") @JsonInclude(JsonInclude.Include.NON_NULL) Long maxLineBytes) {}

  /** One input file's accounting: read = accepted + quarantined. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"path", "format", "sessions", "read", "accepted", "quarantined", "quarantined_by_reason",
      "blank_lines", "out_of_order", "block_count_mismatch", "block_sizes", "first_arrival_s", "last_arrival_s", "findings"})
  public record FileEntry(
      String path,
      String format,
      /** How the format gives sessions (given, derived, absent); left out for a format the ingest does not know. */
      String sessions,
      long read,
      long accepted,
      long quarantined,
      @JsonProperty("quarantined_by_reason") Map<String, Long> quarantinedByReason,
      @JsonProperty("blank_lines") long blankLines,
      /** Null for Parquet input (no file order to check). */
      @JsonProperty("out_of_order") @JsonInclude(JsonInclude.Include.ALWAYS) Long outOfOrder,
      @JsonProperty("block_count_mismatch") long blockCountMismatch,
      @JsonProperty("block_sizes") List<Integer> blockSizes,
      /** Only when the file has accepted records. */
      @JsonProperty("first_arrival_s") Double firstArrivalS,
      @JsonProperty("last_arrival_s") Double lastArrivalS,
      List<String> findings) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"files", "read", "accepted", "quarantined", "quarantined_by_reason", "blank_lines", "out_of_order",
      "files_overlapping_earlier_files", "sorted_on_output"})
  public record Totals(
      int files,
      long read,
      long accepted,
      long quarantined,
      @JsonProperty("quarantined_by_reason") Map<String, Long> quarantinedByReason,
      @JsonProperty("blank_lines") long blankLines,
      @JsonProperty("out_of_order") long outOfOrder,
      @JsonProperty("files_overlapping_earlier_files") long filesOverlappingEarlierFiles,
      @JsonProperty("sorted_on_output") boolean sortedOnOutput) {}

  /** The canonical dataset written (trace-model section 1). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"requests", "sessions_mode", "sessions", "requests_with_session", "requests_with_turn",
      "requests_turn_0", "requests_with_blocks", "blocks", "block_count_mismatch", "input_tokens", "output_tokens",
      "first_arrival_s", "last_arrival_s", "span_s", "block_sizes", "time_origin"})
  public record DatasetPart(
      long requests,
      /** given, derived, absent or mixed (inferred, once sessions are inferred). */
      @JsonProperty("sessions_mode") String sessionsMode,
      /** Distinct sessions; null when no request has a session id. */
      @JsonInclude(JsonInclude.Include.ALWAYS) Long sessions,
      @JsonProperty("requests_with_session") long requestsWithSession,
      @JsonProperty("requests_with_turn") long requestsWithTurn,
      @JsonProperty("requests_turn_0") long requestsTurn0,
      /** Null when an older file does not say (then nothing is concluded from it). */
      @JsonProperty("requests_with_blocks") Long requestsWithBlocks,
      long blocks,
      @JsonProperty("block_count_mismatch") long blockCountMismatch,
      @JsonProperty("input_tokens") long inputTokens,
      @JsonProperty("output_tokens") long outputTokens,
      @JsonProperty("first_arrival_s") double firstArrivalS,
      @JsonProperty("last_arrival_s") double lastArrivalS,
      @JsonProperty("span_s") double spanS,
      @JsonProperty("block_sizes") List<Integer> blockSizes,
      /** Only when wall-clock timestamps were re-based. */
      @JsonProperty("time_origin") TimeOrigin timeOrigin) {

    public boolean hasSessions() {
      return sessions != null;
    }
  }

  @JsonPropertyOrder({"utc", "rule"})
  public record TimeOrigin(String utc, String rule) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"rule", "orphan_parents", "parent_not_earlier", "turns_shifted_by_minus_1", "pointer_jumping_rounds"})
  public record BailianSessions(
      String rule,
      @JsonProperty("orphan_parents") long orphanParents,
      @JsonProperty("parent_not_earlier") long parentNotEarlier,
      @JsonProperty("turns_shifted_by_minus_1") boolean turnsShiftedByMinus1,
      @JsonProperty("pointer_jumping_rounds") int pointerJumpingRounds) {}

  @JsonPropertyOrder({"trace", "quarantine"})
  public record Outputs(String trace, String quarantine) {}

  @JsonPropertyOrder({"path", "reason"})
  public record SkippedFile(String path, String reason) {}

  /** The same summary with more findings and the files left out (the job adds them after the build). */
  public IngestSummary withSkipped(List<SkippedFile> skipped, List<String> moreFindings) {
    List<String> f = new java.util.ArrayList<>(findings);
    f.addAll(moreFindings);
    return new IngestSummary(tool, version, contract, parameters, files, totals, dataset, bailianSessions, List.copyOf(f),
        outputs, skipped);
  }

  /** The JSON tree as written to the file. */
  public ObjectNode toJson() {
    return Json.MAPPER.valueToTree(this);
  }

  /** Reads a summary (from the file, or the copy characterization.json carries); {@code where} names it in an error. */
  public static IngestSummary read(JsonNode n, String where) {
    return ContractJson.read(n, IngestSummary.class, where, "an ingest summary");
  }
}
