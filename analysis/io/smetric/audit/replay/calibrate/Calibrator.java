package io.smetric.audit.replay.calibrate;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.commons.math3.exception.ConvergenceException;
import org.apache.commons.math3.exception.TooManyEvaluationsException;
import org.apache.commons.math3.exception.TooManyIterationsException;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresBuilder;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresOptimizer;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresProblem;
import org.apache.commons.math3.fitting.leastsquares.LevenbergMarquardtOptimizer;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.linear.SingularValueDecomposition;
import org.apache.commons.math3.util.Pair;

/**
 * Fits a profile's step-cost coefficients to real measurements, with the replay itself in the
 * loop: every residual is ln(what the replay predicts for a measured number / the number), and
 * Apache Commons Math's Levenberg-Marquardt minimises their squares over the chosen coefficients
 * (each in units of its starting value, kept within its physical bounds), with a forward-difference
 * Jacobian. Coefficients the measurements cannot move (a column of the Jacobian near zero) keep
 * their base value and are reported as not identifiable. A fit that does not converge, or after
 * which a point is still off by more than {@link Options#maxPointError}, is an error.
 */
public final class Calibrator {
  private Calibrator() {}

  /** Profile fields the fitter can move, in the order they are reported. */
  public static final List<String> FITTABLE = List.of("stepBaseS", "prefillPerTokenS", "prefillAttentionPerPairS",
      "decodePerSeqS", "decodePerContextTokenS", "hbmEfficiency", "frontendLatencyS");

  /**
   * @param minRmsElasticity a coefficient whose 1% change moves the compared numbers by less than
   *     this many % on RMS is not identifiable (kept from the base); NaN = the measurement sets'
   *     rule, a Jacobian column of norm below 1e-3
   */
  public record Options(List<String> params, double maxPointError, int maxEvaluations, MeasurementReplay.Options replay,
      double minRmsElasticity) {
    public Options(List<String> params, double maxPointError, int maxEvaluations, MeasurementReplay.Options replay) {
      this(params, maxPointError, maxEvaluations, replay, Double.NaN);
    }

    public static Options defaults(List<String> params) {
      return new Options(params, 0.30, 400, MeasurementReplay.Options.DEFAULT);
    }
  }

  /**
   * What a fit compares: measured numbers and what a profile predicts for each. Measurement sets
   * are one ({@link #fit(List, ModelProfile, Options)}); a recorded trace replayed as recorded is
   * another (TraceCalibration).
   */
  public interface Problem {
    int size();

    String id(int j);

    String metric(int j);

    double measured(int j);

    /** Where number j came from, for error messages. */
    String source(int j);

    /** The profile's prediction of every number, in order. */
    double[] predict(ModelProfile p);
  }

  /** The measurement sets as a {@link Problem}. */
  private static Problem problem(List<Measurement> ms, MeasurementReplay.Options o) {
    List<Target> ts = targets(ms);
    return new Problem() {
      public int size() {
        return ts.size();
      }

      public String id(int j) {
        return ms.get(ts.get(j).measurement()).id();
      }

      public String metric(int j) {
        return ts.get(j).metric();
      }

      public double measured(int j) {
        return ts.get(j).measured();
      }

      public String source(int j) {
        return ms.get(ts.get(j).measurement()).source();
      }

      public double[] predict(ModelProfile p) {
        return Calibrator.predict(ms, ts, p, o);
      }
    };
  }

  /** One compared number: measured, what the profile gives, relative error (modelled / measured - 1). */
  public record PointFit(String id, String metric, double measured, double modelled) {
    public double error() {
      return modelled / measured - 1;
    }
  }

  /**
   * @param start the profile the fit started from: the given one with the initial guess in place of
   *     each fitted coefficient that was 0 (a fit scales from the start, so it cannot start at 0)
   * @param sigma per fitted field, its standard deviation (from the fit's covariance), in the field's unit
   */
  public record Result(ModelProfile profile, ModelProfile start, List<PointFit> points, List<String> fitted, List<String> notIdentifiable,
      Map<String, Double> sigma, int evaluations, int iterations, double rmsError) {}

  /** A number a measurement reports and the replay can predict. */
  private record Target(int measurement, String metric, double measured) {}

  /** The compared numbers of a measurement: means of TTFT, TPOT and E2E (single requests: what they report). */
  static List<Target> targets(List<Measurement> ms) {
    List<Target> out = new ArrayList<>();
    for (int k = 0; k < ms.size(); k++) {
      Metrics m = ms.get(k).measured();
      if (ms.get(k).kind() == Kind.STEP) {
        out.add(new Target(k, "step_s", ms.get(k).step().stepS()));
        continue;
      }
      if (m.ttft().hasMean()) out.add(new Target(k, "ttft_mean", m.ttft().mean()));
      if (m.tpot().hasMean()) out.add(new Target(k, "tpot_mean", m.tpot().mean()));
      if (m.e2e().hasMean()) out.add(new Target(k, "e2e_mean", m.e2e().mean()));
    }
    return out;
  }

