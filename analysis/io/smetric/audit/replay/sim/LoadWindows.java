package io.smetric.audit.replay.sim;

import it.unimi.dsi.fastutil.doubles.DoubleArrayList;

/**
 * The load accounting behind the imbalance metric: per instance, the in-flight token load
 * integrated over time in fixed windows of {@code ReplaySettings.imbalanceWindowS} from the first
 * arrival (a window's value is the load's time average over it).
 */
final class LoadWindows {
  private final long[] tokens;
  private final double[] last;
  private final DoubleArrayList[] windows;
  private final double t0;
  private final double windowS;

  LoadWindows(int instances, double t0, double windowS) {
    this.t0 = t0;
    this.windowS = windowS;
    tokens = new long[instances];
    last = new double[instances];
    java.util.Arrays.fill(last, t0);
    windows = new DoubleArrayList[instances];
    for (int i = 0; i < instances; i++) windows[i] = new DoubleArrayList();
  }

  /** Instance i's load changes by {@code delta} tokens at {@code now}. */
  void add(int i, double now, long delta) {
    accumulate(i, now);
    tokens[i] += delta;
  }

  private void accumulate(int i, double now) {
    double from = last[i];
    last[i] = now;
    long v = tokens[i];
    if (v == 0 || now <= from) return;
    double w = windowS;
    DoubleArrayList acc = windows[i];
    while (from < now) {
      int idx = (int) ((from - t0) / w);
      double wEnd = t0 + (idx + 1) * w;
      double to = Math.min(now, wEnd);
      while (acc.size() <= idx) acc.add(0);
      acc.set(idx, acc.getDouble(idx) + v * (to - from) / w);
      if (to <= from) break; // floating-point guard
      from = to;
    }
  }

  /** Every instance's windows up to {@code end}, all as long as the longest (trailing zeros). */
  double[][] close(double end) {
    int n = windows.length;
    for (int i = 0; i < n; i++) accumulate(i, end);
    double[][] out = new double[n][];
    int nw = 0;
    for (int i = 0; i < n; i++) nw = Math.max(nw, windows[i].size());
    for (int i = 0; i < n; i++) {
      out[i] = new double[nw];
      for (int w = 0; w < windows[i].size(); w++) out[i][w] = windows[i].getDouble(w);
    }
    return out;
  }
}
