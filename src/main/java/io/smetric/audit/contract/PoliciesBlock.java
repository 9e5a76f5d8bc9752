package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.List;

/**
 * replay.json's {@code policies} array (docs/replay.md): each replayed routing policy with the
 * source of its rule, its defaults and the trace fields it needs. The replay's writer builds it
 * with these key constants; {@link #of} reads it. Unknown fields are ignored.
 */
public final class PoliciesBlock {
  private PoliciesBlock() {}

  /** The block's name in replay.json. */
  public static final String BLOCK = "policies";

  /** One policy. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Policy(
      /** The --policies name. */
      @JsonProperty(NAME) String name,
      @JsonProperty(SOURCE) String source,
      @JsonProperty(DEFAULTS) String defaults,
      /** The trace fields it needs, as one sorted list in text ("[BLOCKS, SESSIONS]"). */
      @JsonProperty(NEEDS) String needs) {
    public static final String NAME = "name";
    public static final String SOURCE = "source";
    public static final String DEFAULTS = "defaults";
    public static final String NEEDS = "needs";
  }

  /** The policies in replay.json; empty when the file or its block is missing or not an array. */
  public static List<Policy> of(JsonNode replay) {
    JsonNode b = replay == null ? null : replay.path(BLOCK);
    return b == null || !b.isArray() ? List.of() : read(b, "replay.json " + BLOCK);
  }

  /** Reads the array; {@code where} names it in an error. */
  public static List<Policy> read(JsonNode a, String where) {
    return Arrays.asList(ContractJson.read(a, Policy[].class, where, "a policies array"));
  }
}
