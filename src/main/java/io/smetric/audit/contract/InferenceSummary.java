package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;

/**
 * inference-summary.json ({@link AuditLayout#INFERENCE_SUMMARY_FILE}, docs/session-inference.md):
 * what the session inference found. The inference writes it and the CLI and the report read it
 * through this one record; fields are written in declaration order, unknown ones are ignored when
 * reading.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"sessions_mode", "method", "parameters", "requests", "sessions", "root_sessions", "continuations",
    "fork_sessions", "roots_sharing_only_template_blocks", "template_branch_points", "max_index_entries", "trigger"})
public record InferenceSummary(
    /** Always "inferred": the ingest summary's sessions_mode once sessions are inferred. */
    @JsonProperty("sessions_mode") String sessionsMode,
    String method,
    Parameters parameters,
    long requests,
    long sessions,
    @JsonProperty("root_sessions") long rootSessions,
    long continuations,
    @JsonProperty("fork_sessions") Forks forkSessions,
    @JsonProperty("roots_sharing_only_template_blocks") long rootsSharingOnlyTemplateBlocks,
    @JsonProperty("template_branch_points") long templateBranchPoints,
    @JsonProperty("max_index_entries") long maxIndexEntries,
    /** What the inference says of the trigger: it cannot tell it from content. */
    String trigger) {

  public static final String SESSIONS_MODE = "inferred";
  public static final String TRIGGER = "unknown (not inferable from content)";

  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"window_s", "template_fanout"})
  public record Parameters(@JsonProperty("window_s") double windowS, @JsonProperty("template_fanout") int templateFanout) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({"total", "by_branching_inside_a_prompt", "by_extending_a_request_whose_session_went_on"})
  public record Forks(
      long total,
      @JsonProperty("by_branching_inside_a_prompt") long byBranchingInsideAPrompt,
      @JsonProperty("by_extending_a_request_whose_session_went_on") long byExtendingARequestWhoseSessionWentOn) {}

  /** The JSON tree as written to the file. */
  public ObjectNode toJson() {
    return Json.MAPPER.valueToTree(this);
  }

  /** Reads a summary; {@code where} names it in an error. */
  public static InferenceSummary read(JsonNode n, String where) {
    return ContractJson.read(n, InferenceSummary.class, where, "an inference summary");
  }
}
