package io.smetric.audit.infer;

import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;

/**
 * Pass 2, run over the links in <em>reverse</em> (arrival, seq) order: for each request, which of
 * its "extends" children continues its session. A request extended by several children has
 * spawned sub-agents that inherited its whole prompt, or a sub-agent cut the history exactly at
 * its boundary; either way exactly one child is the session's next turn. We take the child whose
 * subtree (the child and everything that transitively extends it) has the latest arrival: the
 * spawning session waits for its sub-agents and resumes after they return, so its own line
 * outlives theirs. Ties go to the later child.
 *
 * <p>Children are seen before their parent, so a parent's best child is known when the parent is
 * reached; the pending map holds only parents whose children have been seen and who have not
 * been reached yet, which is bounded by the links that span the current time (at most a window).
 */
public final class ContinuationChooser {
  private static final class Best {
    double subtreeLast;
    long child;
  }

  private final Long2ObjectOpenHashMap<Best> pending = new Long2ObjectOpenHashMap<>();
  private long maxPending;
  private double subtreeLast;

  /**
   * Feeds one request (in reverse order); returns the seq of its continuing child, or -1. After
   * the call {@link #subtreeLast()} is its subtree's last arrival.
   */
  public long accept(long seq, double arrival, long parent, byte kind) {
    Best b = pending.remove(seq);
    double last = arrival;
    long cont = -1;
    if (b != null) {
      last = Math.max(arrival, b.subtreeLast);
      cont = b.child;
    }
    if (kind == PrefixLinker.EXTENDS && parent >= 0) {
      Best pb = pending.get(parent);
      if (pb == null) {
        pb = new Best();
        pb.subtreeLast = last;
        pb.child = seq;
        pending.put(parent, pb);
        if (pending.size() > maxPending) maxPending = pending.size();
      } else if (last > pb.subtreeLast) { // strictly: on a tie the later child (seen first) stays
        pb.subtreeLast = last;
        pb.child = seq;
      }
    }
    subtreeLast = last;
    return cont;
  }

  public double subtreeLast() {
    return subtreeLast;
  }

  public long maxPending() {
    return maxPending;
  }
}
