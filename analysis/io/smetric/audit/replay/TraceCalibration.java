package io.smetric.audit.replay;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.replay.calibrate.Calibrator;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import io.smetric.audit.replay.policy.AsRecordedPolicy;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * {@code calibrate TRACE} and {@code audit --profile from-trace}: a profile's step costs fitted to
 * the user's own cluster. The trace must record its routing and measured latencies (trace-model
 * v1.3: {@code served_instance}, {@code ttft_s}, {@code e2e_s}). Its time span is cut in two: the
 * trace is replayed as recorded (every request on its recorded instance at its recorded send time)
 * inside {@link Calibrator}'s Levenberg-Marquardt fit, and the earlier slice's measurements are fitted: binned means of
 * its measured TTFT and end-to-end times (bins of prompt or output length, and of arrival time); the
 * later slice is never fitted, and is compared afterwards, per request, in a replay of the whole
 * trace (so its caches and queues are warm as they were). Fit and held-out errors are kept apart
 * in the profile's validation record. Requests without a measurement are counted, not guessed;
 * aborted and failed requests are left out of the fit and counted.
 */
public final class TraceCalibration {
  private TraceCalibration() {}

  /** The value of --profile that asks the audit to calibrate on the audited trace. */
  public static final String FROM_TRACE = "from-trace";

  /** Default held-out share of the trace's time span: its last 20%. */
  public static final double DEFAULT_HOLD_OUT = 0.2;

  /**
   * Coefficients fitted by default: the step's fixed cost, the prefill per token, the decode per
   * sequence and per context token, and the weight reads' efficiency (a profile with weight figures
   * makes that read the decode step's main cost). The attention pair cost and the front-end latency
   * only by --fit: a recorded trace rarely has the long cold prompts or the idle single requests
   * that tell them from the per-token and fixed costs.
   */
  public static final List<String> DEFAULT_PARAMS = List.of("stepBaseS", "prefillPerTokenS", "decodePerSeqS",
      "decodePerContextTokenS", "hbmEfficiency");

  /**
   * A coefficient whose 1% change moves the binned means by less than 0.01% on RMS (elasticity
   * 0.01: it makes up about 1% of the times or less) is not identified by the trace and keeps its
   * base value. A choice, not a measurement: per-request noise of a real cluster is far larger.
   */
  public static final double MIN_RMS_ELASTICITY = 0.01;

  /** Fewest requests per bin of a binned mean. */
  static final int MIN_PER_BIN = 30;
  static final int MAX_BINS = 10;

  public record Options(double holdOutLast, List<String> params, double maxPointError) {
    public Options {
      if (!(holdOutLast >= 0 && holdOutLast < 1)) {
        throw new UsageException("--hold-out-last must be in [0, 1) (a share of the trace's time span), got " + holdOutLast);
      }
    }

    public static Options defaults() {
      return new Options(DEFAULT_HOLD_OUT, DEFAULT_PARAMS, 0.30);
    }
  }

  /** What the trace records: requests, and how many name their instance or carry a measured TTFT / E2E. */
  public record Columns(long requests, long withInstance, long withTtft, long withE2e) {}

  /** One Spark job over the recorded columns (before any long work). */
  public static Columns scan(SparkSession spark, String dataset) {
    Row r = Canonical.withOptionalColumns(spark.read().parquet(dataset))
        .agg(functions.count(functions.lit(1)), functions.count(Canonical.SERVED_INSTANCE), functions.count(Canonical.TTFT_S),
            functions.count(Canonical.E2E_S))
        .first();
    return new Columns(r.getLong(0), r.getLong(1), r.getLong(2), r.getLong(3));
  }

  /**
   * Refuses a trace that cannot be calibrated on (a usage error: the command asks for what the
   * trace does not have), naming the file and what is missing.
   *
   * @param what the command, for the message ("calibrate TRACE", "--profile from-trace")
   */
  public static void require(Columns c, String label, String what) {
    List<String> missing = new ArrayList<>();
    if (2 * c.withInstance() <= c.requests()) {
      missing.add(String.format(Locale.ROOT, "the instance that served each request (%s: %d of %d requests have it, more than"
          + " half must)", Canonical.SERVED_INSTANCE, c.withInstance(), c.requests()));
    }
    if (c.withTtft() == 0 && c.withE2e() == 0) {
      missing.add("measured latencies (" + Canonical.TTFT_S + " and " + Canonical.E2E_S + ": no request has either)");
    }
    if (!missing.isEmpty()) {
      throw new UsageException(label + ": " + what + " needs a trace with recorded routing and measured latencies"
          + " (trace-model v1.3); missing: " + String.join("; ", missing) + ". Gateway logs that carry them: LiteLLM"
          + " payloads, OpenTelemetry GenAI spans (docs/trace-model.md); without them calibrate a profile from benchmark"
          + " measurements instead (calibrate MEASUREMENTS).");
    }
  }

