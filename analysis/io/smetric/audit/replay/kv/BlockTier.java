package io.smetric.audit.replay.kv;

import io.smetric.audit.replay.trace.ReplayTrace;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongLinkedOpenHashSet;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;

/**
 * The block-by-block reference {@link KvTier}: a plain LRU over chained block ids with reference
 * counts, written to be obviously right rather than fast. {@link SegmentTier} must give identical
 * results (a property test runs whole replays with both); the CLI's {@code --kv-model reference}
 * selects it for audits and the benchmark records its speed.
 */
public final class BlockTier implements KvTier {
  private final ReplayTrace t;
  private final boolean pinning;
  private final LongOpenHashSet present = new LongOpenHashSet();
  private final Long2IntOpenHashMap refs = new Long2IntOpenHashMap();
  /** Unreferenced present blocks, least recent first. */
  private final LongLinkedOpenHashSet order = new LongLinkedOpenHashSet();

  public BlockTier(ReplayTrace trace, boolean pinning) {
    if (!trace.keepsBlocks()) throw new IllegalArgumentException("the reference KV model needs a trace built with block ids");
    this.t = trace;
    this.pinning = pinning;
  }

  @Override
  public int match(int r) {
    long[] b = t.blockIds(r);
    int k = 0;
    while (k < b.length && present.contains(b[k])) k++;
    return k;
  }

  @Override
  public void pin(int r) {
    for (long b : t.blockIds(r)) {
      if (refs.addTo(b, 1) == 0) order.remove(b);
    }
  }

  @Override
  public long unreferencedPrefix(int r, int k) {
    long[] b = t.blockIds(r);
    long n = 0;
    for (int i = 0; i < k && i < b.length; i++) {
      if (present.contains(b[i]) && refs.get(b[i]) == 0) n++;
    }
    return n;
  }

  @Override
  public long insert(int r) {
    long[] b = t.blockIds(r);
    long added = 0;
    for (int i = b.length - 1; i >= 0; i--) {
      if (present.add(b[i])) added++;
      if (!pinning) order.addAndMoveToLast(b[i]);
      else if (refs.get(b[i]) == 0) order.addAndMoveToLast(b[i]);
    }
    return added;
  }

  @Override
  public void unpin(int r) {
    long[] b = t.blockIds(r);
    for (int i = b.length - 1; i >= 0; i--) {
      int before = refs.addTo(b[i], -1);
      if (before == 1) {
        refs.remove(b[i]);
        if (present.contains(b[i])) order.addAndMoveToLast(b[i]);
      }
    }
  }

  @Override
  public long evict(long count) {
    long done = 0;
    while (done < count && !order.isEmpty()) {
      present.remove(order.removeFirstLong());
      done++;
    }
    return done;
  }

  @Override
  public long cached() {
    return present.size();
  }

  @Override
  public long evictable() {
    return order.size();
  }
}
