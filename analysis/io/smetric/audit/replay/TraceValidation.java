package io.smetric.audit.replay;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.replay.policy.AsRecordedPolicy;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * {@code validate TRACE}: the replay checked against the user's own cluster. A trace with recorded
 * routing (trace-model v1.3) is replayed with the policy {@code as-recorded} (every request on the
 * instance that served it, {@link AsRecordedPolicy}), open loop at the recorded send times, and each
 * request's simulated TTFT and end-to-end time is compared with the measured one. The error of a
 * request is (simulated - measured) / measured; the summary gives its median (the bias) and the
 * median and 90th percentile of its absolute value, overall, by load decile and by cache hit or
 * miss. Requests without a measurement, with a measurement of 0 s, or not completed (aborted,
 * error) are counted and left out of the errors, never guessed.
 */
public final class TraceValidation {
  private TraceValidation() {}

  /** The policy name the replay of recorded routing goes by. */
  public static final String AS_RECORDED = "as-recorded";

  /** Per request in replay order: the recorded fields (null / NaN where absent). */
  public record Recorded(String[] instance, double[] ttft, double[] e2e, String[] outcome) {
    public int withInstance() {
      int k = 0;
      for (String s : instance) if (s != null) k++;
      return k;
    }
  }

  /** A trace loaded for validation: the replay trace and its recorded columns in replay order. */
  public record Loaded(ReplayTrace trace, Recorded recorded) {}

  /**
   * Loads {@code trace} (a canonical dataset, an ingest or record-trace folder) with its recorded
   * columns. A dataset in replay order with the full canonical schema (what ingest and {@code
   * replay --record-trace} write) is read once, in the driver, recorded columns included; any other
   * takes the trace loader's Spark path and then {@link #read}: the same values either way.
   */
  public static Loaded load(SparkSession spark, String trace) {
    io.smetric.audit.replay.trace.TraceLoader.WithRecorded w =
        io.smetric.audit.replay.trace.TraceLoader.loadWithRecorded(spark, trace, false);
    if (w.recorded() != null) {
      var r = w.recorded();
      return new Loaded(w.trace(), new Recorded(r.servedInstance(), r.ttft(), r.e2e(), r.outcome()));
    }
    String dataset = io.smetric.audit.replay.trace.TraceLoader.datasetPath(spark, trace);
    return new Loaded(w.trace(), read(spark, dataset, w.trace()));
  }

  /** Reads the recorded columns of a canonical dataset, aligned with the trace's replay order. */
  public static Recorded read(SparkSession spark, String datasetDir, ReplayTrace t) {
    Dataset<Row> d = Canonical.withOptionalColumns(spark.read().parquet(datasetDir))
        .select(functions.col(Canonical.REQUEST_ID), functions.col(Canonical.SERVED_INSTANCE),
            functions.col(Canonical.TTFT_S), functions.col(Canonical.E2E_S), functions.col(Canonical.OUTCOME))
        .filter(functions.col(Canonical.SERVED_INSTANCE).isNotNull().or(functions.col(Canonical.TTFT_S).isNotNull())
            .or(functions.col(Canonical.E2E_S).isNotNull()).or(functions.col(Canonical.OUTCOME).isNotNull()));
    Map<String, Integer> index = new HashMap<>(t.n * 2);
    for (int r = 0; r < t.n; r++) index.put(t.requestIds[r], r);
    String[] inst = new String[t.n];
    double[] ttft = new double[t.n];
    double[] e2e = new double[t.n];
    String[] outcome = new String[t.n];
    Arrays.fill(ttft, Double.NaN);
    Arrays.fill(e2e, Double.NaN);
    for (java.util.Iterator<Row> it = d.toLocalIterator(); it.hasNext();) {
      Row x = it.next();
      Integer r = index.get(x.getString(0));
      if (r == null) continue; // not in the replay (cannot happen for a dataset the trace was loaded from)
      inst[r] = x.isNullAt(1) ? null : x.getString(1);
      if (!x.isNullAt(2)) ttft[r] = x.getDouble(2);
      if (!x.isNullAt(3)) e2e[r] = x.getDouble(3);
      outcome[r] = x.isNullAt(4) ? null : x.getString(4);
    }
    return new Recorded(inst, ttft, e2e, outcome);
  }

