package io.smetric.audit.replay.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.GlobalTierBlock;
import io.smetric.audit.replay.ReplaySettings;

/**
 * The global tier's read limits of a replay, as {@link GlobalLinks} applies them (replay.json
 * {@code global_tier}, issue 26 item 5): so the report can set every router's peak read rate
 * beside the limit it could have hit. The cluster's read ceiling is the smallest of the three
 * limits on all instances reading at once: the instances' own paths together, the node NICs for
 * the remote share of the bytes, and the tier's aggregate. Keys: {@link GlobalTierBlock}.
 */
public final class GlobalTierLimits {
  private GlobalTierLimits() {}

  public static ObjectNode describe(ReplaySettings s) {
    ObjectNode o = Json.object();
    int nodes = s.nodes();
    double perInstance = s.profile.globalReadGBps;
    double remoteShare = nodes <= 1 ? 0 : (nodes - 1) / (double) nodes;
    double agg = s.aggregateGBps();
    o.put(GlobalTierBlock.PER_INSTANCE_READ_GBPS, perInstance);
    o.put(GlobalTierBlock.INSTANCES, s.instances);
    o.put(GlobalTierBlock.INSTANCES_PER_NODE, s.instancesPerNode);
    o.put(GlobalTierBlock.NODES, nodes);
    o.put(GlobalTierBlock.INSTANCES_READ_GBPS, perInstance * s.instances);
    o.put(GlobalTierBlock.NODE_NIC_GBPS, s.nodeNicGBps);
    o.put(GlobalTierBlock.REMOTE_SHARE, remoteShare);
    // all nodes' NICs carrying their remote share at once: nodes x NIC / remote share (no limit on one node)
    double nicCeiling = remoteShare > 0 ? nodes * s.nodeNicGBps / remoteShare : Double.POSITIVE_INFINITY;
    putGbps(o, GlobalTierBlock.NICS_READ_GBPS, nicCeiling);
    putGbps(o, GlobalTierBlock.AGGREGATE_GBPS, agg);
    o.put(GlobalTierBlock.AGGREGATE_SOURCE, s.globalAggregateGBps != null
        ? "--global-aggregate-gbps (settings globalAggregateGBps)"
        : Double.isInfinite(s.profile.globalAggregateGBpsPerNode)
            ? "none: the profile states no globalAggregateGBpsPerNode"
            : "the profile's globalAggregateGBpsPerNode " + io.smetric.audit.common.Numbers.exact(
                s.profile.globalAggregateGBpsPerNode) + " GB/s x " + nodes + " node(s)");
    putGbps(o, GlobalTierBlock.READ_CEILING_GBPS, Math.min(perInstance * s.instances, Math.min(nicCeiling, agg)));
    return o;
  }

  /** Infinity as JSON null ("no limit"): JSON has no infinity. */
  private static void putGbps(ObjectNode o, String k, double v) {
    if (Double.isInfinite(v)) o.putNull(k);
    else o.put(k, v);
  }
}
