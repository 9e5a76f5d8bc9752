package io.smetric.audit.replay.calibrate;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.ModelProfile;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What real runs asked of the engine, read from the measurements themselves (never typed by
 * hand): each run's prompt lengths, contexts and prefix-cache hit share from its workload as the
 * benchmark tool generated it ({@link WorkloadSpec#synthesize}, the measured stage only, with the
 * cache state earlier stages left), its requests in flight and saturation from its measured
 * summary. {@link #of} folds a set into a profile's {@link ModelProfile.Regime}.
 */
public final class MeasurementRegime {
  private MeasurementRegime() {}

  /** Measured throughput below this share of the offered rate: the stage could not keep up (saturated). */
  public static final double SATURATED_THROUGHPUT_SHARE = 0.95;

  /**
   * One run. {@code concurrency}: requests in flight on the instance (1 for a single request;
   * Little's law, measured completed rate x mean E2E, for a load stage; the client limit of a
   * closed loop without those; decoding sequences of a step). {@code rate}: offered requests/s
   * (NaN when not rate-driven). {@code hitShare}: prompt tokens an unbounded prefix cache hits.
   */
  public record Point(String id, Kind kind, long promptMin, long promptMax, long contextMax, double concurrency,
      double rate, double hitShare, boolean saturated) {}

  public static Point point(Measurement m) {
    if (m.kind() == Kind.STEP) {
      StepTiming st = m.step();
      long perSeq = st.decodeSeqs() > 0 ? st.decodeContextTokens() / st.decodeSeqs() : 0;
      return new Point(m.id(), m.kind(), st.prefillTokens(), st.prefillTokens(), Math.max(perSeq, st.prefillTokens()),
          st.decodeSeqs() + (st.prefillTokens() > 0 ? 1 : 0), Double.NaN, Double.NaN, false);
    }
    WorkloadSpec w = m.workload();
    List<TraceRecord> all = w.synthesize(42);
    Integer measured = w instanceof SharedPrefixWorkload sp ? sp.measuredStage() : null;
    LongOpenHashSet seen = new LongOpenHashSet();
    long promptMin = Long.MAX_VALUE;
    long promptMax = 0;
    long ctxMax = 0;
    long inTok = 0;
    long hitTok = 0;
    for (TraceRecord r : all) {
      long[] b = r.blocks() == null ? new long[0] : r.blocks();
      boolean in = measured == null || w.stageOf(r) == measured;
      if (in) {
        int k = 0;
        while (k < b.length && seen.contains(b[k])) k++; // chained ids: the first miss ends the prefix
        hitTok += Math.min((long) k * r.blockSize(), r.inputTokens());
        inTok += r.inputTokens();
        promptMin = Math.min(promptMin, r.inputTokens());
        promptMax = Math.max(promptMax, r.inputTokens());
        ctxMax = Math.max(ctxMax, (long) r.inputTokens() + r.outputTokens());
      }
      for (long x : b) seen.add(x);
    }
    double rate = Double.NaN;
    if (measured != null) rate = w.stages().get(measured).rate();
    else if (w.stages().size() == 1) rate = w.stages().get(0).rate();
    Metrics mm = m.measured();
    double conc;
    boolean saturated = false;
    if (m.kind() == Kind.SINGLE_REQUEST) {
      conc = 1;
    } else {
      conc = Double.isFinite(mm.requestsPerS()) && mm.e2e().hasMean() ? mm.requestsPerS() * mm.e2e().mean()
          : w.concurrency() != null ? w.concurrency() : Double.NaN;
      saturated = MeasurementInputs.overloaded(m)
          || (Double.isFinite(rate) && Double.isFinite(mm.requestsPerS()) && mm.requestsPerS() < SATURATED_THROUGHPUT_SHARE * rate);
    }
    return new Point(m.id(), m.kind(), promptMin == Long.MAX_VALUE ? 0 : promptMin, promptMax, ctxMax, conc, rate,
        inTok > 0 ? (double) hitTok / inTok : Double.NaN, saturated);
  }

  /** The envelope of a set of runs; null for none. */
  public static ModelProfile.Regime of(List<Measurement> ms, String derivedFrom) {
    if (ms.isEmpty()) return null;
    List<Point> pts = new ArrayList<>();
    for (Measurement m : ms) pts.add(point(m));
    return fold(pts, derivedFrom);
  }

  static ModelProfile.Regime fold(List<Point> pts, String derivedFrom) {
    ModelProfile.Regime.Builder g = new ModelProfile.Regime.Builder();
    Set<String> kinds = new LinkedHashSet<>();
    long pMin = Long.MAX_VALUE;
    long pMax = 0;
    long cMax = 0;
    double concMin = Double.POSITIVE_INFINITY;
    double concMax = Double.NEGATIVE_INFINITY;
    double rMin = Double.POSITIVE_INFINITY;
    double rMax = Double.NEGATIVE_INFINITY;
    double hMin = Double.POSITIVE_INFINITY;
    double hMax = Double.NEGATIVE_INFINITY;
    int sat = 0;
    for (Point p : pts) {
      kinds.add(switch (p.kind()) {
        case SINGLE_REQUEST -> "single requests";
        case LOAD_STAGE -> "load stages";
        case STEP -> "engine steps";
      });
      pMin = Math.min(pMin, p.promptMin());
      pMax = Math.max(pMax, p.promptMax());
      cMax = Math.max(cMax, p.contextMax());
      if (Double.isFinite(p.concurrency())) {
        concMin = Math.min(concMin, p.concurrency());
        concMax = Math.max(concMax, p.concurrency());
      }
      if (Double.isFinite(p.rate())) {
        rMin = Math.min(rMin, p.rate());
        rMax = Math.max(rMax, p.rate());
      }
      if (Double.isFinite(p.hitShare())) {
        hMin = Math.min(hMin, p.hitShare());
        hMax = Math.max(hMax, p.hitShare());
      }
      if (p.saturated()) sat++;
    }
    g.kinds = String.join(", ", kinds);
    g.measurements = pts.size();
    g.promptTokensMin = pMin;
    g.promptTokensMax = pMax;
    g.contextTokensMax = cMax;
    if (concMax >= concMin) {
      g.concurrencyMin = round(concMin);
      g.concurrencyMax = round(concMax);
    }
    if (rMax >= rMin) {
      g.requestRateMin = rMin;
      g.requestRateMax = rMax;
    }
    if (hMax >= hMin) {
      g.cacheHitShareMin = round(hMin);
      g.cacheHitShareMax = round(hMax);
    }
    g.saturatedMeasurements = sat;
    g.derivedFrom = derivedFrom;
    g.summary = describe(g.build());
    return g.build();
  }

  /** 4 significant digits: the regime is a description, not a coefficient. */
  private static double round(double v) {
    if (v == 0 || !Double.isFinite(v)) return v;
    return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).doubleValue();
  }

  /** The regime in one line, e.g. "6 single requests: prompts 1-129,042 tokens, contexts up to ...". */
  public static String describe(ModelProfile.Regime g) {
    StringBuilder b = new StringBuilder();
    b.append(g.measurements).append(' ').append(g.kinds).append(": prompts ").append(tokens(g.promptTokensMin));
    if (!g.promptTokensMax.equals(g.promptTokensMin)) b.append('-').append(tokens(g.promptTokensMax));
    b.append(" tokens, contexts (prompt + output) up to ").append(tokens(g.contextTokensMax));
    if (g.concurrencyMax != null) {
      b.append(g.concurrencyMax <= 1 ? ", batch 1 (one request at a time)" : String.format(Locale.ROOT,
          ", %s-%s requests in flight", num(g.concurrencyMin), num(g.concurrencyMax)));
    }
    if (g.requestRateMax != null) {
      b.append(String.format(Locale.ROOT, ", %s-%s requests/s offered", num(g.requestRateMin), num(g.requestRateMax)));
    }
    if (g.cacheHitShareMax != null && g.cacheHitShareMax == 0) {
      b.append(", no prefix-cache hits");
    } else if (g.cacheHitShareMax != null) {
      b.append(String.format(Locale.ROOT, ", prefix-cache hit share %s-%s", pct(g.cacheHitShareMin), pct(g.cacheHitShareMax)));
    }
    b.append(g.saturatedMeasurements == 0 ? ", none saturated"
        : ", " + g.saturatedMeasurements + " saturated (throughput below 95% of the offered rate or > 1% failed)");
    return b.toString();
  }

  private static String tokens(long v) {
    return String.format(Locale.ROOT, "%,d", v);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * v);
  }
}