  /** Error statistics of one group of requests (fractions; NaN when the group is empty). */
  public record Stat(int n, double median, double medianAbs, double p90Abs) {
    public static Stat of(double[] err, int n) {
      if (n == 0) return new Stat(0, Double.NaN, Double.NaN, Double.NaN);
      double[] e = Arrays.copyOf(err, n);
      double[] a = new double[n];
      for (int i = 0; i < n; i++) a[i] = Math.abs(e[i]);
      Arrays.sort(e);
      Arrays.sort(a);
      return new Stat(n, rank(e, 0.5), rank(a, 0.5), rank(a, 0.9));
    }

    /** Nearest rank, the contract's unweighted percentile: sorted[ceil(q n) - 1]. */
    private static double rank(double[] sorted, double q) {
      return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
    }

    ObjectNode json() {
      ObjectNode o = Json.object();
      o.put("requests", n);
      put(o, "median_error", median);
      put(o, "median_abs_error", medianAbs);
      put(o, "p90_abs_error", p90Abs);
      return o;
    }
  }

  /** The result: counts, the instances, the errors, and validation.json. */
  public record Result(int requests, List<String> instanceNames, int instances, int fallbackRouted, int ttftCompared,
      int e2eCompared, int withoutTtft, int withoutE2e, int notCompleted, int zeroMeasured, Stat ttft, Stat e2e,
      Stat[] ttftByDecile, Stat[] e2eByDecile, double[][] decileLoad, Stat ttftHit, Stat ttftMiss, Stat e2eHit,
      Stat e2eMiss, SimOutcome outcome, ObjectNode json) {
    /** Per load decile (columns): the TTFT median error, TTFT p90 |error|, end-to-end median error and p90 |error| (rows). */
    public double[][] errorsByLoadDecile() {
      double[][] m = new double[4][ttftByDecile.length];
      for (int d = 0; d < ttftByDecile.length; d++) {
        m[0][d] = ttftByDecile[d].median();
        m[1][d] = ttftByDecile[d].p90Abs();
        m[2][d] = e2eByDecile[d].median();
        m[3][d] = e2eByDecile[d].p90Abs();
      }
      return m;
    }
  }

