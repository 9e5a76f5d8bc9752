package io.smetric.audit.characterize;

import io.smetric.audit.contract.parquet.TraceBatch;
import io.smetric.audit.contract.Source;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.objects.Object2DoubleOpenHashMap;
import it.unimi.dsi.fastutil.objects.Object2ObjectOpenHashMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The request-level statistics of the in-process path, from the same batches the segment tasks
 * read: {@link RequestTotals}, one entry per session (requests, first and last arrival, tokens),
 * think times (arrival minus the parent's, joined on request id like the distributed path's inner
 * join), and the exact order statistics of {@link SortedStats} computed on sorted arrays with the
 * same arithmetic in the same order (so both paths give the same bits). Memory: O(sessions +
 * requests) of small entries: this path is for traces one process holds.
 */
final class LocalStats implements Consumer<TraceBatch> {
  final RequestTotals totals = new RequestTotals();
  /** session id -> {requests, tokens} and {first, last} arrival. */
  private final Object2ObjectOpenHashMap<String, long[]> sessionCounts = new Object2ObjectOpenHashMap<>();
  private final Object2ObjectOpenHashMap<String, double[]> sessionTimes = new Object2ObjectOpenHashMap<>();
  /** request id -> arrival (a second request with the same id goes to {@link #moreArrivals}). */
  private final Object2DoubleOpenHashMap<String> arrivalById = new Object2DoubleOpenHashMap<>();
  private final Map<String, DoubleArrayList> moreArrivals = new HashMap<>();
  private final List<String> followUpParent = new ArrayList<>();
  private final DoubleArrayList followUpArrival = new DoubleArrayList();
  private final boolean needSessions;

  /** @param needSessions whether the trace has sessions (else only the totals are gathered) */
  LocalStats(boolean needSessions) {
    this.needSessions = needSessions;
  }

  @Override
  public void accept(TraceBatch b) {
    totals.add(b);
    if (!needSessions) return;
    for (int i = 0; i < b.n; i++) {
      String s = b.sessionId[i];
      double a = b.arrival[i];
      if (s != null) {
        long[] c = sessionCounts.get(s);
        if (c == null) {
          sessionCounts.put(s, new long[] {1, (long) b.input[i] + b.output[i]});
          sessionTimes.put(s, new double[] {a, a});
        } else {
          c[0]++;
          c[1] += (long) b.input[i] + b.output[i];
          double[] t = sessionTimes.get(s);
          t[0] = Math.min(t[0], a);
          t[1] = Math.max(t[1], a);
        }
      }
      String id = b.requestId[i];
      if (arrivalById.containsKey(id)) moreArrivals.computeIfAbsent(id, k -> new DoubleArrayList()).add(a);
      else arrivalById.put(id, a);
      if (b.turn[i] != TraceBatch.NULL_INT && b.turn[i] > 0 && b.parentId[i] != null) {
        followUpParent.add(b.parentId[i]);
        followUpArrival.add(a);
      }
    }
  }

  /** The sessions table's rows (session_id, requests, first_arrival_s, tokens, duration_s), sorted by id (UTF-8 bytes, as Spark sorts strings). */
  List<Object[]> sessionRows() {
    List<Object[]> out = new ArrayList<>(sessionCounts.size());
    boolean utf16OrderDiffers = false;
    for (var e : sessionCounts.object2ObjectEntrySet()) {
      double[] t = sessionTimes.get(e.getKey());
      out.add(new Object[] {e.getKey(), e.getValue()[0], t[0], e.getValue()[1], t[1] - t[0]});
      utf16OrderDiffers |= e.getKey().chars().anyMatch(c -> c >= 0xD800);
    }
    if (utf16OrderDiffers) {
      out.sort((x, y) -> Arrays.compareUnsigned(((String) x[0]).getBytes(StandardCharsets.UTF_8),
          ((String) y[0]).getBytes(StandardCharsets.UTF_8)));
    } else {
      // below U+D800, UTF-16 code unit order is UTF-8 byte order
      out.sort((x, y) -> ((String) x[0]).compareTo((String) y[0]));
    }
    return out;
  }

  /** Spark's round(x) (half up, away from zero) followed by a cast to long. */
  static long roundHalfUp(double x) {
    return x >= 0 ? Math.round(x) : -Math.round(-x);
  }

  /** One distribution: value -> items and value -> weight (the distributed path's rows merged by (g, v)). */
  record Group(Long2LongOpenHashMap n, Long2LongOpenHashMap w) {
    Group() {
      this(new Long2LongOpenHashMap(), new Long2LongOpenHashMap());
    }

    void add(long v, long items, long weight) {
      n.addTo(v, items);
      w.addTo(v, weight);
    }
  }

