package io.smetric.audit.characterize;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Exact order statistics over a distributed multiset without collecting it: weighted percentiles
 * (the contract's "smallest value whose cumulative weight reaches q of the total"; with weight 1
 * per item this is nearest rank {@code sorted[ceil(q n) - 1]}), the Lorenz curve, the share of
 * the top items and the Gini coefficient. Two passes over a range-partitioned, sorted copy: the
 * first collects one total per (partition, group), the driver turns them into offsets, the second
 * emits only the rows where a target is crossed. Driver memory is O(partitions x groups).
 *
 * <p>Input rows: {@code g} string group, {@code v} long value, {@code n} long item count,
 * {@code w} long weight (rows with equal (g, v) are merged first).
 */
public final class SortedStats {
  private SortedStats() {}

  public static final String G = "g";
  public static final String V = "v";
  public static final String N = "n";
  public static final String W = "w";

  /** Results for one group. Quantile values are in input units; lorenz[k] = cum weight share of the bottom floor(p_k n) items. */
  public record Stats(long items, long weight, double mean, long min, long max, long[] quantiles,
      double[] lorenzPopulation, double[] lorenzShare, double topShare, double gini, List<long[]> histogram) {}

  record PartTotal(int pid, String g, long n, long w, double sumVn, long min, long max, List<long[]> histogram)
      implements Serializable {}

  record Offsets(long itemsBefore, long weightBefore) implements Serializable {}

  record Targets(long[] weightThresholds, long[] ranks, long totalItems, long totalWeight) implements Serializable {}

  record Hit(String g, int kind, int idx, double value) implements Serializable {}

