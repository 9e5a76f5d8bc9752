package io.smetric.audit.replay.policy;

/** A routing policy: picks the instance for the request the view describes. One instance per simulation. */
public interface Policy {
  int route(ClusterView v);

  /**
   * Whether {@link #route} reads the local hit of every instance (for most requests): the
   * simulator then answers all of them with one walk of its holder index from the first probe on,
   * instead of asking the first instance's tier on its own (the answers are the same).
   */
  default boolean probesEveryInstance() {
    return false;
  }
}
