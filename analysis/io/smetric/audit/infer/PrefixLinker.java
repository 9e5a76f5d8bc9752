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
 *       a block after which at least {@code templateFanout} distinct full blocks were founded
 *       independently over the whole trace (see {@link TemplateBlocks}: a shared system prompt
 *       branches into every session; a session's own history branches only at its forks, and the
 *       sub-agents one response spawns are explained by that request, however many).
 *   <li>Twins: r's prompt is identical to an eligible earlier one's (a retry, one of several
 *       rollouts of a task): r gets the twin's parent, not the twin.
 *   <li>L &lt;= T: r shares nothing but template blocks with any earlier request: a new root
 *       session (this is also what a compacted prompt looks like).
 *   <li>P = the latest eligible request, shorter than r, that r extends at the deepest depth
 *       beyond T: r holds P's whole full-block prefix (floor(in/B) blocks, the partial last block
 *       never survives into a follow-up), or P's <em>core</em>, its prompt minus the last
 *       {@link #FRAMING_TOKENS} tokens (a generation prompt that history renders differently).
 *       If that depth is L, r <em>extends</em> P: link to P.
 *   <li>Echo: if r shares more than P's prompt with a deeper holder, but no more than P's prompt
 *       + response + {@link #FRAMING_TOKENS}, the extra is P's response repeated by two children
 *       of P (sibling sub-agents that see the spawning call, the spawner's turn after them): r
 *       extends P.
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
    /** Requests whose full prefix ends here (they are extended whole by whoever holds this block and more). */
    Ends ends;
    /**
     * Requests whose core ends here (the fewest blocks that leave at most their last
     * FRAMING_TOKENS unshared), when that is short of their full prefix.
     */
    Ends cores;
    /** Latest request whose last block (partial or full) is this one: an identical prompt is its twin. */
    long twin = -1;
    double twinT;
    int twinIn;
    long twinParent = -1;
    byte twinKind;
    double lastT;
  }

  /**
   * The last {@link #SLOTS} requests that ended at one block, oldest first. Several end at the same
   * block when some add no full block (sub-agents with a short instruction, short turns, identical
   * prompts); keeping a few lets a request skip those that are too long or too recent to be its
   * parent and still find the one it extends.
   */
  private static final class Ends {
    final long[] seq = new long[SLOTS];
    final double[] t = new double[SLOTS];
    final int[] in = new int[SLOTS];
    final int[] out = new int[SLOTS];
    /** The request whose full prefix first ended here, if this one extended it without adding a full block. */
    final long[] origin = new long[SLOTS];
    /** The origin's prompt + response tokens. */
    final long[] originRoom = new long[SLOTS];
    int n;

    void add(long s, double at, int i, int o, long org, long room) {
      if (n == SLOTS) {
        for (int k = 1; k < SLOTS; k++) copy(k, k - 1);
        n--;
      }
      seq[n] = s;
      t[n] = at;
      in[n] = i;
      out[n] = o;
      origin[n] = org;
      originRoom[n] = room;
      n++;
    }

    private void copy(int from, int to) {
      seq[to] = seq[from];
      t[to] = t[from];
      in[to] = in[from];
      out[to] = out[from];
      origin[to] = origin[from];
      originRoom[to] = originRoom[from];
    }

    /** The slot of the latest request that arrived strictly before now, within the window, shorter than r; -1 if none. */
    int eligible(double now, double horizon, int rIn) {
      for (int k = n - 1; k >= 0; k--) {
        if (t[k] >= now) continue;
        if (t[k] < horizon) return -1;
        if (in[k] < rIn) return k;
      }
      return -1;
    }
  }

  private static final int SLOTS = 4;

  /** The decision for one request; the instance is reused by {@link #link}. */
  public static final class Link {
    public long parent;
    public byte kind;
    /** L: longest prefix shared with an eligible earlier request, in blocks. */
    public int shared;
    /** T: template depth in blocks. */
    public int template;
    public long naiveParent;
    /** Blocks of r held by any earlier request still indexed (r is the first holder of the next one). */
    public int known;
    /**
     * When the parent P extended an earlier request Y without adding a full block (a sub-agent
     * whose instruction fits in Y's partial last block), r extends Y just as well: Y, else -1.
     * Pass 2 gives Y the one such child whose subtree lives longest (Y's session resumes last).
     */
    public long alt;
    /** This request's own group origin Y (as above) if it extended Y without adding a full block, else -1. */
    public long origin;
    /** With {@link #origin}: Y's prompt + response tokens, and whether r has room for them (r follows Y). */
    public long originRoom;
    public boolean follows;
  }

  /**
   * Tokens of chat-template framing around a turn: the generation prompt at the end of a prompt
   * (which a template may render differently once the turn is in history, e.g. an empty think
   * block) and the role header and end marker around an echoed response. An assumption: common
   * templates use 3-10 tokens (ChatML's "<|im_start|>assistant\n" is 3, Llama 3's assistant header
   * 4, Qwen3's empty think block 4-6); 32 leaves room for tool-call wrappers.
   */
  public static final int FRAMING_TOKENS = 32;

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
    // core: the blocks a request must share with r for their first difference to lie in r's
    // last FRAMING_TOKENS (its generation prompt); indexed only where it ends before r's full prefix
    int core = (int) Math.min(full, (Math.max(0, inputTokens - FRAMING_TOKENS) + (long) blockSize - 1) / blockSize);
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
    l.known = naive;
    l.parent = -1;
    l.kind = NONE;
    l.alt = -1;
    l.origin = -1;
    l.originRoom = 0;
    l.follows = false;
    Block last = n > 0 ? buf[n - 1] : null;
    if (n > 0 && shared == n && last.twin >= 0 && last.twinT < t && last.twinT >= horizon && last.twinIn == inputTokens) {
      // an identical prompt (a retry, or one of several rollouts of one task) is not a child of
      // its twin, which it adds nothing to: it has the twin's parent
      l.parent = last.twinParent;
      l.kind = last.twinParent >= 0 ? last.twinKind : NONE;
    } else if (shared > template) {
      decide(l, t, horizon, inputTokens, blockSize, shared, template, full);
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
      if (e.ends == null) e.ends = new Ends();
      e.ends.add(seq, t, inputTokens, outputTokens, l.origin, l.originRoom);
    }
    if (core > 0 && core < full) {
      Block e = buf[core - 1];
      if (e.cores == null) e.cores = new Ends();
      e.cores.add(seq, t, inputTokens, outputTokens, -1, 0);
    }
    if (n > 0) {
      Block e = buf[n - 1];
      e.twin = seq;
      e.twinT = t;
      e.twinIn = inputTokens;
      e.twinParent = l.parent;
      e.twinKind = l.kind;
    }
    java.util.Arrays.fill(buf, 0, n, null);
    if (map.size() > maxEntries) maxEntries = map.size();
    return l;
  }

  /**
   * Steps 4-5 of the rule for a request that shares more than the template with an eligible
   * earlier one: the deepest request it extends (whole, or all but the generation prompt), else
   * a branch inside the latest holder's prompt, unless the extra sharing fits in the extended
   * request's response (siblings that repeat it).
   */
  private void decide(Link l, double t, double horizon, int inputTokens, int blockSize, int shared, int template,
      int full) {
    long p = -1;
    int depth = 0;
    boolean viaCore = false;
    int pIn = 0, pOut = 0;
    Ends pe = null;
    int ps = -1;
    for (int i = shared; i > template && p < 0; i--) {
      Block e = buf[i - 1];
      int byPrefix = e.ends == null ? -1 : e.ends.eligible(t, horizon, inputTokens);
      int byCore = e.cores == null ? -1 : e.cores.eligible(t, horizon, inputTokens);
      double tp = byPrefix < 0 ? Double.NEGATIVE_INFINITY : e.ends.t[byPrefix];
      double tc = byCore < 0 ? Double.NEGATIVE_INFINITY : e.cores.t[byCore];
      if (byPrefix >= 0 && tp >= tc) {
        pe = e.ends;
        ps = byPrefix;
      } else if (byCore >= 0) {
        pe = e.cores;
        ps = byCore;
        viaCore = true;
      }
      if (pe != null) {
        p = pe.seq[ps];
        pIn = pe.in[ps];
        pOut = pe.out[ps];
      }
      depth = i;
    }
    if (p >= 0 && depth == shared) {
      l.parent = p;
      l.kind = EXTENDS;
      if (viaCore) return;
      long pOrigin = pe.origin[ps];
      long pOriginRoom = pe.originRoom[ps];
      long pRoom = (long) pIn + pOut;
      // a follow-up's prompt holds its parent's prompt and response: only when r has no room
      // for p's response may r belong to the group's origin instead of p
      l.alt = pOrigin >= 0 && pOrigin != p && inputTokens < pRoom ? pOrigin : -1;
      // r ends where p ends: r joins p's group (its origin is p's origin, or p itself)
      if (depth == full) {
        l.origin = pOrigin >= 0 ? pOrigin : p;
        l.originRoom = pOrigin >= 0 ? pOriginRoom : pRoom;
        l.follows = inputTokens >= l.originRoom;
      }
    } else if (p >= 0 && (long) shared * blockSize <= (long) pIn + pOut + FRAMING_TOKENS) {
      // what r shares beyond p's prompt fits in p's response: r and the deeper holder both repeat
      // it (sibling sub-agents that see the spawning call; the spawner's turn after them)
      l.parent = p;
      l.kind = EXTENDS;
    } else {
      l.parent = eligibleHolder(buf[shared - 1], t, horizon);
      l.kind = FORK;
    }
  }

  private static long eligibleHolder(Block e, double t, double horizon) {
    if (e.holder >= 0 && e.holderT < t) return e.holderT >= horizon ? e.holder : -1;
    if (e.prevHolder >= 0 && e.prevHolderT >= horizon) return e.prevHolder;
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
