package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * replay.json's {@code uncertainty} block (docs/replay.md, "Uncertainty"): how many bootstrap
 * replicates of the trace were replayed, what was resampled, how a gain's interval is computed, and
 * why there are none when there are none. Written and read through this record with the shared
 * mapper (fields in declaration order, {@code not_applicable} left out when there are replicates);
 * audit.json carries the same block, written from this record. Unknown fields are ignored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record UncertaintyBlock(
    /** --bootstrap B. */
    @JsonProperty(REPLICATES) Integer replicates,
    /** The replicate runs replayed. */
    @JsonProperty(SIMULATIONS) Integer simulations,
    @JsonProperty(RESAMPLED) String resampled,
    @JsonProperty(METHOD) String method,
    @JsonProperty(Metric.NOT_APPLICABLE) String notApplicable) {

  /** The block's name in replay.json and audit.json. */
  public static final String BLOCK = "uncertainty";
  public static final String REPLICATES = "replicates";
  public static final String SIMULATIONS = "simulations";
  public static final String RESAMPLED = "resampled";
  public static final String METHOD = "method";

  /** The block in replay.json (or audit.json); null when missing or not an object. */
  public static UncertaintyBlock of(JsonNode file) {
    return ContractJson.block(file, BLOCK, UncertaintyBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static UncertaintyBlock read(JsonNode u, String where) {
    return ContractJson.read(u, UncertaintyBlock.class, where, "an uncertainty block");
  }
}