  /** What the profile gives for every measurement's compared numbers. */
  public static List<PointFit> evaluate(List<Measurement> ms, ModelProfile p, MeasurementReplay.Options o) {
    return evaluate(problem(ms, o), p);
  }

  /** What the profile gives for every number of the problem. */
  public static List<PointFit> evaluate(Problem pr, ModelProfile p) {
    double[] v = pr.predict(p);
    List<PointFit> out = new ArrayList<>();
    for (int j = 0; j < pr.size(); j++) out.add(new PointFit(pr.id(j), pr.metric(j), pr.measured(j), v[j]));
    return out;
  }

  private static double[] predict(List<Measurement> ms, List<Target> ts, ModelProfile p, MeasurementReplay.Options o) {
    Metrics[] pred = new Metrics[ms.size()];
    double[] step = new double[ms.size()];
    IntStream.range(0, ms.size()).parallel().forEach(k -> {
      Measurement m = ms.get(k);
      if (m.kind() == Kind.STEP) {
        StepTiming st = m.step();
        step[k] = p.stepS(st.prefillTokens(), st.prefillPairs(), st.decodeSeqs(), st.decodeContextTokens(), 0);
      } else {
        pred[k] = MeasurementReplay.replay(m, p, o).metrics();
      }
    });
    double[] v = new double[ts.size()];
    for (int j = 0; j < ts.size(); j++) {
      Target t = ts.get(j);
      Metrics m = pred[t.measurement()];
      v[j] = switch (t.metric()) {
        case "step_s" -> step[t.measurement()];
        case "ttft_mean" -> m.ttft().mean();
        case "tpot_mean" -> m.tpot().mean();
        case "e2e_mean" -> m.e2e().mean();
        default -> throw new IllegalStateException(t.metric());
      };
    }
    return v;
  }

  public static Result fit(List<Measurement> ms, ModelProfile base, Options opt) {
    return fit(problem(ms, opt.replay()), base, opt);
  }

