package io.smetric.audit.replay.policy;

/** A routing policy: picks the instance for the request the view describes. One instance per simulation. */
public interface Policy {
  int route(ClusterView v);
}
