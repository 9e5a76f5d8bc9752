package io.smetric.audit.replay.validation;

import io.smetric.audit.replay.policy.ClusterView;
import io.smetric.audit.replay.policy.Policy;
import io.smetric.audit.replay.policy.Tiebreak;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The prefix-aware router of zxuhan/llm-router (internal/router/prefixaware.go): the instance
 * with the longest prefix match, ties by fewer requests in flight, then at random; below
 * {@code minMatchBlocks} the least-loaded instance; when the best is at {@code saturation} or more
 * in flight, the next-best match still above the threshold and below saturation, else the
 * least-loaded one. The match is against the router's own record of the prompts it dispatched to
 * each instance (its per-backend prefix tree, updated at dispatch, not against the engine's cache,
 * which holds a prompt only once its prefill is done): the policy knows the trace and finds the
 * request by its session and turn. Blocks stand for the router's 32-character chunks; its tree's
 * budget (65,536 chunks a backend) is never reached here, so nothing is forgotten. Test-side: it
 * serves the router validation only.
 */
final class PrefixAwarePolicy implements Policy {
  private final int minMatchBlocks;
  private final int saturation;
  private final SplittableRandom rnd;
  private final Tiebreak tie = new Tiebreak();
  private long[] scratch = new long[0];
  private int[] order = new int[0];
  private int[] match = new int[0];
  private final ReplayTrace trace;
  private final Map<Long, Integer> byTurn = new HashMap<>();
  private Set<Integer>[] dispatched;

  PrefixAwarePolicy(int minMatchBlocks, int saturation, long seed, ReplayTrace trace) {
    this.minMatchBlocks = minMatchBlocks;
    this.saturation = saturation;
    this.rnd = new SplittableRandom(seed);
    this.trace = trace;
    for (int r = 0; r < trace.n; r++) {
      if (byTurn.put(key(trace.sessionHash[trace.session[r]], trace.turn[r]), r) != null) {
        throw new IllegalArgumentException("two requests share session and turn: " + trace.requestIds[r]);
      }
    }
  }

  private static long key(long sessionHash, int turn) {
    return sessionHash * 31 + turn;
  }

  @Override
  public int route(ClusterView v) {
    int n = v.instances();
    if (order.length != n) {
      order = new int[n];
      scratch = new long[n];
      match = new int[n];
      @SuppressWarnings("unchecked")
      Set<Integer>[] d = new Set[n];
      for (int i = 0; i < n; i++) d[i] = new HashSet<>();
      dispatched = d;
    }
    Integer req = byTurn.get(key(v.sessionHash(), v.turn()));
    if (req == null) throw new IllegalStateException("request not in the trace");
    int r = req;
    for (int i = 0; i < n; i++) match[i] = matchBlocks(r, dispatched[i]);
    int chosen = choose(v, n);
    for (int k = trace.pathOff[r]; k < trace.pathOff[r + 1]; k++) dispatched[chosen].add(trace.pathNodes[k]);
    return chosen;
  }

  /** Whole segments of r's path the instance's record holds, from the root (segments split at every divergence). */
  private int matchBlocks(int r, Set<Integer> held) {
    int blocks = 0;
    for (int k = trace.pathOff[r]; k < trace.pathOff[r + 1]; k++) {
      int seg = trace.pathNodes[k];
      if (!held.contains(seg)) break;
      blocks += trace.segLen[seg];
    }
    return blocks;
  }

  private int choose(ClusterView v, int n) {
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
    if (match[best] < minMatchBlocks) return tie.leastLoad(v, scratch);
    if (saturation > 0 && v.requests(best) >= saturation) {
      for (int k = 1; k < n; k++) {
        int c = order[k];
        if (match[c] < minMatchBlocks) break;
        if (v.requests(c) < saturation) return c;
      }
      return tie.leastLoad(v, scratch);
    }
    return best;
  }

  private boolean before(ClusterView v, int a, int b) {
    int ma = match[a];
    int mb = match[b];
    if (ma != mb) return ma > mb;
    return v.requests(a) < v.requests(b);
  }
}