  public static Result fit(Problem pr, ModelProfile from, Options opt) {
    for (String f : opt.params()) {
      if (!FITTABLE.contains(f)) throw new UsageException("cannot fit '" + f + "' (fittable: " + String.join(", ", FITTABLE) + ")");
    }
    if (pr.size() == 0) throw new BadInputException("calibrate", "no measured number to fit to (TTFT, TPOT, E2E or step times)");
    double[] measured = new double[pr.size()];
    for (int j = 0; j < measured.length; j++) {
      measured[j] = pr.measured(j);
      if (!(measured[j] > 0) || !Double.isFinite(measured[j])) {
        throw new BadInputException(pr.source(j), pr.id(j) + ": " + pr.metric(j) + " = " + measured[j]
            + " cannot be fitted (must be a positive number)");
      }
    }
    // which coefficients the measurements move at all (Jacobian columns at the base profile)
    List<String> params = new ArrayList<>();
    List<String> notIdentifiable = new ArrayList<>();
    // the start with a guess in place of each coefficient at 0, which the fit cannot scale from
    ModelProfile guessed = from;
    double[] at0 = pr.predict(guessed);
    for (String f : opt.params()) {
      if (get(guessed, f) <= 0) guessed = with(guessed, f, initialGuess(f));
      ModelProfile q = with(guessed, f, get(guessed, f) * (1 + H));
      double[] v = pr.predict(q);
      double norm = 0;
      for (int j = 0; j < v.length; j++) norm += sq((v[j] - at0[j]) / measured[j] / H);
      boolean moves = Double.isNaN(opt.minRmsElasticity()) ? Math.sqrt(norm) >= 1e-3
          : Math.sqrt(norm / v.length) >= opt.minRmsElasticity();
      if (moves) params.add(f);
      else notIdentifiable.add(f);
    }
    if (params.isEmpty()) throw new BadInputException("calibrate", "none of " + opt.params() + " changes any measured number: nothing to fit");
    ModelProfile base = guessed;
    int np = params.size();
    // each coefficient in units of its starting value (a scaled, linear parameterisation: additive
    // terms such as a latency may well belong at 0, which a logarithm could never reach)
    double[] scale = new double[np];
    for (int i = 0; i < np; i++) scale[i] = get(base, params.get(i));
    double[] start = new double[np];
    java.util.Arrays.fill(start, 1.0);
    double[] lo = new double[np];
    double[] hi = new double[np];
    for (int i = 0; i < np; i++) {
      lo[i] = floor(base, params.get(i)) / scale[i];
      hi[i] = ceiling(params.get(i)) / scale[i];
      start[i] = Math.max(lo[i], Math.min(hi[i], start[i]));
    }
    int[] evals = {0};
    LeastSquaresProblem problem = new LeastSquaresBuilder()
        .start(start)
        .target(new double[pr.size()])
        .model(point -> {
          evals[0]++;
          double[] theta = point.toArray();
          double[] r0 = residuals(pr, measured, withParams(base, params, scale, theta));
          double[][] jac = new double[r0.length][np];
          for (int i = 0; i < np; i++) {
            double[] th = theta.clone();
            th[i] += H;
            double[] ri = residuals(pr, measured, withParams(base, params, scale, th));
            for (int j = 0; j < r0.length; j++) jac[j][i] = (ri[j] - r0[j]) / H;
          }
          return new Pair<RealVector, RealMatrix>(new ArrayRealVector(r0, false), new Array2DRowRealMatrix(jac, false));
        })
        .parameterValidator(v -> { // coefficients stay within their physical bounds
          double[] a = v.toArray();
          for (int i = 0; i < a.length; i++) a[i] = Math.max(lo[i], Math.min(hi[i], a[i]));
          return new ArrayRealVector(a, false);
        })
        .maxEvaluations(opt.maxEvaluations())
        .maxIterations(opt.maxEvaluations())
        .build();
    LeastSquaresOptimizer.Optimum opt0;
    try {
      // tolerances for a simulated objective: a 1e-6 relative cost change or a 0.1% parameter step
      // is convergence (the defaults, 1e-10, chase rounding along flat directions forever)
      opt0 = new LevenbergMarquardtOptimizer()
          .withCostRelativeTolerance(1e-6)
          .withParameterRelativeTolerance(1e-3)
          .optimize(problem);
    } catch (TooManyEvaluationsException | TooManyIterationsException | ConvergenceException e) {
      throw new BadInputException("calibrate", "the fit of " + params + " did not converge within " + opt.maxEvaluations()
          + " evaluations (" + e.getMessage() + "); the model cannot follow these measurements: check that they"
          + " belong to one model, GPU and engine (--group), or fit fewer coefficients (--fit)");
    }
    double[] theta = opt0.getPoint().toArray();
    ModelProfile fitted = withParams(base, params, scale, theta);
    Map<String, Double> sigma = sigmas(opt0, params, pr.size());
    for (int i = 0; i < np; i++) sigma.put(params.get(i), sigma.get(params.get(i)) * scale[i]);
    List<PointFit> points = evaluate(pr, fitted);
    double sum = 0;
    List<String> bad = new ArrayList<>();
    for (PointFit pf : points) {
      sum += sq(pf.error());
      if (Math.abs(pf.error()) > opt.maxPointError()) {
        bad.add(String.format(Locale.ROOT, "%s %s: measured %.4g, modelled %.4g (%+.1f%%)", pf.id(), pf.metric(),
            pf.measured(), pf.modelled(), 100 * pf.error()));
      }
    }
    Result res = new Result(fitted, base, points, params, notIdentifiable, sigma, evals[0], opt0.getIterations(),
        Math.sqrt(sum / points.size()));
    if (!bad.isEmpty()) {
      throw new FitRejected(res, "after fitting " + params + ", " + bad.size() + " point(s) are off by more than "
          + Math.round(100 * opt.maxPointError()) + "% (--max-point-error): " + String.join("; ", bad)
          + ". The step-cost model does not follow them: they may come from another model, GPU or engine"
          + " setting, or measure something the replay does not model.");
    }
    return res;
  }

  /**
   * Standard deviations of the fitted log-coefficients: sqrt of the diagonal of s^2 (J^T J)^-1,
   * s^2 = the residuals' sum of squares / (points - coefficients), the inverse by SVD (a pseudo
   * inverse when two coefficients trade off; NaN when there are no degrees of freedom left).
   */
  private static Map<String, Double> sigmas(LeastSquaresOptimizer.Optimum o, List<String> params, int points) {
    Map<String, Double> sigma = new LinkedHashMap<>();
    int dof = points - params.size();
    RealMatrix j = o.getJacobian();
    RealMatrix cov = new SingularValueDecomposition(j.transpose().multiply(j)).getSolver().getInverse();
    double s2 = dof > 0 ? o.getCost() * o.getCost() / dof : Double.NaN;
    for (int i = 0; i < params.size(); i++) sigma.put(params.get(i), Math.sqrt(Math.max(0, cov.getEntry(i, i)) * s2));
    return sigma;
  }