  /** Errors of one slice, per request, with what was left out. */
  public record SliceError(int requests, int ttftCompared, int e2eCompared, int withoutTtft, int withoutE2e, int notCompleted,
      int measuredZero, TraceValidation.Stat ttft, TraceValidation.Stat e2e, double maxAbs) {}

  /**
   * The calibration: the stamped profile, the fit, the cut, and the errors of both slices (the
   * held-out slice also with the base profile, for comparison).
   *
   * @param hitShare share of the fit slice's prompt tokens the replay served from a cache (base profile)
   * @param simulations replays of the trace (the fit's and its checks')
   */
  public record Result(ModelProfile profile, Calibrator.Result fit, double startS, double cutS, double endS, int fitRequests,
      int heldRequests, int instances, SliceError fitError, SliceError heldError, SliceError heldErrorBase, double hitShare,
      double seconds, int simulations) {}

  /** Per request in replay order: measured TTFT / E2E when it may be compared (completed, measured, > 0), else NaN. */
  private record Usable(double[] ttft, double[] e2e) {}

  private static Usable usable(TraceValidation.Recorded rec) {
    int n = rec.ttft().length;
    double[] t = new double[n];
    double[] e = new double[n];
    for (int r = 0; r < n; r++) {
      String oc = rec.outcome()[r];
      boolean done = oc == null || oc.equals(Canonical.OUTCOME_COMPLETED);
      t[r] = done && rec.ttft()[r] > 0 ? rec.ttft()[r] : Double.NaN;
      e[r] = done && rec.e2e()[r] > 0 ? rec.e2e()[r] : Double.NaN;
    }
    return new Usable(t, e);
  }

