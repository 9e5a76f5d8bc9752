package io.smetric.audit.replay.policy;

/** Round robin (Vidur's and BLIS's simplest scheduler): request k goes to instance k mod N. */
public final class RoundRobinPolicy implements Policy {
  private int next;

  @Override
  public int route(ClusterView v) {
    int i = next % v.instances();
    next = i + 1;
    return i;
  }
}