  /**
   * Replays {@code t} as recorded and compares.
   *
   * @param instances the cluster size, or null for the number of distinct recorded instances
   */
  public static Result run(ReplayTrace t, Recorded rec, ReplaySettings base, Integer instances, String traceLabel) {
    TreeSet<String> names = new TreeSet<>();
    for (String s : rec.instance()) if (s != null) names.add(s);
    if (names.isEmpty()) {
      throw new BadInputException(traceLabel, -1, Canonical.SERVED_INSTANCE, "no request records the instance that served it: nothing to replay as recorded");
    }
    int n = instances != null ? instances : names.size();
    if (n < names.size()) {
      throw new BadInputException(traceLabel, -1, Canonical.SERVED_INSTANCE,
          "the trace names " + names.size() + " distinct instances, more than --instances " + n);
    }
    List<String> list = new ArrayList<>(names);
    int[] instanceOf = instanceOf(rec);
    int fallback = 0;
    for (int r = 0; r < t.n; r++) if (instanceOf[r] < 0) fallback++;
    ReplaySettings s = asRecordedSettings(base, n);
    SimOutcome o = new Simulator(t, s, new AsRecordedPolicy(instanceOf)).run();

    double[] load = measuredLoad(t, rec, n);
    double[] et = new double[t.n];
    double[] ee = new double[t.n];
    int[] rt = new int[t.n];
    int[] re = new int[t.n];
    int nt = 0;
    int ne = 0;
    int withoutT = 0;
    int withoutE = 0;
    int notCompleted = 0;
    int zero = 0;
    for (int r = 0; r < t.n; r++) {
      String oc = rec.outcome()[r];
      boolean measuredAny = !Double.isNaN(rec.ttft()[r]) || !Double.isNaN(rec.e2e()[r]);
      if (oc != null && !oc.equals(Canonical.OUTCOME_COMPLETED)) {
        if (measuredAny) notCompleted++;
        continue;
      }
      double mt = rec.ttft()[r];
      if (Double.isNaN(mt)) withoutT++;
      else if (mt <= 0) zero++;
      else {
        et[nt] = (o.ttft(r) - mt) / mt;
        rt[nt++] = r;
      }
      double me = rec.e2e()[r];
      if (Double.isNaN(me)) withoutE++;
      else if (me <= 0) zero++;
      else if (Double.isFinite(o.finish[r])) {
        ee[ne] = (o.finish[r] - o.arrival[r] - me) / me;
        re[ne++] = r;
      }
    }
    Stat st = Stat.of(et, nt);
    Stat se = Stat.of(ee, ne);
    // load deciles over the requests with any comparison, by their measured in-flight load
    int[] comparedIdx = union(rt, nt, re, ne);
    Integer[] byLoad = new Integer[comparedIdx.length];
    for (int i = 0; i < byLoad.length; i++) byLoad[i] = comparedIdx[i];
    Arrays.sort(byLoad, (a, b) -> a.equals(b) ? 0 : load[a] != load[b] ? Double.compare(load[a], load[b]) : Integer.compare(a, b));
    int[] decile = new int[t.n];
    Arrays.fill(decile, -1);
    double[][] decileLoad = new double[10][2];
    for (double[] x : decileLoad) {
      x[0] = Double.NaN;
      x[1] = Double.NaN;
    }
    for (int k = 0; k < byLoad.length; k++) {
      int d = (int) Math.min(9, (10L * k) / byLoad.length);
      int r = byLoad[k];
      decile[r] = d;
      if (Double.isNaN(decileLoad[d][0])) decileLoad[d][0] = load[r];
      decileLoad[d][1] = load[r];
    }
    Stat[] td = new Stat[10];
    Stat[] tdE = new Stat[10];
    for (int d = 0; d < 10; d++) {
      final int dd = d;
      td[d] = group(et, rt, nt, r -> decile[r] == dd);
      tdE[d] = group(ee, re, ne, r -> decile[r] == dd);
    }
    java.util.function.IntPredicate hit = r -> o.localHitBlocks[r] + o.globalHitBlocks[r] > 0;
    Stat th = group(et, rt, nt, hit);
    Stat tm = group(et, rt, nt, hit.negate());
    Stat eh = group(ee, re, ne, hit);
    Stat em = group(ee, re, ne, hit.negate());

    ObjectNode j = Json.object();
    j.put("trace", traceLabel);
    j.put("policy", AS_RECORDED);
    j.put("profile", s.profile.name);
    j.put("requests", t.n);
    ObjectNode inst = j.putObject("instances");
    inst.put("simulated", n);
    inst.put("recorded_distinct", names.size());
    ArrayNode nm = inst.putArray("names");
    for (int i = 0; i < Math.min(64, list.size()); i++) nm.add(list.get(i));
    inst.put("names_listed", Math.min(64, list.size()));
    inst.put("requests_without_instance_routed_least_load", fallback);
    ObjectNode cnt = j.putObject("counted");
    cnt.put("ttft_compared", nt);
    cnt.put("e2e_compared", ne);
    cnt.put("without_ttft", withoutT);
    cnt.put("without_e2e", withoutE);
    cnt.put("not_completed", notCompleted);
    cnt.put("measured_zero", zero);
    j.put("error", "(simulated - measured) / measured, per request; median = bias, abs = its magnitude");
    j.set("ttft", st.json());
    j.set("e2e", se.json());
    ArrayNode dec = j.putArray("by_load_decile");
    for (int d = 0; d < 10; d++) {
      ObjectNode x = dec.addObject();
      x.put("decile", d + 1);
      put(x, "load_min", decileLoad[d][0]);
      put(x, "load_max", decileLoad[d][1]);
      x.set("ttft", td[d].json());
      x.set("e2e", tdE[d].json());
    }
    j.put("load", "measured requests in flight per instance at the request's arrival (requests with a measured end-to-end time)");
    ObjectNode cache = j.putObject("by_cache");
    cache.put("rule", "hit = the simulation found at least one prompt block in a local or the global tier");
    ObjectNode ch = cache.putObject("hit");
    ch.set("ttft", th.json());
    ch.set("e2e", eh.json());
    ObjectNode cm = cache.putObject("miss");
    cm.set("ttft", tm.json());
    cm.set("e2e", em.json());
    return new Result(t.n, list, n, fallback, nt, ne, withoutT, withoutE, notCompleted, zero, st, se, td, tdE,
        decileLoad, th, tm, eh, em, o, j);
  }

