package io.smetric.audit.replay.policy;

/**
 * Routes each request to the instance its trace recorded as having served it (trace-model v1.3,
 * {@code served_instance}, names mapped to instance indices by the caller): the replay of the
 * user's own cluster that {@code validate TRACE} compares with the measured latencies. A request
 * without a recorded instance (index -1) goes to the least-loaded instance, and the caller counts
 * those, so that the fallback never passes for a recorded decision.
 */
public final class AsRecordedPolicy implements Policy {
  private final int[] instanceOf;
  private final LeastLoadPolicy fallback = new LeastLoadPolicy();

  /** @param instanceOf per request in replay order: its recorded instance, or -1 */
  public AsRecordedPolicy(int[] instanceOf) {
    this.instanceOf = instanceOf;
  }

  @Override
  public int route(ClusterView v) {
    int r = v.request();
    if (r < 0) throw new IllegalStateException("as-recorded needs the request's index (a simulator view)");
    int i = instanceOf[r];
    return i >= 0 ? i : fallback.route(v);
  }
}