  /** A fit that converged but leaves points outside the bound (bad input, exit 3); carries the fit for the report. */
  public static final class FitRejected extends BadInputException {
    private static final long serialVersionUID = 1L;
    public final transient Result result;

    FitRejected(Result result, String message) {
      super("calibrate", message);
      this.result = result;
    }
  }

  /** Step of the forward-difference Jacobian, in units of the start (1%: smooths the replay's event-order noise). */
  private static final double H = 0.01;

  private static double[] residuals(Problem pr, double[] measured, ModelProfile p) {
    double[] v = pr.predict(p);
    double[] r = new double[v.length];
    // log ratios: symmetric, and a start point that overloads the replay (errors of 100x) does
    // not swamp the fit the way relative errors would
    for (int j = 0; j < v.length; j++) r[j] = v[j] > 0 && Double.isFinite(v[j]) ? Math.log(v[j] / measured[j]) : 10;
    return r;
  }

  private static ModelProfile withParams(ModelProfile base, List<String> params, double[] scale, double[] theta) {
    ModelProfile.Builder p = base.toBuilder();
    for (int i = 0; i < params.size(); i++) set(p, params.get(i), scale[i] * theta[i]);
    return p.build();
  }
  /**
   * A fitted coefficient's range as its source records it: +-2 standard deviations of the fit,
   * clipped to the coefficient's floor and ceiling; {null, null} when the fit gave no deviation.
   */
  public static Double[] twoSigmaRange(ModelProfile p, String f, double v, double sd) {
    if (!Double.isFinite(sd)) return new Double[] {null, null};
    return new Double[] {Math.max(floor(p, f), v - 2 * sd), Math.min(ceiling(f), v + 2 * sd)};
  }


  /**
   * The least a coefficient can physically be: 0, except the decode cost of a context token, which
   * reads that token's KV (kvBytesPerToken) at no more than the HBM's peak bandwidth.
   */
  public static double floor(ModelProfile p, String f) {
    if (f.equals("decodePerContextTokenS") && p.hbmGBps > 0) return p.kvBytesPerToken / (p.hbmGBps * 1e9);
    return 0;
  }

  /** The most: no read beats the HBM's peak (efficiency 1); anything else within 1000 s. */
  public static double ceiling(String f) {
    return f.equals("hbmEfficiency") ? 1.0 : 1e3;
  }

  private static double initialGuess(String f) {
    return switch (f) {
      case "stepBaseS" -> 5e-3;
      case "prefillPerTokenS" -> 5e-5;
      case "prefillAttentionPerPairS" -> 1e-9;
      case "decodePerSeqS" -> 1e-5;
      case "decodePerContextTokenS" -> 1e-8;
      case "hbmEfficiency" -> 0.8;
      case "frontendLatencyS" -> 5e-3;
      default -> throw new IllegalArgumentException(f);
    };
  }

  /** The value of a fittable coefficient. */
  public static double get(ModelProfile p, String f) {
    return switch (f) {
      case "stepBaseS" -> p.stepBaseS;
      case "prefillPerTokenS" -> p.prefillPerTokenS;
      case "prefillAttentionPerPairS" -> p.prefillAttentionPerPairS;
      case "decodePerSeqS" -> p.decodePerSeqS;
      case "decodePerContextTokenS" -> p.decodePerContextTokenS;
      case "hbmEfficiency" -> p.hbmEfficiency;
      case "frontendLatencyS" -> p.frontendLatencyS;
      default -> throw new IllegalArgumentException(f);
    };
  }

  /** {@code p} with the fittable coefficient {@code f} at {@code v}. */
  static ModelProfile with(ModelProfile p, String f, double v) {
    return p.with(b -> set(b, f, v));
  }

  static void set(ModelProfile.Builder p, String f, double v) {
    switch (f) {
      case "stepBaseS" -> p.stepBaseS = v;
      case "prefillPerTokenS" -> p.prefillPerTokenS = v;
      case "prefillAttentionPerPairS" -> p.prefillAttentionPerPairS = v;
      case "decodePerSeqS" -> p.decodePerSeqS = v;
      case "decodePerContextTokenS" -> p.decodePerContextTokenS = v;
      case "hbmEfficiency" -> p.hbmEfficiency = v;
      case "frontendLatencyS" -> p.frontendLatencyS = v;
      default -> throw new IllegalArgumentException(f);
    }
  }

  private static double sq(double x) {
    return x * x;
  }
}
