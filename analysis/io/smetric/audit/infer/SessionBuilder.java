package io.smetric.audit.infer;

import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.objects.ObjectIterator;

/**
 * Pass 3, forward in (arrival, seq) order: sessions and turns from the links and the continuation
 * choices. A request with no parent starts a session (turn 0). The chosen continuation of its
 * parent joins the parent's session (turn + 1). Every other child starts a new session whose
 * turn-0 request names a parent: a fork. A fork keeps the parent pass 1 chose (the request
 * whose prompt it extends, or inside whose prompt it branched), with one exception: a fork found
 * as an "extends" child of P after P's session had gone on by two or more requests is moved to the
 * latest request of that session before it. A sub-agent starts right after the response that
 * spawns it; P's session cannot have completed two more requests in between, so the fork
 * inherited a cut of the history that happens to end where P's prompt ended, and was spawned by
 * the session's latest request. (An earlier version moved every such fork to the latest request,
 * a guess that the session had waited for it, wrong whenever a spawner goes on without waiting.)
 * The naive baseline's sessions are the trees of its parent links.
 *
 * <p>Memory: one entry per request and per session seen in the last two windows.
 */
public final class SessionBuilder {
  public static final byte ROOT = 0;
  public static final byte CONTINUATION = 1;
  /** Turn 0 of a sub-agent session, found by branching inside the parent's prompt. */
  public static final byte FORK_BRANCH = 2;
  /** Turn 0 of a sub-agent session that extended a request whose session went on without it. */
  public static final byte FORK_EXTENDS = 3;

  private static final class Node {
    long root;
    int turn;
    long contChild;
    long adoptedChild;
    long naiveRoot;
    double t;
  }

  /** The result for one request; reused. */
  public static final class Assignment {
    public long parent;
    public long root;
    public int turn;
    public byte kind;
    public long naiveRoot;
  }

  /** The latest request of a session and the one before it in time (to exclude a same-instant head). */
  private static final class Head {
    long head;
    double headT;
    long prev = -1;
    double prevT;
  }

  private final Long2ObjectOpenHashMap<Head> heads = new Long2ObjectOpenHashMap<>();
  private final double keep;
  private final Long2ObjectOpenHashMap<Node> nodes = new Long2ObjectOpenHashMap<>();
  private final Assignment out = new Assignment();
  private double nextSweep = Double.NEGATIVE_INFINITY;
  private long maxEntries;

  public SessionBuilder(InferenceOptions o) {
    this.keep = 2 * o.windowS();
  }

  /**
   * @param alt {@link PrefixLinker.Link#alt}: r may belong to this request instead of parent
   * @param adoptedChild the child this request adopted from its equal-prefix group (pass 2), or -1
   */
  public Assignment accept(long seq, double t, long parent, byte kind, long contChild, long adoptedChild, long alt,
      long naiveParent) {
    if (t >= nextSweep) sweep(t);
    Assignment a = out;
    if (alt >= 0) {
      Node an = nodes.get(alt);
      if (an != null && an.adoptedChild == seq) parent = alt;
    }
    Node pn = parent >= 0 ? nodes.get(parent) : null;
    if (parent < 0 || pn == null) {
      a.parent = parent; // pn == null only if the parent left the kept horizon: keep the link, new session
      a.root = seq;
      a.turn = 0;
      a.kind = parent < 0 ? ROOT : FORK_BRANCH;
    } else if (kind == PrefixLinker.EXTENDS && pn.contChild == seq) {
      a.parent = parent;
      a.root = pn.root;
      a.turn = pn.turn + 1;
      a.kind = CONTINUATION;
    } else if (kind == PrefixLinker.EXTENDS) {
      a.parent = parent;
      Head h = heads.get(pn.root);
      long head = h == null ? -1 : h.headT < t ? h.head : h.prev;
      Node hn = head >= 0 ? nodes.get(head) : null;
      if (hn != null && hn.turn - pn.turn >= 2) a.parent = head;
      a.root = seq;
      a.turn = 0;
      a.kind = FORK_EXTENDS;
    } else {
      a.parent = parent;
      a.root = seq;
      a.turn = 0;
      a.kind = FORK_BRANCH;
    }
    Node naiveParentNode = naiveParent >= 0 ? nodes.get(naiveParent) : null;
    a.naiveRoot = naiveParentNode != null ? naiveParentNode.naiveRoot : seq;

    Node me = new Node();
    me.root = a.root;
    me.turn = a.turn;
    me.contChild = contChild;
    me.adoptedChild = adoptedChild;
    me.naiveRoot = a.naiveRoot;
    me.t = t;
    nodes.put(seq, me);
    Head h = heads.get(a.root);
    if (h == null) {
      h = new Head();
      heads.put(a.root, h);
    } else if (t > h.headT) {
      h.prev = h.head;
      h.prevT = h.headT;
    }
    h.head = seq;
    h.headT = t;
    long size = nodes.size() + heads.size();
    if (size > maxEntries) maxEntries = size;
    return a;
  }

  public long maxEntries() {
    return maxEntries;
  }

  private void sweep(double t) {
    double horizon = t - keep;
    for (ObjectIterator<Long2ObjectMap.Entry<Node>> it = nodes.long2ObjectEntrySet().fastIterator(); it.hasNext(); ) {
      if (it.next().getValue().t < horizon) it.remove();
    }
    for (ObjectIterator<Long2ObjectMap.Entry<Head>> it = heads.long2ObjectEntrySet().fastIterator(); it.hasNext(); ) {
      if (it.next().getValue().headT < horizon) it.remove();
    }
    nextSweep = t + keep / 8;
  }
}