  /**
   * @param quantiles q values in (0, 1]
   * @param lorenzPoints population fractions p in [0, 1] (Lorenz points at item rank floor(p n))
   * @param topFraction share of items counted as "top" (0.25: the top ceil(0.25 n) items)
   * @param partitions sorted partitions; 1 skips the range sampling job (small inputs)
   * @param histogramGroups groups whose (value, items) rows are returned too ({@link Stats#histogram}):
   *     only for groups with few distinct values (the driver holds them)
   */
  public static Map<String, Stats> compute(SparkSession spark, Dataset<Row> rows, double[] quantiles,
      double[] lorenzPoints, double topFraction, int partitions, java.util.Set<String> histogramGroups) {
    int parts = Math.max(1, partitions);
    Dataset<Row> sorted = rows.groupBy(G, V).agg(sum(N).as(N), sum(W).as(W))
        .repartitionByRange(parts, col(G), col(V)).sortWithinPartitions(G, V)
        .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      JavaRDD<Row> rdd = sorted.javaRDD();
      List<PartTotal> totals = rdd.mapPartitionsWithIndex((pid, it) -> {
        List<PartTotal> out = new ArrayList<>();
        String g = null;
        long n = 0, w = 0, min = 0, max = 0;
        double svn = 0;
        List<long[]> hist = null;
        while (it.hasNext()) {
          Row r = it.next();
          String rg = r.getString(0);
          if (!rg.equals(g)) {
            if (g != null) out.add(new PartTotal(pid, g, n, w, svn, min, max, hist));
            g = rg; n = 0; w = 0; svn = 0; min = r.getLong(1);
            hist = histogramGroups.contains(g) ? new ArrayList<>() : null;
          }
          long v = r.getLong(1), rn = r.getLong(2);
          n += rn; w += r.getLong(3); svn += (double) v * rn; max = v;
          if (hist != null) hist.add(new long[] {v, rn});
        }
        if (g != null) out.add(new PartTotal(pid, g, n, w, svn, min, max, hist));
        return out.iterator();
      }, true).collect();

      // Offsets per (partition, group) in partition order; totals per group.
      Map<String, List<PartTotal>> byGroup = new TreeMap<>();
      for (PartTotal t : totals) byGroup.computeIfAbsent(t.g(), k -> new ArrayList<>()).add(t);
      Map<Integer, Map<String, Offsets>> offsets = new HashMap<>();
      Map<String, Targets> targets = new HashMap<>();
      Map<String, long[]> summary = new HashMap<>(); // items, weight, min, max
      Map<String, Double> sumVn = new HashMap<>();
      for (Map.Entry<String, List<PartTotal>> e : byGroup.entrySet()) {
        List<PartTotal> l = e.getValue();
        l.sort((a, b) -> Integer.compare(a.pid(), b.pid()));
        long items = 0, weight = 0;
        double svn = 0;
        for (PartTotal t : l) {
          offsets.computeIfAbsent(t.pid(), k -> new HashMap<>()).put(e.getKey(), new Offsets(items, weight));
          items += t.n(); weight += t.w(); svn += t.sumVn();
        }
        targets.put(e.getKey(), new Targets(weightThresholds(quantiles, weight),
            lorenzRanks(lorenzPoints, topFraction, items), items, weight));
        summary.put(e.getKey(), new long[] {items, weight, l.get(0).min(), l.get(l.size() - 1).max()});
        sumVn.put(e.getKey(), svn);
      }

      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      Broadcast<Map<Integer, Map<String, Offsets>>> bOff = jsc.broadcast(offsets);
      Broadcast<Map<String, Targets>> bTar = jsc.broadcast(targets);
      List<Hit> hits = rdd.mapPartitionsWithIndex((pid, it) -> scan(pid, it, bOff.value(), bTar.value()), true)
          .collect();
      bOff.destroy();
      bTar.destroy();

      Map<String, Stats> out = new TreeMap<>();
      for (String g : byGroup.keySet()) {
        long[] s = summary.get(g);
        Targets t = targets.get(g);
        long[] qv = new long[quantiles.length];
        double[] lorenzCum = new double[t.ranks().length];
        double giniSum = 0;
        for (Hit h : hits) {
          if (!h.g().equals(g)) continue;
          if (h.kind() == 0) qv[h.idx()] = (long) h.value();
          else if (h.kind() == 1) lorenzCum[h.idx()] = h.value();
          else giniSum += h.value();
        }
        List<long[]> hist = null;
        if (histogramGroups.contains(g)) {
          hist = new ArrayList<>(); // partitions in order, each sorted by value: the whole group sorted
          for (PartTotal pt : byGroup.get(g)) hist.addAll(pt.histogram());
        }
        out.put(g, stats(s[0], s[1], sumVn.get(g), s[2], s[3], qv, t.ranks(), lorenzCum, giniSum, hist));
      }
      return out;
    } finally {
      sorted.unpersist(false);
    }
  }

  /**
   * The cumulative weight at which each quantile is reached: cum >= q * W  <=>  cum >= ceil(q * W)
   * for integer cum (exact decimal arithmetic), at least 1.
   */
  static long[] weightThresholds(double[] quantiles, long weight) {
    long[] thr = new long[quantiles.length];
    for (int i = 0; i < quantiles.length; i++) {
      long th = BigDecimal.valueOf(quantiles[i]).multiply(BigDecimal.valueOf(weight))
          .setScale(0, RoundingMode.CEILING).longValueExact();
      thr[i] = Math.max(1, th);
    }
    return thr;
  }

  /** Item ranks of the Lorenz points (floor(p n)), then of the top items' lower edge (n - ceil(topFraction n)). */
  static long[] lorenzRanks(double[] lorenzPoints, double topFraction, long items) {
    long[] ranks = new long[lorenzPoints.length + 1];
    for (int i = 0; i < lorenzPoints.length; i++) ranks[i] = (long) Math.floor(lorenzPoints[i] * items);
    ranks[lorenzPoints.length] = items - (long) Math.ceil(topFraction * items);
    return ranks;
  }

  /**
   * A group's statistics from its totals and what the pass over its sorted values found: the
   * quantile values, the cumulative weight at each of {@code ranks} (the Lorenz points, then the
   * top items' edge) and the Gini sum, sum_i(i * x_i) over items ascending with 1-based ranks.
   */
  static Stats stats(long items, long weight, double sumVn, long min, long max, long[] quantileValues, long[] ranks,
      double[] lorenzCum, double giniSum, List<long[]> histogram) {
    int points = ranks.length - 1;
    double[] pop = new double[points];
    double[] share = new double[points];
    for (int i = 0; i < points; i++) {
      pop[i] = items == 0 ? 0 : (double) ranks[i] / items;
      share[i] = weight == 0 ? 0 : lorenzCum[i] / weight;
    }
    double top = weight == 0 ? Double.NaN : 1 - lorenzCum[points] / weight;
    // G = 2 * sum_i(i * x_i) / (n * sum x) - (n + 1) / n
    double gini = weight == 0 ? Double.NaN : 2 * giniSum / ((double) items * weight) - (items + 1.0) / items;
    return new Stats(items, weight, items == 0 ? Double.NaN : sumVn / items, min, max, quantileValues, pop, share,
        top, gini, histogram);
  }

  private static Iterator<Hit> scan(int pid, Iterator<Row> it, Map<Integer, Map<String, Offsets>> off,
      Map<String, Targets> tar) {
    List<Hit> out = new ArrayList<>();
    String g = null;
    long items = 0, weight = 0;
    Targets t = null;
    double giniSum = 0;
    while (it.hasNext()) {
      Row r = it.next();
      String rg = r.getString(0);
      if (!rg.equals(g)) {
        if (g != null) out.add(new Hit(g, 2, 0, giniSum));
        g = rg;
        Offsets o = off.get(pid).get(g);
        items = o.itemsBefore();
        weight = o.weightBefore();
        t = tar.get(g);
        giniSum = 0;
      }
      long v = r.getLong(1), n = r.getLong(2), w = r.getLong(3);
      for (int i = 0; i < t.weightThresholds().length; i++) {
        long th = t.weightThresholds()[i];
        if (weight < th && weight + w >= th) out.add(new Hit(g, 0, i, v));
      }
      for (int i = 0; i < t.ranks().length; i++) {
        long rank = t.ranks()[i];
        // the bottom `rank` items: those before this row plus part of it (equal items share w evenly)
        if (rank > items && rank <= items + n) out.add(new Hit(g, 1, i, weight + (double) (rank - items) * w / n));
        else if (rank == 0 && items == 0 && weight == 0) out.add(new Hit(g, 1, i, 0));
      }
      giniSum += (double) w * (items + (n + 1) / 2.0);
      items += n;
      weight += w;
    }
    if (g != null) out.add(new Hit(g, 2, 0, giniSum));
    return out.iterator();
  }
}
