package io.smetric.audit.replay.sim;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.kv.HolderIndex;
import io.smetric.audit.replay.kv.KvTier;
import io.smetric.audit.replay.kv.SegmentTier;
import io.smetric.audit.replay.policy.ClusterView;
import io.smetric.audit.replay.trace.ReplayTrace;
import it.unimi.dsi.fastutil.ints.IntArrayFIFOQueue;

/**
 * What a policy sees of the {@link Simulator}'s cluster when it routes one request: the request
 * (its tokens, turn, session, estimated hit), each instance's load as the simulator keeps it, and
 * each instance's prefix-cache hit for the request, memoised per request and answered from one
 * walk of the holder index once the policy probes more than one instance. Reads the simulator's
 * arrays, never writes them; bringing an instance's memory up to the clock is the simulator's.
 */
final class RoutingView implements ClusterView {
  private final Simulator sim;
  private final ReplayTrace t;
  private final ReplaySettings s;
  private final int nInst;
  private final long cap;
  private final boolean colocated;
  private final boolean prefixCaching;
  private final KvTier[] local;
  private final int[] requests;
  private final int[] runningN;
  private final IntArrayFIFOQueue[] queue;
  private final long[] unprefilled;
  private final long[] activeBlocks;
  private final long[] reserved;

  /** The request being routed (-1 between routings). */
  private int cur = -1;
  private final int[] hitMemo;
  private final int[] hitMemoFor;
  /** Which instances hold each segment (null: a reference-model run, or more instances than it covers). */
  private final HolderIndex holders;
  /** The policy reads every instance's hit: the holder index answers from the first probe. */
  private final boolean probeAll;
  private final SegmentTier[] indexedLocal;
  /** Every instance's hit for request {@code allHitsFor}, from one walk of the holder index. */
  private final int[] allHits;
  private int allHitsFor = -1;
  /** Instances whose tier changed since {@link #allHits} was taken (bit i: its entry is stale). */
  private long allHitsStale;
  /** Instances probed for the current request so far (the walk pays off from the second). */
  private int probes;

  RoutingView(Simulator sim, HolderIndex holders, SegmentTier[] indexedLocal, boolean probeAll) {
    this.sim = sim;
    this.t = sim.t;
    this.s = sim.s;
    this.nInst = sim.nInst;
    this.cap = sim.cap;
    this.colocated = sim.colocated;
    this.prefixCaching = sim.prefixCaching;
    this.local = sim.local;
    this.requests = sim.requests;
    this.runningN = sim.runningN;
    this.queue = sim.queue;
    this.unprefilled = sim.unprefilled;
    this.activeBlocks = sim.activeBlocks;
    this.reserved = sim.reserved;
    this.holders = holders;
    this.indexedLocal = indexedLocal;
    this.probeAll = probeAll;
    hitMemo = new int[nInst];
    hitMemoFor = new int[nInst];
    java.util.Arrays.fill(hitMemoFor, -1);
    allHits = holders == null ? null : new int[nInst];
  }

  /** Request r is about to be routed. */
  void begin(int r) {
    cur = r;
    probes = 0;
    allHitsFor = -1;
  }

  /** The routing of the current request is over. */
  void end() {
    cur = -1;
  }

  /** Instance i's tier evicted blocks since the holder-index walk: its entry there is stale. */
  void stale(int i) {
    allHitsStale |= 1L << i;
  }

  @Override
  public int instances() {
    return nInst;
  }

  @Override
  public int blockSize() {
    return t.blockSize;
  }

  @Override
  public int request() {
    return cur;
  }

  @Override
  public int inputTokens() {
    return t.input[cur];
  }

  @Override
  public int promptBlocks() {
    return t.blocks[cur];
  }

  @Override
  public int turn() {
    // the turn as a router infers it from the history the request carries
    return forkSeenAsFollowUp() ? 1 : t.turn[cur];
  }

  /** A fork that carries its parent's history, seen as a follow-up (ReplaySettings.forkHistoryIsFollowUp). */
  private boolean forkSeenAsFollowUp() {
    return t.turn[cur] == 0 && s.forkHistoryIsFollowUp && t.forkCarriesHistory(cur);
  }

  @Override
  public long sessionHash() {
    int ss = t.session[cur];
    return ss < 0 ? 0 : t.sessionHash[ss];
  }

  @Override
  public boolean hasSession() {
    return t.session[cur] >= 0;
  }

  @Override
  public long estHitTokens() {
    if (forkSeenAsFollowUp()) {
      return t.tokensOf(cur, t.commonBlocks(cur, t.forkParent[cur])); // the history it shares with its parent
    }
    return t.tokensOf(cur, t.estHitBlocks[cur]);
  }

  /**
   * local[i].match(cur), as a router's probe asks it. The first probe of a request asks the tier,
   * unless the policy weighs every instance; from the second on, one walk of the holder index
   * answers for all instances, each exactly as its tier would at this moment (an instance whose
   * tier changed since the walk asks its tier again).
   */
  private int match(int i) {
    if (holders == null || (probes++ == 0 && !probeAll)) return local[i].match(cur);
    if (allHitsFor != cur) {
      holders.matchAll(cur, indexedLocal, allHits);
      allHitsFor = cur;
      allHitsStale = 0;
    }
    return (allHitsStale & (1L << i)) != 0 ? local[i].match(cur) : allHits[i];
  }

  @Override
  public int localHitBlocks(int i) {
    if (!t.hasBlocks || !prefixCaching) return 0;
    if (hitMemoFor[i] != cur) {
      // Bringing memory up to the clock can only evict (unreferenced, least recent) blocks, so it
      // is needed only when the hit has blocks it could take; otherwise it is left to the
      // instance's next event, which evicts the same blocks (nothing else touches its tier before).
      int m = match(i);
      if (m > 0 && sim.needsSync(i) && !local[i].lastMatchPinned()) {
        long cached = local[i].cached();
        sim.syncMemory(i);
        // bringing memory up to the clock only evicts: the same number of blocks cached, the same tier
        if (local[i].cached() != cached) m = local[i].match(cur);
      }
      hitMemo[i] = m;
      hitMemoFor[i] = cur;
    }
    return hitMemo[i];
  }

  @Override
  public long localHitTokens(int i) {
    return t.tokensOf(cur, localHitBlocks(i));
  }

  @Override
  public int requests(int i) {
    return requests[i];
  }

  @Override
  public int running(int i) {
    return runningN[i];
  }

  @Override
  public int waiting(int i) {
    return queue[i].size();
  }

  @Override
  public long unprefilledTokens(int i) {
    return unprefilled[i];
  }

  @Override
  public long activeBlocks(int i) {
    return activeBlocks[i];
  }

  @Override
  public double kvUsage(int i) {
    if (cap == Long.MAX_VALUE) return 0;
    sim.syncMemory(i);
    return Math.min(1.0, (double) (local[i].cached() + reserved[i]) / cap);
  }

  @Override
  public long cachedBlocks(int i) {
    sim.syncMemory(i);
    return local[i].cached();
  }

  @Override
  public long load(int i) {
    return colocated ? requests[i] : unprefilled[i];
  }
}
