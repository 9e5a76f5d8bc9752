package io.smetric.audit.replay.kv;

/**
 * One KV tier (an instance's HBM, or the cluster-wide global store) as the simulator drives it.
 * Requests are trace indices; a request's prompt is its chain of blocks. Semantics (identical in
 * every implementation, checked by a property test):
 *
 * <ul>
 *   <li>{@link #match}: the longest prefix of r's blocks all present.
 *   <li>{@link #pin}: r holds a reference on every block of its prompt (present or not, as vLLM
 *       holds the slots it allocated); referenced blocks are never evicted.
 *   <li>{@link #insert}: every block of r becomes present. In a pinning tier the blocks stay
 *       referenced; in a non-pinning tier (global) the whole prompt is touched to most recent,
 *       tail first, so that a prefix always outlives its extensions.
 *   <li>{@link #unpin}: r drops its references; the blocks left unreferenced join the eviction
 *       order at the most-recent end, tail block first (vLLM's free-block queue order).
 *   <li>{@link #evict}: removes up to {@code count} unreferenced blocks, least recent first.
 * </ul>
 *
 * These rules keep the set of present blocks prefix-closed, which both implementations rely on.
 */
public interface KvTier {
  int match(int r);

  void pin(int r);

  /**
   * Of r's first {@code k} blocks, those present and referenced by no request: what pinning r
   * would take out of the evictable pool (an admission must count them as well as its new blocks).
   */
  long unreferencedPrefix(int r, int k);

  /** Returns the number of blocks that were not present before. */
  long insert(int r);

  void unpin(int r);

  /** Returns the number of blocks evicted. */
  long evict(long count);

  long cached();

  long evictable();

  /**
   * Whether every block the last {@link #match} found is referenced, so that no eviction can take
   * any of them (false when unknown: callers must then assume it can).
   */
  default boolean lastMatchPinned() {
    return false;
  }

  /** The simulation is over: the tier may hand its memory on (it is not used afterwards). */
  default void release() {}
}
