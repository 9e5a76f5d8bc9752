package io.smetric.audit.replay.sweep;

import io.smetric.audit.replay.ReplaySettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * How far a replay sweep is, in simulations, against an estimate of the planned total that does
 * not fall back as adaptive rounds add work (issue 29 item 6). Counting Spark tasks submitted so
 * far did: every knee-search round added tasks, so the percent dropped (94% of 510 tasks, then 98%
 * of 514, on a 300k-request trace).
 *
 * <p>The sweep is made of <em>parts</em>, each with an expected number of simulations: a curve's
 * knee search ({@link AuditPlan#expectedPoints}), a conditions point, the bootstrap replicates, and
 * placeholders for phases not planned yet (the replicates and the conditions sweep are planned
 * only when the main sweep ends; {@link #replicatesBefore}, {@link #conditionsBefore}). A part
 * counts for its expectation until it has submitted more than that, then for what it submitted;
 * once it is finished, for exactly what it submitted. So the total is never below the simulations
 * submitted, the done count (results back) only grows, and the percent never exceeds 100. The
 * total is revised as parts finish or are planned, and shown as an estimate ("of ~780") until
 * every part is known. Parts planned by one rule (a <em>kind</em>: cold curves, warm curves, capacity
 * searches, interval replicates) learn from each other: once some have finished, the open ones count
 * for the shrunk mean of those finished ({@link #expected(double, long, long[])}), so a model prior
 * that is off (warm curves: 5.82 expected, about 3.5 taken on the 200k agent trace) is corrected
 * as the sweep goes, not only at its end.
 *
 * <p>Time left: the simulations still expected x the CPU-seconds per simulation so far, over the
 * cores the sweep actually kept busy (the CPU-seconds of the results back per wall-second, at most
 * the cores): on a machine shared with other work fewer than all cores are the sweep's. The busy
 * cores are measured from the first results back to the last, not from the sweep's start: the wall
 * time before the first results is the sweep's start-up (each executor loading the trace, the
 * JIT), which does not recur; counted in, it made the first estimate of the shipped sample's
 * 24-second replay "~15m57s left" (4 results of 0.06 CPU-s after 5 s). With one batch back there is
 * no steady state yet, so no time is shown.
 */
public final class SweepProgress {
  /** What a progress line says. */
  public record Snapshot(long done, long total, boolean exact, double cpuPerSimulation, double busyCores, int cores,
      double secondsLeft) {
    /**
     * Percent of the (estimated) total done, 0-100; at most 99 while the total is an estimate (a
     * part past its expectation may still plan more).
     */
    public int percent() {
      int p = total <= 0 ? 100 : (int) Math.min(100, 100 * done / total);
      return exact ? p : Math.min(99, p);
    }

    /** "simulations 412 of ~780 (52%), ~3m10s left (0.85 CPU-s per simulation, 1.7 of 2 cores busy)". */
    public String line() {
      StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "simulations %d of %s%d (%d%%)", done,
          exact ? "" : "~", total, percent()));
      if (!Double.isNaN(secondsLeft)) {
        b.append(String.format(Locale.ROOT, ", ~%s left (%.2f CPU-s per simulation, %.1f of %d cores busy)",
            duration(secondsLeft), cpuPerSimulation, busyCores, cores));
      }
      return b.toString();
    }
  }

  /** Receives a snapshot after each batch of results (from the thread that completed it). */
  @FunctionalInterface
  public interface Listener {
    void progress(Snapshot s);
  }

  private static final class Part {
    double expected;
    long submitted;
    boolean finished;
    /** Known exactly once submitted (a batch planned whole: the replicates, a fixed grid). */
    boolean exact;
    /** Parts planned by the same rule (cold curves, warm curves, ...) learn from each other; null: on its own. */
    String kind;
  }

  /**
   * How much the prior expectation of an open part weighs against the finished parts of its kind,
   * in parts: 1, the prior counts as one more finished part (an assumption: enough to keep one
   * early finisher from setting the estimate alone, little enough that a handful of finished parts
   * outweigh a model that is off).
   */
  static final double PRIOR_WEIGHT = 1;

  private final Map<String, Part> parts = new LinkedHashMap<>();
  private final int cores;
  private final Listener listener;
  private final LongSupplier nanos;
  private final long start;
  private long done;
  private double cpu;
  private long lastBackNanos;
  /** When the first results came back, and the CPU-seconds they brought (the steady state starts there). */
  private long firstBackNanos = -1;
  private double firstBackCpu;

  public SweepProgress(int cores, Listener listener) {
    this(cores, listener, System::nanoTime);
  }

  /** With a clock of its own (tests). */
  SweepProgress(int cores, Listener listener, LongSupplier nanos) {
    this.cores = Math.max(1, cores);
    this.listener = listener;
    this.nanos = nanos;
    this.start = nanos.getAsLong();
    this.lastBackNanos = start;
  }

  /** A part expected to take about {@code simulations} (replaces a part of that name). */
  public synchronized void expect(String part, double simulations) {
    Part p = new Part();
    p.expected = Math.max(0, simulations);
    parts.put(part, p);
  }

  /**
   * A part of {@code kind} expected to take about {@code prior} simulations until parts of its kind
   * finish; then as {@link #snapshot} says (replaces a part of that name).
   */
  public synchronized void expect(String part, String kind, double prior) {
    expect(part, prior);
    parts.get(part).kind = kind;
  }

  /** A part of exactly {@code simulations} (replaces a part of that name). */
  public synchronized void expectExactly(String part, long simulations) {
    expect(part, simulations);
    parts.get(part).exact = true;
  }

  /** Removes a placeholder (its phase is now planned as parts of its own). */
  public synchronized void drop(String part) {
    parts.remove(part);
  }

  /** A part planned its next batch of {@code n} simulations; 0: it is finished. */
  public synchronized void batch(String part, int n) {
    Part p = parts.computeIfAbsent(part, k -> new Part());
    if (n == 0) p.finished = true;
    p.submitted += n;
  }

  /** Tells the listener the plan before any result is back ("simulations 0 of ~546"). */
  public void announce() {
    Snapshot s = snapshot();
    if (listener != null) listener.progress(s);
  }

  /** Results came back (each counts as one simulation done; its CPU time feeds the time left). */
  public void back(List<RunResult> results) {
    Snapshot s;
    synchronized (this) {
      for (RunResult r : results) cpu += r.cpuSeconds();
      done += results.size();
      lastBackNanos = nanos.getAsLong();
      if (firstBackNanos < 0) {
        firstBackNanos = lastBackNanos;
        firstBackCpu = cpu;
      }
      s = snapshot();
    }
    if (listener != null) listener.progress(s);
  }

  public synchronized Snapshot snapshot() {
    Map<String, long[]> finishedByKind = finishedCounts();
    double total = 0;
    boolean exact = true;
    for (Part p : parts.values()) {
      if (p.finished || (p.exact && p.submitted >= p.expected)) {
        total += p.submitted;
      } else {
        total += expected(p, p.kind == null ? null : finishedByKind.get(p.kind));
        exact = false;
      }
    }
    long t = Math.max(done, Math.round(total));
    double perSim = done == 0 ? Double.NaN : cpu / done;
    double wall = firstBackNanos < 0 ? 0 : (lastBackNanos - firstBackNanos) / 1e9;
    double steadyCpu = cpu - firstBackCpu;
    double busy = wall <= 0 || steadyCpu <= 0 ? Double.NaN : Math.min(cores, steadyCpu / wall);
    double left = Double.isNaN(perSim) || Double.isNaN(busy) ? Double.NaN : (t - done) * perSim / busy;
    return new Snapshot(done, t, exact, perSim, busy, cores, left);
  }

  /** Per kind, the simulations each finished part of it took, ascending. */
  private Map<String, long[]> finishedCounts() {
    Map<String, List<Long>> by = new TreeMap<>();
    for (Part p : parts.values()) {
      if (p.kind != null && p.finished) by.computeIfAbsent(p.kind, k -> new ArrayList<>()).add(p.submitted);
    }
    Map<String, long[]> out = new TreeMap<>();
    by.forEach((k, v) -> out.put(k, v.stream().mapToLong(Long::longValue).sorted().toArray()));
    return out;
  }

  /**
   * What an open part is expected to take in all: the mean of the finished parts of its kind that
   * took at least what it has submitted (those finished earlier with fewer say nothing about a part
   * already past them), shrunk towards its own floor max(prior, submitted) weighing
   * {@link #PRIOR_WEIGHT} parts; never below what it has submitted. Without such finished parts
   * (or a kind): max(prior, submitted), the rule before parts learnt from each other.
   */
  static double expected(double prior, long submitted, long[] finishedAscending) {
    double floor = Math.max(prior, submitted);
    if (finishedAscending == null) return floor;
    double sum = 0;
    int n = 0;
    for (int i = finishedAscending.length - 1; i >= 0 && finishedAscending[i] >= submitted; i--) {
      sum += finishedAscending[i];
      n++;
    }
    return Math.max(submitted, (PRIOR_WEIGHT * floor + sum) / (PRIOR_WEIGHT + n));
  }

  private static double expected(Part p, long[] finishedOfKind) {
    return expected(p.expected, p.submitted, finishedOfKind);
  }

  static String duration(double seconds) {
    long s = Math.round(seconds);
    if (s < 60) return s + "s";
    if (s < 3600) return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }

  // ------------------------------------------------------------------ expectations from the search's rules

  /**
   * Simulations the knee search takes on a model curve with its knee at {@code knee}, starting
   * from {@code start} (empty: the search's own round 0): the search's rules applied to TPS within
   * SLO = min(x, knee^2 / x), a single peak falling off alike on both sides in log rate (an
   * assumption: the search only compares values, so any single-peaked curve with the same
   * nearest-sample order gives the same count).
   */
  static int modelPoints(List<Double> start, double reference, double knee) {
    return modelCurve(start, reference, Double.NaN, knee).size();
  }

  /** The warm search's simulations ({@link KneeSearch#next(java.util.NavigableMap, double, double)}) from {@code hint} on the same model curve. */
  static int warmModelPoints(double reference, double hint, double knee) {
    return modelCurve(List.of(), reference, hint, knee).size();
  }

  /** The points the search (warm from {@code hint}, or cold: NaN) samples on the model curve with its knee at {@code knee}. */
  static TreeMap<Double, Double> modelCurve(List<Double> start, double reference, double hint, double knee) {
    TreeMap<Double, Double> c = new TreeMap<>();
    List<Double> next = start.isEmpty() ? KneeSearch.next(c, reference, hint) : start;
    for (int round = 0; round < 100 && !next.isEmpty(); round++) {
      for (double x : next) c.put(x, Math.min(x, knee * knee / x));
      next = KneeSearch.next(c, reference, hint);
    }
    return c;
  }

  /** Knees at {@link #MODEL_KNEES} positions spread evenly in log scale over [low, high]. */
  static final int MODEL_KNEES = 33;

  /**
   * The mean of {@link #modelPoints} over knees spread evenly in log scale from {@code low} to
   * {@code high}: the expected count when the knee is equally likely anywhere in that range.
   */
  static double meanModelPoints(List<Double> start, double reference, double low, double high) {
    double sum = 0;
    for (int i = 0; i < MODEL_KNEES; i++) {
      double knee = low * Math.pow(high / low, i / (double) (MODEL_KNEES - 1));
      sum += modelPoints(start, reference, knee);
    }
    return sum / MODEL_KNEES;
  }

  /**
   * The mean of {@link #warmModelPoints} over knees spread evenly in log scale within a factor
   * {@code spread} of the hint, the hint at the middle of round 0's range (x_ref x 0.35, far from
   * both search bounds, so only the knee's displacement from the hint counts).
   */
  static double meanWarmPoints(double reference, double spread) {
    double hint = KneeSearch.round(0.35 * reference);
    double sum = 0;
    for (int i = 0; i < MODEL_KNEES; i++) {
      double knee = hint / spread * Math.pow(spread * spread, i / (double) (MODEL_KNEES - 1));
      sum += warmModelPoints(reference, hint, knee);
    }
    return sum / MODEL_KNEES;
  }

  /**
   * Expected simulations of one conditions point: one, both routers run each point once at the
   * verdict's operating point ({@link Conditions}).
   */
  public static double conditionPointSimulations() {
    return 1;
  }

  /**
   * Expected refinement points of one curve after the coarse search ({@link KneeSearch#refine} to
   * {@link KneeSearch#FINE_RESOLUTION}): measured, 104 points for the 20 refined curves of the
   * shipped sample audit (5 Dec), 5.2 each; a curve that goes on counts for what it submits.
   */
  public static final double REFINE_POINTS = 5.2;
  /** Expected points of one reference-rate bisection ({@link EqualLoad#referenceTrack}): 28 for 5 curves on the sample, 5.6 each. */
  public static final double REFERENCE_POINTS = 5.6;

  /**
   * The refinement, reference and equal-load simulations expected before the main sweep has
   * picked the routers: per global ratio with an SMetric curve, SMetric, the paper's baselines and
   * the current router refined ({@code refine} only), one judged router bisected, SMetric and the
   * judged router at each of {@link EqualLoad#LOADS} less the judged router's reference point
   * (already a search point), the other compared routers at the decision load.
   * {@code [refine, reference, equal load]}.
   */
  public static double[] equalLoadBefore(List<AuditPlan.Curve> curves, String currentRouter, boolean refine) {
    TreeSet<Double> ratios = new TreeSet<>();
    TreeSet<String> compared = new TreeSet<>();
    for (AuditPlan.Curve c : curves) {
      if (c.policy().equals(io.smetric.audit.replay.policy.Policies.SMETRIC.cliName())) ratios.add(c.globalRatio());
      if (SweepSummary.PAPER_BASELINES.contains(c.policy()) || c.policy().equals(currentRouter)) compared.add(c.policy());
    }
    int g = ratios.size();
    int routers = 1 + compared.size();
    if (compared.isEmpty()) return new double[] {0, 0, 0};
    // SMetric and the judged router at every load (less the judged router's reference point, a
    // search point already), each other compared router at the decision load
    return new double[] {refine ? g * routers * REFINE_POINTS : 0, g * REFERENCE_POINTS,
        g * (2.0 * EqualLoad.LOADS.size() - 1 + (compared.size() - 1))};
  }

  /**
   * The bootstrap replicates expected before the main sweep has picked the routers: SMetric and the
   * judged router at the decision load, at the declared capacity and at 0 ({@link
   * EqualLoad#replicates}); x {@code replicates}. An upper bound: a sweep may lack one of the two.
   */
  public static long replicatesBefore(int replicates, List<AuditPlan.Curve> curves, String currentRouter) {
    TreeSet<Double> ratios = new TreeSet<>();
    boolean baseline = false;
    for (AuditPlan.Curve c : curves) {
      if (c.policy().equals(io.smetric.audit.replay.policy.Policies.SMETRIC.cliName())) ratios.add(c.globalRatio());
      else if (SweepSummary.PAPER_BASELINES.contains(c.policy()) || c.policy().equals(currentRouter)) baseline = true;
    }
    if (!baseline) return 0;
    int capacities = (ratios.contains(0.0) ? 1 : 0) + (ratios.stream().anyMatch(x -> x > 0) ? 1 : 0);
    return (long) replicates * capacities * 2;
  }

  /**
   * The conditions sweep's simulations expected before it is planned: its one-at-a-time points
   * (each parameter's levels but the base, for SMetric and for the judged router unless the
   * parameter is SMetric's own), then a grid over the two parameters with the most levels (an
   * upper bound: the grid takes the two that move the gain most), each point
   * {@link #conditionPointSimulations} simulations. {@code [one-at-a-time, grid]}.
   */
  public static double[] conditionsBefore(ReplaySettings base, List<Conditions.Param> params) {
    int points = 0;
    List<Integer> levelCounts = new ArrayList<>();
    for (Conditions.Param p : params) {
      double b = p.variable().get(base);
      List<Double> range = Conditions.profileRange(base, p.variable());
      TreeSet<Double> lv = new TreeSet<>(range.isEmpty() ? p.levels() : range);
      lv.add(b);
      points += (lv.size() - 1) * (p.smetricOnly() ? 1 : 2);
      levelCounts.add(lv.size() - 1);
    }
    levelCounts.sort((a, c) -> Integer.compare(c, a));
    int grid = levelCounts.size() < 2 ? 0 : 2 * levelCounts.get(0) * levelCounts.get(1);
    double per = conditionPointSimulations();
    return new double[] {points * per, grid * per};
  }
}
