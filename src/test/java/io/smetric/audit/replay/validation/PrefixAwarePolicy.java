package io.smetric.audit.replay.validation;

import io.smetric.audit.replay.policy.ClusterView;
import io.smetric.audit.replay.policy.Policy;
import io.smetric.audit.replay.policy.Tiebreak;
import java.util.SplittableRandom;

/**
 * The prefix-aware router of zxuhan/llm-router (internal/router/prefixaware.go): the instance
 * with the longest prefix match, ties by fewer requests in flight, then at random; below
 * {@code minMatchBlocks} the least-loaded instance; when the best is at {@code saturation} or more
 * in flight, the next-best match still above the threshold and below saturation, else the
 * least-loaded one. Deviation: the router matches against its own tree of the prompts it
 * dispatched (known at dispatch), the replay against the instance's prefix cache (known once the
 * prefill is done). Test-side: it serves the router validation only.
 */
final class PrefixAwarePolicy implements Policy {
  private final int minMatchBlocks;
  private final int saturation;
  private final SplittableRandom rnd;
  private final Tiebreak tie = new Tiebreak();
  private long[] scratch = new long[0];
  private int[] order = new int[0];

  PrefixAwarePolicy(int minMatchBlocks, int saturation, long seed) {
    this.minMatchBlocks = minMatchBlocks;
    this.saturation = saturation;
    this.rnd = new SplittableRandom(seed);
  }

  @Override
  public boolean probesEveryInstance() {
    return true;
  }

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (order.length != n) {
      order = new int[n];
      scratch = new long[n];
    }
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) { // shuffle, then a stable sort: ties stay in random order
      int j = rnd.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int i = 1; i < n; i++) { // insertion sort by (match desc, in flight asc), stable
      int x = order[i];
      int k = i - 1;
      while (k >= 0 && before(v, x, order[k])) {
        order[k + 1] = order[k];
        k--;
      }
      order[k + 1] = x;
    }
    int best = order[0];
    if (v.localHitBlocks(best) < minMatchBlocks) return tie.leastLoad(v, scratch);
    if (saturation > 0 && v.requests(best) >= saturation) {
      for (int k = 1; k < n; k++) {
        int c = order[k];
        if (v.localHitBlocks(c) < minMatchBlocks) break;
        if (v.requests(c) < saturation) return c;
      }
      return tie.leastLoad(v, scratch);
    }
    return best;
  }

  private static boolean before(ClusterView v, int a, int b) {
    int ma = v.localHitBlocks(a);
    int mb = v.localHitBlocks(b);
    if (ma != mb) return ma > mb;
    return v.requests(a) < v.requests(b);
  }
}