  /** Per request: its recorded instance numbered by the sorted distinct names, or -1 when not recorded. */

  /**
   * The settings of a replay of recorded routing on {@code n} instances: the recorded arrivals are
   * when each request was sent, so they are replayed as they are (no rate scaling, follow-ups not
   * held back for their previous turn). validate, calibrate and shadow routing replay alike.
   */
  public static ReplaySettings asRecordedSettings(ReplaySettings base, int n) {
    ReplaySettings s = base.with(b -> {
      b.instances = n;
      b.rateScale = 1.0;
      b.rateScaling = ReplaySettings.RateScaling.UNIFORM;
      b.followUpsWaitForPrevious = false;
    });
    s.validate(io.smetric.audit.replay.policy.Policies::checkConfigs);
    return s;
  }
  public static int[] instanceOf(Recorded rec) {
    TreeSet<String> names = new TreeSet<>();
    for (String x : rec.instance()) if (x != null) names.add(x);
    Map<String, Integer> id = new HashMap<>();
    for (String x : names) id.put(x, id.size());
    int[] out = new int[rec.instance().length];
    for (int r = 0; r < out.length; r++) out[r] = rec.instance()[r] == null ? -1 : id.get(rec.instance()[r]);
    return out;
  }

  private static Stat group(double[] err, int[] req, int n, java.util.function.IntPredicate in) {
    double[] x = new double[n];
    int k = 0;
    for (int i = 0; i < n; i++) if (in.test(req[i])) x[k++] = err[i];
    return Stat.of(x, k);
  }

  private static int[] union(int[] a, int na, int[] b, int nb) {
    java.util.BitSet s = new java.util.BitSet();
    for (int i = 0; i < na; i++) s.set(a[i]);
    for (int i = 0; i < nb; i++) s.set(b[i]);
    return s.stream().toArray();
  }

  /**
   * Measured load at each request's arrival: requests in flight on the cluster (arrived, not yet
   * finished by their measured end-to-end time) per instance. Only requests with a measured e2e
   * count; the request itself is not counted.
   */
  static double[] measuredLoad(ReplayTrace t, Recorded rec, int instances) {
    int m = 0;
    double[] ends = new double[t.n];
    for (int r = 0; r < t.n; r++) if (!Double.isNaN(rec.e2e()[r])) ends[m++] = t.arrival[r] + rec.e2e()[r];
    double[] e = Arrays.copyOf(ends, m);
    Arrays.sort(e);
    double[] out = new double[t.n];
    int started = 0; // measured requests arrived strictly before r (the trace is in arrival order)
    int ended = 0;
    for (int r = 0; r < t.n; r++) {
      while (ended < m && e[ended] <= t.arrival[r]) ended++;
      out[r] = (double) (started - ended) / instances;
      if (!Double.isNaN(rec.e2e()[r])) started++;
    }
    return out;
  }

  private static void put(ObjectNode o, String k, double v) {
    if (Double.isNaN(v)) o.putNull(k);
    else o.put(k, v);
  }
}
