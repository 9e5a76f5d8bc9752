package io.smetric.audit.replay.sim;

import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ReplaySettings;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * The global tier's read path (docs/replay.md): the links that fetched KV blocks cross between the
 * global tier and the instance that admitted the request. Every active fetch progresses at
 * min(instance link / fetches on that instance, node NIC / (remote share x fetches on that node),
 * aggregate / all fetches), where the remote share is the part of the global tier held on other
 * nodes (instance i is on node i / instancesPerNode). Rates change only when a fetch starts or
 * ends, so progress is exact between those events: the model schedules one {@link Event#LINK}
 * event at the next completion and, when a fetch completes, an {@link Event#FETCH_DONE} event after
 * the profile's lookup latency. It also records the bytes read per bandwidth window.
 *
 * <p>Called from the simulator's event loop: primitive arrays, nothing allocated per event.
 */
final class GlobalLinks {
  private final EventQueue ev;
  private final double linkBytesPerS;
  /** 0 when there is no aggregate cap (or no NIC cap). */
  private final double aggBytesPerS;
  private final double nicBytesPerS;
  private final int perNode;
  private final double remoteShare;
  private final double lookupLatencyS;
  /** Active fetches per instance and per node. */
  private final int[] fetchN;
  private final int[] fetchNodeN;
  /** Per request: the instance it fetches for and the bytes it has left. */
  private final int[] fetchInst;
  private final double[] fetchLeft;
  private final IntArrayList fetching = new IntArrayList();
  private final IntArrayList done = new IntArrayList();
  /** Bytes read per bandwidth window of {@code windowS} seconds from t0. */
  private final DoubleArrayList windows = new DoubleArrayList();
  private final double windowS;
  private final double t0;
  private double last;
  private int version;

  GlobalLinks(ModelProfile p, ReplaySettings s, int instances, int requests, double t0, EventQueue ev) {
    this.ev = ev;
    this.linkBytesPerS = p.globalReadGBps * 1e9;
    double agg = s.aggregateGBps();
    this.aggBytesPerS = Double.isInfinite(agg) ? 0 : agg * 1e9;
    this.perNode = s.instancesPerNode;
    int nodes = (instances + perNode - 1) / perNode;
    this.remoteShare = nodes <= 1 ? 0 : (nodes - 1) / (double) nodes;
    this.nicBytesPerS = Double.isInfinite(s.nodeNicGBps) ? 0 : s.nodeNicGBps * 1e9;
    this.lookupLatencyS = p.globalLookupLatencyS;
    this.fetchN = new int[instances];
    this.fetchNodeN = new int[nodes];
    this.fetchInst = new int[requests];
    this.fetchLeft = new double[requests];
    this.windowS = s.bandwidthWindowS;
    this.t0 = t0;
    this.last = t0;
  }

  /** Request r, admitted on instance i, starts fetching {@code bytes} from the global tier now. */
  void start(int i, int r, double bytes, double now) {
    advance(now);
    fetchLeft[r] = bytes;
    fetchInst[r] = i;
    fetchN[i]++;
    fetchNodeN[i / perNode]++;
    fetching.add(r);
    schedule(now);
  }

  /**
   * A {@link Event#LINK} event: when it is the current version, the fetches whose bytes have all
   * moved end (each gets its FETCH_DONE after the lookup latency) and the next completion is scheduled.
   */
  void onLinkEvent(int eventVersion, double now) {
    if (eventVersion != version) return;
    advance(now);
    IntArrayList f = fetching;
    done.clear();
    for (int j = 0; j < f.size(); j++) {
      int r = f.getInt(j);
      // done = what is left cannot move the clock: at large t one ulp of time carries several
      // bytes, and a fetch left with less would reschedule at the same instant forever
      double eps = Math.max(1.0, 4.0 * rateOf(r) * Math.ulp(now));
      if (fetchLeft[r] <= eps) done.add(r);
    }
    for (int k = 0; k < done.size(); k++) {
      int r = done.getInt(k);
      f.rem(r);
      fetchN[fetchInst[r]]--;
      fetchNodeN[fetchInst[r] / perNode]--;
      ev.push(now + lookupLatencyS, Event.FETCH_DONE, fetchInst[r], r);
    }
    schedule(now);
  }

  /** Global-tier bytes read per bandwidth window, from t0. */
  double[] bandwidthWindows() {
    return windows.toDoubleArray();
  }

  private double rateOf(int r) {
    int i = fetchInst[r];
    double rate = linkBytesPerS / fetchN[i];
    // remoteShare of every byte crosses the node's NIC, shared equally by the node's fetches
    if (remoteShare > 0 && nicBytesPerS > 0) rate = Math.min(rate, nicBytesPerS / (remoteShare * fetchNodeN[i / perNode]));
    if (aggBytesPerS > 0) rate = Math.min(rate, aggBytesPerS / fetching.size());
    return rate;
  }

  private void advance(double now) {
    double dt = now - last;
    IntArrayList f = fetching;
    if (!f.isEmpty() && dt > 0) {
      double moved = 0;
      for (int j = 0; j < f.size(); j++) {
        int r = f.getInt(j);
        double b = rateOf(r) * dt;
        fetchLeft[r] -= b;
        moved += b;
      }
      addBandwidth(last, now, moved);
    }
    last = now;
  }

  private void schedule(double now) {
    version++;
    IntArrayList f = fetching;
    if (f.isEmpty()) return;
    double next = Double.POSITIVE_INFINITY;
    for (int j = 0; j < f.size(); j++) {
      int r = f.getInt(j);
      next = Math.min(next, Math.max(0, fetchLeft[r]) / rateOf(r));
    }
    ev.push(now + next, Event.LINK, 0, version);
  }

  private void addBandwidth(double from, double to, double bytes) {
    double w = windowS;
    double rate = bytes / (to - from);
    while (from < to) {
      int idx = (int) ((from - t0) / w);
      double wEnd = t0 + (idx + 1) * w;
      double end = Math.min(to, wEnd);
      while (windows.size() <= idx) windows.add(0);
      windows.set(idx, windows.getDouble(idx) + rate * (end - from));
      if (end <= from) break;
      from = end;
    }
  }
}
