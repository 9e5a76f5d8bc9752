package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * replay.json's {@code global_tier} block: the global tier's read limits the replay applied
 * (GlobalTierLimits.describe writes it with these key constants; the page's global-tier traffic
 * section reads this record). Rates in GB/s; a limit that does not exist is written as null ("no
 * limit": JSON has no infinity). Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record GlobalTierBlock(
    @JsonProperty(PER_INSTANCE_READ_GBPS) Double perInstanceReadGbps,
    @JsonProperty(INSTANCES) Integer instances,
    @JsonProperty(INSTANCES_PER_NODE) Integer instancesPerNode,
    @JsonProperty(NODES) Integer nodes,
    /** All instances' read rates together. */
    @JsonProperty(INSTANCES_READ_GBPS) Double instancesReadGbps,
    @JsonProperty(NODE_NIC_GBPS) Double nodeNicGbps,
    /** The share of each fetch that crosses a node's NIC ((nodes - 1) / nodes). */
    @JsonProperty(REMOTE_SHARE) Double remoteShare,
    /** All NICs carrying their remote share at once; null: no NIC on the path (one node). */
    @JsonProperty(NICS_READ_GBPS) Double nicsReadGbps,
    /** The whole tier's limit; null: none. */
    @JsonProperty(AGGREGATE_GBPS) Double aggregateGbps,
    /** Where the aggregate limit came from, in words. */
    @JsonProperty(AGGREGATE_SOURCE) String aggregateSource,
    /** The smallest of the three ceilings; null: unbounded. */
    @JsonProperty(READ_CEILING_GBPS) Double readCeilingGbps) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "global_tier";
  public static final String PER_INSTANCE_READ_GBPS = "per_instance_read_gbps";
  public static final String INSTANCES = "instances";
  public static final String INSTANCES_PER_NODE = "instances_per_node";
  public static final String NODES = "nodes";
  public static final String INSTANCES_READ_GBPS = "instances_read_gbps";
  public static final String NODE_NIC_GBPS = "node_nic_gbps";
  public static final String REMOTE_SHARE = "remote_share";
  public static final String NICS_READ_GBPS = "nics_read_gbps";
  public static final String AGGREGATE_GBPS = "aggregate_gbps";
  public static final String AGGREGATE_SOURCE = "aggregate_source";
  public static final String READ_CEILING_GBPS = "read_ceiling_gbps";

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static GlobalTierBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, GlobalTierBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static GlobalTierBlock read(JsonNode n, String where) {
    return ContractJson.read(n, GlobalTierBlock.class, where, "a global-tier block");
  }
}
