package io.smetric.audit.replay.validation;

import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.replay.policy.ClusterView;
import io.smetric.audit.replay.policy.Policy;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Consistent hashing with bounded loads, as KubeAI's PrefixHash strategy runs it
 * (kubeai-project/kubeai internal/loadbalancer/balance_chwbl.go): {@code replication} points per
 * instance on a ring; a request starts at the first point clockwise of its key's hash and takes
 * the first instance whose requests in flight are at most {@code loadFactor x (all in flight + 1)
 * / instances}; when none qualifies, the first one it looked at. KubeAI's key is the first 100
 * characters of the first user message: one key per conversation in the benchmark replayed here.
 * The key is the session id, or, when the sessions stand for client slots (the concurrency cap,
 * {@link KubeaiWorkload}), the request's conversation, found by its session and turn. Test-side: it
 * serves the router validation only and is not a policy of the audit.
 */
final class BoundedLoadHashPolicy implements Policy {
  private final int replication;
  private final double loadFactor;
  private long[] ring;
  private int[] owner;

  private final Map<Long, Long> keyByTurn;

  /** Keyed on the session id. */
  BoundedLoadHashPolicy(int replication, double loadFactor) {
    this.replication = replication;
    this.loadFactor = loadFactor;
    this.keyByTurn = null;
  }

  /** Keyed on {@code conversation[r]} of the request the view describes. */
  BoundedLoadHashPolicy(int replication, double loadFactor, ReplayTrace trace, int[] conversation) {
    this.replication = replication;
    this.loadFactor = loadFactor;
    this.keyByTurn = new HashMap<>();
    for (int r = 0; r < trace.n; r++) {
      long k = trace.sessionHash[trace.session[r]] * 31 + trace.turn[r];
      if (keyByTurn.put(k, BlockChain.fmix64(conversation[r] + 1L)) != null) {
        throw new IllegalArgumentException("two requests share session and turn: " + trace.requestIds[r]);
      }
    }
  }

  private void build(int n) {
    long[][] pts = new long[n * replication][];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < replication; k++) {
        pts[i * replication + k] = new long[] {BlockChain.fmix64(BlockChain.mix64(i + 1, k)), i};
      }
    }
    Arrays.sort(pts, (a, b) -> a[0] != b[0] ? Long.compareUnsigned(a[0], b[0]) : Long.compare(a[1], b[1]));
    ring = new long[pts.length];
    owner = new int[pts.length];
    for (int j = 0; j < pts.length; j++) {
      ring[j] = pts[j][0];
      owner[j] = (int) pts[j][1];
    }
  }

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (ring == null || ring.length != n * replication) build(n);
    long total = 0;
    for (int i = 0; i < n; i++) total += v.requests(i);
    long h = keyByTurn != null ? keyByTurn.get(v.sessionHash() * 31 + v.turn()) : v.hasSession() ? v.sessionHash() : 0L;
    int lo = 0;
    int hi = ring.length;
    while (lo < hi) {
      int m = (lo + hi) >>> 1;
      if (Long.compareUnsigned(ring[m], h) < 0) lo = m + 1;
      else hi = m;
    }
    int start = lo == ring.length ? 0 : lo;
    double threshold = (total + 1) / (double) n * loadFactor;
    if (total == 0) return owner[start];
    for (int k = 0; k < ring.length; k++) {
      int i = owner[(start + k) % ring.length];
      if (v.requests(i) <= threshold) return i;
    }
    return owner[start];
  }
}
