package io.smetric.audit.infer;

import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongSet;
import it.unimi.dsi.fastutil.objects.ObjectIterator;

/**
 * Pass 1 of the inference: for each request, in (arrival, seq) order, its parent by prefix
 * continuation. The rule (docs/session-inference.md has the why of each step):
 *
 * <ol>
 *   <li>L = the longest block prefix r shares with an <em>eligible</em> earlier request: one that
 *       arrived strictly earlier (a response takes time, so a request that arrived at the same
 *       instant, such as a sibling sub-agent, cannot be the parent) and at most window seconds
 *       earlier.
 *   <li>T = r's template depth: 1 + the last index i whose block c[i] is a template branch point,
 *       a block followed by at least {@code templateFanout} distinct full blocks over the whole
 *       trace (see {@link TemplateBlocks}: a shared system prompt branches into every session; a
 *       session's own history branches only at its few forks).
 *   <li>L &lt;= T: r shares nothing but template blocks with any earlier request: a new root
 *       session (this is also what a compacted prompt looks like).
 *   <li>P = the latest eligible request whose full-block prefix (floor(in/B) blocks, the partial
 *       last block never survives into a follow-up) is a prefix of r, r longer than P, with the
 *       deepest such prefix beyond T. If it ends exactly at L, r <em>extends</em> P: link to P.
 *   <li>Otherwise r shares more with some request than any whole earlier prompt: it branched off
 *       inside a prompt, as a sub-agent that inherits part of the spawning request's history.
 *       Link to the latest eligible request holding block L-1 (kind fork).
 * </ol>
 *
 * It also computes the naive baseline: parent = the latest earlier request with the longest
 * shared prefix (at least one block), nothing else.
 *
 * <p>Memory: one entry per distinct chained block id seen in the last window; entries not seen
 * for a window are swept every quarter window. Not thread-safe; one instance per ordered stream.
 */
public final class PrefixLinker {
  public static final byte NONE = 0;
  public static final byte EXTENDS = 1;
  public static final byte FORK = 2;

  /** Per chained block id: who holds it, whose full prefix ends at it, how often it branched. */
  private static final class Block {
    long holder = -1;
    double holderT;
    /** Latest holder that arrived strictly before {@link #holderT}. */
    long prevHolder = -1;
    double prevHolderT;
    long end = -1;
    double endT;
    int endIn;
    /** The request whose full prefix first ended here, if {@link #end} extended it without adding a full block. */
    long endOrigin = -1;
    int endOut;
    int prevEndOut;
    long prevEnd = -1;
    double prevEndT;
    int prevEndIn;
    long prevEndOrigin = -1;
    double lastT;
  }

  /** The decision for one request; the instance is reused by {@link #link}. */
  public static final class Link {
    public long parent;
    public byte kind;
    /** L: longest prefix shared with an eligible earlier request, in blocks. */
    public int shared;
    /** T: template depth in blocks. */
    public int template;
    public long naiveParent;
    /**
     * When the parent P extended an earlier request Y without adding a full block (a sub-agent
     * whose instruction fits in Y's partial last block), r extends Y just as well: Y, else -1.
     * Pass 2 gives Y the one such child whose subtree lives longest (Y's session resumes last).
     */
    public long alt;
    /** This request's own group origin Y (as above) if it extended Y without adding a full block, else -1. */
    public long origin;
  }

  private final double window;
  private final LongSet templates;
  private final Long2ObjectOpenHashMap<Block> map = new Long2ObjectOpenHashMap<>();
  private Block[] buf = new Block[64];
  private double nextSweep = Double.NEGATIVE_INFINITY;
  private final Link out = new Link();
  private long maxEntries;

  /** @param templates template branch points ({@link TemplateBlocks}) */
  public PrefixLinker(InferenceOptions o, LongSet templates) {
    this.window = o.windowS();
    this.templates = templates;
  }

  /** Largest number of block entries held at once (the memory bound actually reached). */
  public long maxEntries() {
    return maxEntries;
  }