  /** The value groups of the distributed path: turns, duration_us, tokens, think_us, interval:SOURCE. */
  Map<String, Group> groups(ReuseSums reuse) {
    Map<String, Group> g = new TreeMap<>();
    if (reuse != null) {
      Group all = new Group();
      for (int s = 0; s < 3; s++) {
        Long2LongOpenHashMap tok = reuse.intervalTokens[s];
        if (tok.isEmpty()) continue;
        // the sums are keyed by interval already: they are the group
        g.put("interval:" + Source.values()[s].label, new Group(reuse.intervalBlocks[s], tok));
        for (var e : tok.long2LongEntrySet()) all.add(e.getLongKey(), reuse.intervalBlocks[s].get(e.getLongKey()), e.getLongValue());
      }
      if (!all.n().isEmpty()) g.put("interval:" + Source.ALL, all);
    }
    if (needSessions && !sessionCounts.isEmpty()) {
      Group turns = new Group();
      Group dur = new Group();
      Group tokens = new Group();
      for (var e : sessionCounts.object2ObjectEntrySet()) {
        long[] c = e.getValue();
        double[] t = sessionTimes.get(e.getKey());
        turns.add(c[0], 1, 1);
        dur.add(roundHalfUp((t[1] - t[0]) * 1e6), 1, 1);
        tokens.add(c[1], 1, c[1]);
      }
      g.put("turns", turns);
      g.put("duration_us", dur);
      g.put("tokens", tokens);
    }
    if (needSessions) {
      Group think = new Group();
      for (int i = 0; i < followUpParent.size(); i++) {
        String p = followUpParent.get(i);
        double a = followUpArrival.getDouble(i);
        if (arrivalById.containsKey(p)) think.add(roundHalfUp((a - arrivalById.getDouble(p)) * 1e6), 1, 1);
        DoubleArrayList more = moreArrivals.get(p);
        if (more != null) for (int k = 0; k < more.size(); k++) think.add(roundHalfUp((a - more.getDouble(k)) * 1e6), 1, 1);
      }
      if (!think.n().isEmpty()) g.put("think_us", think);
    }
    return g;
  }

  /**
   * {@link SortedStats#compute} on one sorted partition, in process: the same thresholds, ranks and
   * sums in the same order.
   */
  static Map<String, SortedStats.Stats> orderStats(Map<String, Group> groups, double[] quantiles,
      double[] lorenzPoints, double topFraction, Set<String> histogramGroups) {
    Map<String, SortedStats.Stats> out = new TreeMap<>();
    for (var ge : groups.entrySet()) {
      Group grp = ge.getValue();
      long[] vs = grp.n().keySet().toLongArray();
      Arrays.sort(vs);
      long[] ns = new long[vs.length];
      long[] ws = new long[vs.length];
      long items = 0;
      long weight = 0;
      double svn = 0;
      for (int k = 0; k < vs.length; k++) {
        ns[k] = grp.n().get(vs[k]);
        ws[k] = grp.w().get(vs[k]);
        items += ns[k];
        weight += ws[k];
        svn += (double) vs[k] * ns[k];
      }
      long[] thr = SortedStats.weightThresholds(quantiles, weight);
      long[] ranks = SortedStats.lorenzRanks(lorenzPoints, topFraction, items);
      long[] qv = new long[quantiles.length];
      double[] lorenzCum = new double[ranks.length];
      double giniSum = 0;
      long it = 0;
      long wt = 0;
      // cumulative items and weight after each value: a rank's value is found by binary search
      long[] itEnd = new long[vs.length];
      long[] wtEnd = new long[vs.length];
      List<long[]> hist = histogramGroups.contains(ge.getKey()) ? new ArrayList<>() : null;
      for (int k = 0; k < vs.length; k++) {
        long v = vs[k];
        long n = ns[k];
        long w = ws[k];
        for (int i = 0; i < thr.length; i++) if (wt < thr[i] && wt + w >= thr[i]) qv[i] = (long) (double) v;
        giniSum += (double) w * (it + (n + 1) / 2.0);
        it += n;
        wt += w;
        itEnd[k] = it;
        wtEnd[k] = wt;
        if (hist != null) hist.add(new long[] {v, n});
      }
      for (int i = 0; i < ranks.length; i++) {
        long rank = ranks[i];
        if (rank <= 0) continue; // the bottom 0 sessions hold 0
        // the value k with itEnd[k - 1] < rank <= itEnd[k]; same arithmetic as SortedStats' pass over the values
        int k = Arrays.binarySearch(itEnd, rank);
        if (k < 0) k = -k - 1;
        else while (k > 0 && itEnd[k - 1] == rank) k--;
        if (k >= vs.length) continue;
        long itBefore = k == 0 ? 0 : itEnd[k - 1];
        long wtBefore = k == 0 ? 0 : wtEnd[k - 1];
        lorenzCum[i] = wtBefore + (double) (rank - itBefore) * ws[k] / ns[k];
      }
      out.put(ge.getKey(), SortedStats.stats(items, weight, svn, vs[0], vs[vs.length - 1], qv, ranks, lorenzCum, giniSum,
          hist));
    }
    return out;
  }

  /** Follow-ups whose parent is in the trace (the think-time group's size). */
  static long itemsOf(Map<String, SortedStats.Stats> st, String g) {
    SortedStats.Stats s = st.get(g);
    return s == null ? 0 : s.items();
  }
}
