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
 * <p>Equal-prefix groups: when sub-agents X extended a request Y without adding a full block, a
 * later request that extends "X" extends Y just as well ({@link PrefixLinker.Link#alt}). Of the
 * requests that could belong to Y this way, Y <em>adopts</em> the one whose subtree lives longest
 * (Y's session resumes last); the others stay with X. The decision is made when the first group
 * member is reached, so X's own choice can leave the adopted child out.
 *
 * <p>Children are seen before their parent, so a parent's best child is known when the parent is
 * reached; the maps hold only parents whose children have been seen and who have not been
 * reached yet, which is bounded by the links that span the current time (at most a window).
 */
public final class ContinuationChooser {
  /** The best two candidates by subtree end (two, so that an adopted child can be left out). */
  private static final class Top2 {
    double sl1 = Double.NEGATIVE_INFINITY;
    long c1 = -1;
    long p1 = -1;
    double sl2 = Double.NEGATIVE_INFINITY;
    long c2 = -1;
    long p2 = -1;

    void offer(double sl, long child, long parent) {
      if (sl > sl1) { // strictly: on a tie the later child (seen first) stays
        sl2 = sl1;
        c2 = c1;
        p2 = p1;
        sl1 = sl;
        c1 = child;
        p1 = parent;
      } else if (sl > sl2) {
        sl2 = sl;
        c2 = child;
        p2 = parent;
      }
    }

    /** Drops the candidates that are children of {@code parent}: the parent dominates them. */
    void dropChildrenOf(long parent) {
      if (p2 == parent) {
        c2 = -1;
        p2 = -1;
        sl2 = Double.NEGATIVE_INFINITY;
      }
      if (p1 == parent) {
        c1 = c2;
        p1 = p2;
        sl1 = sl2;
        c2 = -1;
        p2 = -1;
        sl2 = Double.NEGATIVE_INFINITY;
      }
    }
  }

  private static final class Adopt {
    double sl;
    long child = -1;
  }

  private final Long2ObjectOpenHashMap<Top2> pending = new Long2ObjectOpenHashMap<>();
  private final Long2ObjectOpenHashMap<Top2> adoptCandidates = new Long2ObjectOpenHashMap<>();
  private final Long2ObjectOpenHashMap<Adopt> adopted = new Long2ObjectOpenHashMap<>();
  private long maxPending;
  private double subtreeLast;
  private long adoptedChild;

  /**
   * Feeds one request (in reverse order); returns the seq of its continuing child, or -1. After
   * the call {@link #subtreeLast()} is its subtree's last arrival and {@link #adoptedChild()} the
   * child it adopted from its equal-prefix group, or -1.
   *
   * @param alt {@link PrefixLinker.Link#alt}
   * @param origin {@link PrefixLinker.Link#origin}
   */
  public long accept(long seq, double arrival, long parent, byte kind, long alt, long origin) {
    long excluded = -1;
    // a group member that is itself a candidate of its group (a follow-up that added no full
    // block either) is not the place to decide: its own children stay with it if it is adopted
    boolean candidate = kind == PrefixLinker.EXTENDS && parent >= 0 && alt >= 0;
    if (origin >= 0 && !(candidate && alt == origin)) excluded = decide(origin).child;
    Top2 b = pending.remove(seq);
    double last = arrival;
    long cont = -1;
    double contSl = Double.NEGATIVE_INFINITY;
    if (b != null) {
      if (b.c1 >= 0 && b.c1 != excluded) {
        cont = b.c1;
        contSl = b.sl1;
      } else if (b.c2 >= 0 && b.c2 != excluded) {
        cont = b.c2;
        contSl = b.sl2;
      }
    }
    adoptedChild = -1;
    if (adopted.containsKey(seq) || adoptCandidates.containsKey(seq)) {
      Adopt a = decide(seq);
      adopted.remove(seq);
      adoptedChild = a.child;
      if (a.child >= 0 && (a.sl > contSl || cont < 0)) {
        cont = a.child;
        contSl = a.sl;
      }
    }
    if (cont >= 0) last = Math.max(arrival, contSl);
    if (b != null) { // forks (children not chosen) also belong to this request's subtree
      if (b.c1 >= 0 && b.c1 != excluded) last = Math.max(last, b.sl1);
      if (b.c2 >= 0 && b.c2 != excluded) last = Math.max(last, b.sl2);
    }
    if (kind == PrefixLinker.EXTENDS && parent >= 0) {
      pending.computeIfAbsent(parent, k -> new Top2()).offer(last, seq, parent);
      if (alt >= 0) {
        Top2 c = adoptCandidates.computeIfAbsent(alt, k -> new Top2());
        c.dropChildrenOf(seq);
        c.offer(last, seq, parent);
      }
      long size = pending.size() + adoptCandidates.size() + adopted.size();
      if (size > maxPending) maxPending = size;
    }
    subtreeLast = last;
    return cont;
  }

  /** Fixes (once) which candidate origin y adopts: the one whose subtree lives longest. */
  private Adopt decide(long y) {
    Adopt a = adopted.get(y);
    if (a != null) return a;
    a = new Adopt();
    Top2 c = adoptCandidates.remove(y);
    if (c != null) {
      a.child = c.c1;
      a.sl = c.sl1;
    }
    adopted.put(y, a);
    return a;
  }

  public double subtreeLast() {
    return subtreeLast;
  }

  public long adoptedChild() {
    return adoptedChild;
  }

  public long maxPending() {
    return maxPending;
  }
}