  /**
   * Decides r's parent and then adds r to the index. Requests must come in (arrival, seq) order.
   *
   * @param blocks chained block ids; only the first {@code min(length, ceil(in/B))} are used
   */
  public Link link(long seq, double t, int inputTokens, int outputTokens, int blockSize, long[] blocks) {
    if (t >= nextSweep) sweep(t);
    int n = blocks == null ? 0 : Math.min(blocks.length, (int) ((inputTokens + (long) blockSize - 1) / blockSize));
    int full = Math.min(n, inputTokens / blockSize);
    if (buf.length < n) buf = new Block[Math.max(n, buf.length * 2)];
    double horizon = t - window;

    int shared = 0, naive = 0, template = 0;
    for (int i = 0; i < n; i++) {
      Block e = map.get(blocks[i]);
      buf[i] = e;
      if (e == null) break; // prefix closure: no later block can be present either
      naive = i + 1;
      if (eligibleHolder(e, t, horizon) >= 0) shared = i + 1;
      if (templates.contains(blocks[i])) template = i + 1;
    }
    for (int i = naive; i < n; i++) {
      buf[i] = map.get(blocks[i]); // normally null; robust to collisions
      if (templates.contains(blocks[i])) template = i + 1;
    }

    Link l = out;
    l.shared = shared;
    l.template = template;
    l.naiveParent = naive > 0 ? buf[naive - 1].holder : -1;
    l.parent = -1;
    l.kind = NONE;
    l.alt = -1;
    l.origin = -1;
    if (shared > template) {
      long p = -1;
      int depth = 0;
      for (int i = shared - 1; i >= template && p < 0; i--) {
        p = eligibleEnd(buf[i], t, horizon, inputTokens);
        depth = i + 1;
      }
      if (p >= 0 && depth == shared) {
        l.parent = p;
        l.kind = EXTENDS;
        Block e = buf[depth - 1];
        long pOrigin = p == e.end ? e.endOrigin : e.prevEndOrigin;
        long pRoom = p == e.end ? (long) e.endIn + e.endOut : (long) e.prevEndIn + e.prevEndOut;
        // a follow-up's prompt holds its parent's prompt and response: only when r has no room
        // for p's response may r belong to the group's origin instead of p
        l.alt = pOrigin >= 0 && pOrigin != p && inputTokens < pRoom ? pOrigin : -1;
        // r ends where p ends: r joins p's group (its origin is p's origin, or p itself)
        if (depth == full) l.origin = pOrigin >= 0 ? pOrigin : p;
      } else {
        l.parent = eligibleHolder(buf[shared - 1], t, horizon);
        l.kind = FORK;
      }
    }

    // add r to the index
    for (int i = 0; i < n; i++) {
      Block e = buf[i];
      if (e == null) {
        e = new Block();
        map.put(blocks[i], e);
        buf[i] = e;
      }
      if (e.holder < 0 || t > e.holderT) {
        e.prevHolder = e.holder;
        e.prevHolderT = e.holderT;
      }
      e.holder = seq;
      e.holderT = t;
      e.lastT = t;
    }
    if (full > 0) {
      Block e = buf[full - 1];
      if (e.end >= 0 && t > e.endT) {
        e.prevEnd = e.end;
        e.prevEndT = e.endT;
        e.prevEndIn = e.endIn;
        e.prevEndOrigin = e.endOrigin;
        e.prevEndOut = e.endOut;
      }
      e.end = seq;
      e.endT = t;
      e.endIn = inputTokens;
      e.endOrigin = l.origin;
      e.endOut = outputTokens;
    }
    java.util.Arrays.fill(buf, 0, n, null);
    if (map.size() > maxEntries) maxEntries = map.size();
    return l;
  }

  private static long eligibleHolder(Block e, double t, double horizon) {
    if (e.holder >= 0 && e.holderT < t) return e.holderT >= horizon ? e.holder : -1;
    if (e.prevHolder >= 0 && e.prevHolderT >= horizon) return e.prevHolder;
    return -1;
  }

  private static long eligibleEnd(Block e, double t, double horizon, int in) {
    if (e.end < 0) return -1;
    if (e.endT < t) return e.endT >= horizon && e.endIn < in ? e.end : -1;
    if (e.prevEnd >= 0 && e.prevEndT >= horizon && e.prevEndIn < in) return e.prevEnd;
    return -1;
  }

  private void sweep(double t) {
    double horizon = t - window;
    for (ObjectIterator<Long2ObjectMap.Entry<Block>> it = map.long2ObjectEntrySet().fastIterator(); it.hasNext(); ) {
      if (it.next().getValue().lastT < horizon) it.remove();
    }
    nextSweep = t + window / 4;
  }
}
