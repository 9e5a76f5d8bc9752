package io.smetric.audit.replay.policy;

/**
 * What a router can know when a request arrives: the request itself (its prompt's blocks, as a
 * router hashes them; its turn and session as the API carries them) and each instance's state
 * as KV events and dispatch bookkeeping report it. Loads are reserved at dispatch time (a request
 * counts on its instance from the moment it is routed), the lesson of stale-load herding in
 * vllm-project/router#179 and ai-dynamo/dynamo#589. Nothing here reveals the future.
 */
public interface ClusterView {
  int instances();

  int blockSize();

  // ---- the request being routed ----
  /**
   * Index of the request in the trace (replay order), or -1 where the view has none. Only the
   * as-recorded policy reads it: it replays a routing that was recorded, not one decided now.
   */
  default int request() {
    return -1;
  }

  int inputTokens();

  /** Blocks of the prompt (0 when the trace has no block hashes). */
  int promptBlocks();

  /**
   * Turn as a router infers it from the history the request carries, or -1 when unknown: the
   * trace's turn, except that a fork carrying its parent's history counts as a follow-up (1) when
   * ReplaySettings.forkHistoryIsFollowUp is on.
   */
  int turn();

  /** Stable 64-bit hash of the session id; {@link #hasSession()} tells whether there is one. */
  long sessionHash();

  boolean hasSession();

  /**
   * est_hit(r) in tokens: the common prefix with the session's previous request (contract section
   * 8); for a fork seen as a follow-up ({@link #turn()}), the prefix it shares with its parent.
   */
  long estHitTokens();

  // ---- instance state ----
  /** Longest prefix of the prompt present in instance i's local tier, in blocks. */
  int localHitBlocks(int i);

  /** The same in tokens: min(blocks x B, input). */
  long localHitTokens(int i);

  /** Requests routed to i and not finished (queued, fetching, prefilling or decoding). */
  int requests(int i);

  /** Requests admitted into i's running batch. */
  int running(int i);

  /** Requests routed to i and not yet admitted. */
  int waiting(int i);

  /** Prefill tokens routed to i and not yet computed (the disaggregated load()). */
  long unprefilledTokens(int i);

  /** KV blocks held by i's running requests (prompt plus reserved output). */
  long activeBlocks(int i);

  /** Share of i's local capacity in use (0 when unbounded). */
  double kvUsage(int i);

  /** Blocks present in i's local tier. */
  long cachedBlocks(int i);

  /** load() of the paper's Figure 13: requests(i) when colocated, unprefilledTokens(i) when disaggregated. */
  long load(int i);
}