  /**
   * Fits and checks.
   *
   * @param base the replay's settings (its profile is the fit's start, its model and GPU facts kept)
   * @param instances the cluster size, or null for the number of distinct recorded instances
   */
  public static Result run(ReplayTrace t, TraceValidation.Recorded rec, ReplaySettings base, Integer instances, Options opt,
      String label) {
    long t0 = System.nanoTime();
    TreeSet<String> names = new TreeSet<>();
    for (String x : rec.instance()) if (x != null) names.add(x);
    if (names.isEmpty()) require(new Columns(t.n, 0, 1, 1), label, "calibrate TRACE");
    int n = instances != null ? instances : names.size();
    if (n < names.size()) {
      throw new UsageException("--instances " + n + ": " + label + " names " + names.size() + " distinct serving instances");
    }
    ReplaySettings s = TraceValidation.asRecordedSettings(base, n);
    int[] inst = TraceValidation.instanceOf(rec);
    double start = t.arrival[0];
    double end = t.arrival[t.n - 1];
    double cut = opt.holdOutLast() == 0 ? Double.POSITIVE_INFINITY : end - opt.holdOutLast() * (end - start);
    int k = 0;
    while (k < t.n && t.arrival[k] < cut) k++;
    Usable u = usable(rec);
    // the whole trace is replayed in the fit, and only the earlier slice's measurements are
    // compared: the later requests' arrivals and routing are load the earlier ones measured (a
    // replay cut at the boundary serves the requests in flight there faster than they were served,
    // and the fit bent the costs to make up for it); the later slice's latencies stay unseen
    TraceProblem pr = new TraceProblem(t, inst, s, u, k, label);
    if (pr.size() == 0) {
      throw new UsageException(String.format(Locale.ROOT, "%s: the fitted slice (arrivals before t = %.1f s, %d requests) has no"
          + " completed request with a measured TTFT or end-to-end time > 0: nothing to fit", label, cut - start, k));
    }
    ModelProfile start0 = s.profile;
    SimOutcome baseEarly = pr.simulate(start0);
    double hit = hitShare(baseEarly, k);
    Calibrator.Options co = new Calibrator.Options(opt.params(), opt.maxPointError(), 400, MeasurementReplay.Options.DEFAULT,
        MIN_RMS_ELASTICITY);
    Calibrator.Result fr = Calibrator.fit(pr, start0, co);
    SimOutcome fitted = pr.simulate(fr.profile());
    SliceError fitErr = errors(fitted, rec, u, 0, k);
    SliceError held = null;
    SliceError heldBase = null;
    if (k < t.n) {
      held = errors(fitted, rec, u, k, t.n);
      heldBase = errors(baseEarly, rec, u, k, t.n);
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    ModelProfile stamped = stamp(fr, s.profile, label, start, cut, end, opt.holdOutLast(), k, t.n - k, fitErr, held, pr.size());
    return new Result(stamped, fr, start, cut, end, k, t.n - k, n, fitErr, held, heldBase, hit, secs, pr.simulations);
  }

  /** Share of the first k requests' prompt tokens served from a local or the global tier. */
  private static double hitShare(SimOutcome o, int k) {
    long hit = 0;
    long all = 0;
    ReplayTrace t = o.trace;
    for (int r = 0; r < k; r++) {
      hit += t.tokensOf(r, o.localHitBlocks[r] + o.globalHitBlocks[r]);
      all += t.input[r];
    }
    return all == 0 ? Double.NaN : (double) hit / all;
  }

  /** Per-request errors (simulated - measured) / measured of requests [from, to) of a replay. */
  static SliceError errors(SimOutcome o, TraceValidation.Recorded rec, Usable u, int from, int to) {
    double[] et = new double[to - from];
    double[] ee = new double[to - from];
    int nt = 0;
    int ne = 0;
    int withoutT = 0;
    int withoutE = 0;
    int notCompleted = 0;
    int zero = 0;
    double max = 0;
    for (int r = from; r < to; r++) {
      String oc = rec.outcome()[r];
      if (oc != null && !oc.equals(Canonical.OUTCOME_COMPLETED)) {
        notCompleted++;
        continue;
      }
      if (Double.isNaN(rec.ttft()[r])) withoutT++;
      else if (!(rec.ttft()[r] > 0)) zero++;
      if (Double.isNaN(rec.e2e()[r])) withoutE++;
      else if (!(rec.e2e()[r] > 0)) zero++;
      if (!Double.isNaN(u.ttft()[r])) {
        et[nt] = (o.ttft(r) - u.ttft()[r]) / u.ttft()[r];
        max = Math.max(max, Math.abs(et[nt++]));
      }
      if (!Double.isNaN(u.e2e()[r]) && Double.isFinite(o.finish[r])) {
        ee[ne] = (o.finish[r] - o.arrival[r] - u.e2e()[r]) / u.e2e()[r];
        max = Math.max(max, Math.abs(ee[ne++]));
      }
    }
    return new SliceError(to - from, nt, ne, withoutT, withoutE, notCompleted, zero, TraceValidation.Stat.of(et, nt),
        TraceValidation.Stat.of(ee, ne), max);
  }

  /**
   * The earlier slice as a fit problem: mean measured TTFT per bin of prompt length, mean measured
   * end-to-end time per bin of output length, and both per bin of arrival order (equal-count bins of at least
   * {@link #MIN_PER_BIN} requests, at most {@link #MAX_BINS}), against the same means of the
   * slice replayed as recorded. Means of many requests, not single requests: a request's simulated
   * time jumps when a 1% cost change moves it into another batch, which a mean smooths for the
   * finite-difference Jacobian; the bins keep the length dependence that tells the per-token costs
   * from the fixed ones.
   */
  static final class TraceProblem implements Calibrator.Problem {
    private final ReplayTrace t;
    private final int[] inst;
    /** The settings of every simulation, less the profile each sets. */
    private final ReplaySettings.Builder s;
    private final String label;
    private final List<int[]> groups = new ArrayList<>();
    private final List<String> ids = new ArrayList<>();
    private final List<String> metrics = new ArrayList<>();
    private final List<Double> measured = new ArrayList<>();

    /** Bins of the measurements of requests [0, k) only. */
    TraceProblem(ReplayTrace t, int[] inst, ReplaySettings s, Usable full, int k, String label) {
      this.t = t;
      this.inst = inst;
      this.s = s.toBuilder();
      this.label = label;
      double[] tt = Arrays.copyOf(full.ttft(), t.n);
      double[] ee = Arrays.copyOf(full.e2e(), t.n);
      Arrays.fill(tt, k, t.n, Double.NaN);
      Arrays.fill(ee, k, t.n, Double.NaN);
      Usable u = new Usable(tt, ee);
      int[] order = new int[t.n];
      for (int r = 0; r < t.n; r++) order[r] = r;
      bins(u.ttft(), t.input, "ttft_mean", "TTFT, prompts", "tokens");
      bins(u.e2e(), t.output, "e2e_mean", "E2E, outputs", "tokens");
      // by arrival time too: the load varies over the trace, and with it the batch and the context
      // a step carries, which is what tells the per-sequence and per-context costs from the fixed one
      bins(u.ttft(), order, "ttft_mean", "TTFT, requests", "in arrival order");
      bins(u.e2e(), order, "e2e_mean", "E2E, requests", "in arrival order");
    }

    private void bins(double[] m, int[] key, String metric, String what, String unit) {
      List<Integer> idx = new ArrayList<>();
      for (int r = 0; r < t.n; r++) if (!Double.isNaN(m[r])) idx.add(r);
      if (idx.isEmpty()) return;
      idx.sort((a, b) -> key[a] != key[b] ? Integer.compare(key[a], key[b]) : Integer.compare(a, b));
      int nb = Math.max(1, Math.min(MAX_BINS, idx.size() / MIN_PER_BIN));
      for (int b = 0; b < nb; b++) {
        int lo = (int) ((long) b * idx.size() / nb);
        int hi = (int) ((long) (b + 1) * idx.size() / nb);
        int[] g = new int[hi - lo];
        double sum = 0;
        for (int i = lo; i < hi; i++) {
          g[i - lo] = idx.get(i);
          sum += m[g[i - lo]];
        }
        groups.add(g);
        ids.add(String.format(Locale.ROOT, "%s %d-%d %s (%d requests)", what, key[g[0]], key[g[g.length - 1]], unit, g.length));
        metrics.add(metric);
        measured.add(sum / g.length);
      }
    }

    int simulations;

    SimOutcome simulate(ModelProfile p) {
      simulations++;
      s.profile = p;
      return new Simulator(t, s.build(), new AsRecordedPolicy(inst)).run();
    }

    @Override
    public int size() {
      return groups.size();
    }

    @Override
    public String id(int j) {
      return ids.get(j);
    }

    @Override
    public String metric(int j) {
      return metrics.get(j);
    }

    @Override
    public double measured(int j) {
      return measured.get(j);
    }

    @Override
    public String source(int j) {
      return label;
    }

    @Override
    public double[] predict(ModelProfile p) {
      SimOutcome o;
      try {
        o = simulate(p);
      } catch (IllegalStateException e) {
        // coefficients the fitter tried on its way (e.g. a weight read at efficiency near 0) that
        // leave requests unfinished: no prediction, which its residual cap penalises
        double[] v = new double[groups.size()];
        Arrays.fill(v, Double.NaN);
        return v;
      }
      double[] v = new double[groups.size()];
      for (int j = 0; j < v.length; j++) {
        boolean ttft = metrics.get(j).equals("ttft_mean");
        double sum = 0;
        for (int r : groups.get(j)) sum += ttft ? o.ttft(r) : o.finish[r] - o.arrival[r];
        v[j] = sum / groups.get(j).length; // not finite when a request never finished: the fitter's residual caps it
      }
      return v;
    }
  }

  /** The fitted profile with its sources and its validation record: fit and held-out slices apart. */
  static ModelProfile stamp(Calibrator.Result fr, ModelProfile base, String label, double start, double cut, double end,
      double holdOut, int fitRequests, int heldRequests, SliceError fit, SliceError held, int points) {
    ModelProfile.Builder p = fr.profile().toBuilder();
    String slice = String.format(Locale.ROOT, "the first %.0f%% of its time span (arrivals before t = %.1f s of %.1f s, %d requests)",
        100 * (1 - holdOut), Math.min(cut, end) - start, end - start, fitRequests);
    String where = "calibrate on " + label + ", " + slice + ", replayed as recorded";
    for (String f : fr.fitted()) {
      double v = Calibrator.get(fr.profile(), f);
      double sd = fr.sigma().getOrDefault(f, Double.NaN);
      Double[] range = Calibrator.twoSigmaRange(fr.profile(), f, v, sd);
      p.sources.put(f, new ModelProfile.Source("fitted", String.format(Locale.ROOT,
          "%s: %d binned means of measured TTFT and end-to-end time, RMS log error %.3f; range = +-2 standard deviations of the fit",
          where, points, fr.rmsError()), range[0], range[1]));
    }
    for (String f : fr.notIdentifiable()) {
      ModelProfile.Source s = p.sources.get(f);
      String was = s == null ? "no source" : s.kind + ": " + s.ref;
      p.sources.put(f, new ModelProfile.Source(s == null ? "assumption" : s.kind, was + " (kept from " + base.name + ": " + label
          + " does not identify it, a 1% change moves its binned means by less than " + MIN_RMS_ELASTICITY + "% on RMS)",
          s == null ? null : s.low, s == null ? null : s.high));
    }
    ModelProfile.Validation.Builder v = new ModelProfile.Validation.Builder();
    v.data = List.of(label);
    v.heldOut = heldRequests == 0 ? null : List.of(String.format(Locale.ROOT,
        "arrivals from t = %.1f s: the last %.0f%% of the trace's time span (%d requests)", cut - start, 100 * holdOut, heldRequests));
    v.checks = new ArrayList<>();
    v.checks.add(check(ModelProfile.Check.FIT, "in-sample: the requests of " + slice + ", replayed as recorded; their binned"
        + " mean TTFT and end-to-end times were fitted (errors here per request); a small error shows the step-cost formula"
        + " can follow them, not that it predicts other traffic", fit));
    if (held != null) {
      v.checks.add(check(ModelProfile.Check.HELD_OUT, String.format(Locale.ROOT, "the trace's last %.0f%% (arrivals from t ="
          + " %.1f s), never seen by the fit, replayed as recorded after the earlier part (caches and queues warm): the"
          + " validation on this cluster's own later traffic; errors per request", 100 * holdOut, cut - start), held));
    }
    List<String> parts = new ArrayList<>();
    parts.add("fitted on " + label + " (" + slice + "): in-sample " + describe(fit));
    parts.add(held == null ? "held-out slice: none (--hold-out-last 0)" : "held-out last " + Math.round(100 * holdOut)
        + "% of the time span " + describe(held));
    v.summary = String.join("; ", parts);
    ModelProfile.Check h = v.build().check(ModelProfile.Check.HELD_OUT);
    if (h != null) {
      v.heldOutPoints = h.points;
      v.e2eMedianAbsError = h.e2eMedianAbsError;
      v.ttftMedianAbsError = h.ttftMedianAbsError;
    }
    p.validation = v.build();
    return p.build();
  }

  private static ModelProfile.Check check(String kind, String meaning, SliceError e) {
    ModelProfile.Check.Builder c = new ModelProfile.Check.Builder();
    c.kind = kind;
    c.meaning = meaning;
    c.measurements = e.requests();
    c.points = e.ttftCompared() + e.e2eCompared();
    c.ttftMedianAbsError = nullIfNaN(e.ttft().medianAbs());
    c.ttftP90AbsError = nullIfNaN(e.ttft().p90Abs());
    c.e2eMedianAbsError = nullIfNaN(e.e2e().medianAbs());
    c.e2eP90AbsError = nullIfNaN(e.e2e().p90Abs());
    c.maxAbsError = c.points == 0 ? null : e.maxAbs();
    return c.build();
  }

  /** "median |error| TTFT 1.2%, E2E 0.8%; p90 TTFT 3.4%, E2E 2.0% (812 TTFT, 812 E2E requests)" */
  public static String describe(SliceError e) {
    return String.format(Locale.ROOT, "median |error| TTFT %s, E2E %s; p90 TTFT %s, E2E %s (%d TTFT, %d E2E requests)",
        pct(e.ttft().medianAbs()), pct(e.e2e().medianAbs()), pct(e.ttft().p90Abs()), pct(e.e2e().p90Abs()), e.ttftCompared(),
        e.e2eCompared());
  }

  private static String pct(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }

  private static Double nullIfNaN(double v) {
    return Double.isNaN(v) ? null : v;
  }
}
