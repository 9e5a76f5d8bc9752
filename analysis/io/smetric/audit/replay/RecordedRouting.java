package io.smetric.audit.replay;

import io.smetric.audit.replay.trace.ReplayTrace;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The recorded assignment of a trace (trace-model v1.3 {@code served_instance}, names numbered in
 * sorted order) keyed by request id, so that the sweep's policy {@code as-recorded} finds each
 * request's instance in any replay of the trace: at every rate scale and in the bootstrap
 * replicates, which keep the original request ids but not their positions.
 */
public final class RecordedRouting implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String[] ids; // sorted
  private final int[] instance; // aligned with ids

  /** From a replay-order assignment ({@code instanceOf[r]}: an index, or -1 when not recorded). */
  public RecordedRouting(ReplayTrace t, int[] instanceOf) {
    Integer[] order = new Integer[t.n];
    for (int r = 0; r < t.n; r++) order[r] = r;
    Arrays.sort(order, Comparator.comparing(r -> t.requestIds[r]));
    ids = new String[t.n];
    instance = new int[t.n];
    for (int k = 0; k < t.n; k++) {
      ids[k] = t.requestIds[order[k]];
      instance[k] = instanceOf[order[k]];
    }
  }

  /** Per request of {@code t} in its replay order: the recorded instance, or -1. */
  public int[] forTrace(ReplayTrace t) {
    int[] out = new int[t.n];
    for (int r = 0; r < t.n; r++) {
      int k = Arrays.binarySearch(ids, t.requestIds[r]);
      out[r] = k < 0 ? -1 : instance[k];
    }
    return out;
  }
}
