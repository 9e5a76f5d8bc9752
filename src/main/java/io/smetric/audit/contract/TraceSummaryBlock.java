package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * replay.json's {@code trace_summary} block (docs/replay.md): what the replayed trace held. The
 * replay's writer builds it with these key constants; the verdict's session-tree precondition
 * reads it through this record. Unknown fields are ignored; a count a file lacks is null.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TraceSummaryBlock(
    @JsonProperty(REQUESTS) Long requests,
    @JsonProperty(SESSIONS) Long sessions,
    /** Root sessions with their forks: the unit the bootstrap resamples. */
    @JsonProperty(SESSION_TREES) Long sessionTrees,
    @JsonProperty(BLOCK_SIZE) Integer blockSize,
    @JsonProperty(SEGMENTS) Long segments,
    @JsonProperty(BLOCKS_REFERENCED) Long blocksReferenced,
    @JsonProperty(BLOCK_COUNT_MISMATCHES) Long blockCountMismatches,
    @JsonProperty(HAS_BLOCKS) Boolean hasBlocks,
    @JsonProperty(HAS_SESSIONS) Boolean hasSessions,
    @JsonProperty(HAS_TURNS) Boolean hasTurns) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "trace_summary";
  public static final String REQUESTS = "requests";
  public static final String SESSIONS = "sessions";
  public static final String SESSION_TREES = "session_trees";
  public static final String BLOCK_SIZE = "block_size";
  public static final String SEGMENTS = "segments";
  public static final String BLOCKS_REFERENCED = "blocks_referenced";
  public static final String BLOCK_COUNT_MISMATCHES = "block_count_mismatches";
  public static final String HAS_BLOCKS = "has_blocks";
  public static final String HAS_SESSIONS = "has_sessions";
  public static final String HAS_TURNS = "has_turns";

  /** The block in replay.json; null when the file or its block is missing or not an object. */
  public static TraceSummaryBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, TraceSummaryBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static TraceSummaryBlock read(JsonNode b, String where) {
    return ContractJson.read(b, TraceSummaryBlock.class, where, "a trace summary");
  }
}
