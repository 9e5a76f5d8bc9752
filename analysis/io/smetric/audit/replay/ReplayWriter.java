package io.smetric.audit.replay;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AblationBlock;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.ConditionsBlock;
import io.smetric.audit.contract.GlobalTierBlock;
import io.smetric.audit.contract.HeadlineBlock;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.contract.PoliciesBlock;
import io.smetric.audit.contract.PreconditionsBlock;
import io.smetric.audit.contract.ReplayComparison;
import io.smetric.audit.contract.ReplayTables;
import io.smetric.audit.contract.SensitivityBlock;
import io.smetric.audit.contract.StickinessBlock;
import io.smetric.audit.contract.SweepBlock;
import io.smetric.audit.contract.TraceSummaryBlock;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.AuditPlan;
import io.smetric.audit.replay.sweep.Capacity;
import io.smetric.audit.replay.sweep.EqualLoad;
import io.smetric.audit.replay.sweep.RunResult;
import io.smetric.audit.replay.sweep.SimSpec;
import io.smetric.audit.replay.sweep.SweepSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * What {@link ReplayJob} writes once its sweep has run: the series tables ({@code latency_cdf},
 * {@code imbalance_windows}, {@code instance_load}) from the main sweep's full results, then the
 * {@code runs} and {@code headline} tables and replay.json from every run's summary (names and
 * schemas from the contract's {@link AuditLayout} and {@link ReplayTables}). Apart from the job so
 * that the job only plans and runs the sweep (issue 30 item 3); it reads the job's options and
 * settings and what the sweep produced, and changes none of them.
 */
final class ReplayWriter {
  /**
   * What the sweep produced that replay.json reports.
   *
   * @param results every run's summary (final ids; a repeated simulation credited to the lowest id)
   * @param skipped the policies not replayed, each with why
   * @param wallSeconds the sweep's wall time
   * @param sameAs run id -> the run whose simulation it took ({@code same_simulation_as})
   * @param equalLoad the equal-load plan (null: none)
   * @param refinedCurves the curves the refinement searched again
   * @param equalLoadRuns the equal-load simulations
   * @param capacity the capacity search (null: not run)
   * @param conditions the conditions sweep's description (null: not run)
   * @param bootstrapRuns the bootstrap replicates' simulations
   * @param bootstrapSkipped why no replicate ran though some were asked for (null otherwise)
   */
  record Swept(List<RunResult> results, List<String> skipped, double wallSeconds, Map<Integer, Integer> sameAs,
      EqualLoad equalLoad, int refinedCurves, int equalLoadRuns, Capacity capacity, ObjectNode conditions,
      int bootstrapRuns, String bootstrapSkipped) {}

  private final SparkSession spark;
  private final ReplayJob.Options options;
  /** The options' base settings (a value). */
  private final ReplaySettings base;
  private final ReplayJob.TraceSummary summary;
  /** The audit or custom plan; null for a grid. */
  private final AuditPlan plan;
  /** The OVERLOAD and HIT_RATIO the comparison and ablation read (the job's reference thresholds). */
  private final double referenceOverload;
  private final double referenceHitRatio;

  ReplayWriter(SparkSession spark, ReplayJob.Options options, ReplaySettings base, ReplayJob.TraceSummary summary,
      AuditPlan plan, double referenceOverload, double referenceHitRatio) {
    this.spark = spark;
    this.options = options;
    this.base = base;
    this.summary = summary;
    this.plan = plan;
    this.referenceOverload = referenceOverload;
    this.referenceHitRatio = referenceHitRatio;
  }

  // ------------------------------------------------------------------ series tables (written by the tasks' side)

  /** The series tables of the main sweep's full results held in the driver (final ids): the rows built here, one file per table. */
  void writeSeries(OutputDir out, List<RunResult> mainRuns) {
    List<Row> cdf = new ArrayList<>();
    List<Row> win = new ArrayList<>();
    List<Row> inst = new ArrayList<>();
    try {
      for (RunResult r : mainRuns) {
        new CdfRows().call(r).forEachRemaining(cdf::add);
        new WindowRows(base.imbalanceWindowS).call(r).forEachRemaining(win::add);
        new InstanceRows().call(r).forEachRemaining(inst::add);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    writeSeries(out, jsc.parallelize(cdf, 1), jsc.parallelize(win, 1), jsc.parallelize(inst, 1));
  }

  /** The series tables of the main sweep's full results where the tasks keep them (final ids; null: there are none). */
  void writeSeries(OutputDir out, JavaRDD<RunResult> mainRuns) {
    if (mainRuns == null) {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      writeSeries(out, jsc.emptyRDD(), jsc.emptyRDD(), jsc.emptyRDD());
      return;
    }
    writeSeries(out, mainRuns.flatMap(new CdfRows()), mainRuns.flatMap(new WindowRows(base.imbalanceWindowS)),
        mainRuns.flatMap(new InstanceRows()));
  }

  private void writeSeries(OutputDir out, JavaRDD<Row> cdf, JavaRDD<Row> windows, JavaRDD<Row> instances) {
    // one file per table (small), sorted by run for the reader; the instance series can be large
    // (instances x windows per run) and is written in parallel, not sorted: each run's rows together,
    // window-major, the runs in the order the tasks hold them (which follows the order batches finished)
    spark.createDataFrame(cdf, ReplayTables.LATENCY_CDF).coalesce(1)
        .sortWithinPartitions(ReplayTables.RUN_ID, ReplayTables.METRIC, ReplayTables.QUANTILE)
        .write().mode(SaveMode.ErrorIfExists).parquet(out.child(AuditLayout.REPLAY_LATENCY_CDF_DIR));
    spark.createDataFrame(windows, ReplayTables.IMBALANCE_WINDOWS).coalesce(1)
        .sortWithinPartitions(ReplayTables.RUN_ID, ReplayTables.WINDOW)
        .write().mode(SaveMode.ErrorIfExists).parquet(out.child(AuditLayout.REPLAY_IMBALANCE_WINDOWS_DIR));
    spark.createDataFrame(instances, ReplayTables.INSTANCE_LOAD).write().mode(SaveMode.ErrorIfExists)
        .parquet(out.child(AuditLayout.REPLAY_INSTANCE_LOAD_DIR));
  }

  static final class CdfRows implements FlatMapFunction<RunResult, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public java.util.Iterator<Row> call(RunResult r) {
      List<Row> rows = new ArrayList<>();
      addCdf(rows, r.spec().runId(), ReplayTables.TTFT, r.ttftCdf());
      addCdf(rows, r.spec().runId(), ReplayTables.TPOT, r.tpotCdf());
      return rows.iterator();
    }
  }

  static final class WindowRows implements FlatMapFunction<RunResult, Row> {
    private static final long serialVersionUID = 1L;
    private final double w;

    WindowRows(double w) {
      this.w = w;
    }

    @Override
    public java.util.Iterator<Row> call(RunResult r) {
      double[] imb = r.imbalance();
      List<Row> rows = new ArrayList<>(imb.length);
      for (int k = 0; k < imb.length; k++) {
        rows.add(RowFactory.create(r.spec().runId(), k, k * w, Double.isNaN(imb[k]) ? null : imb[k]));
      }
      return rows.iterator();
    }
  }

  static final class InstanceRows implements FlatMapFunction<RunResult, Row> {
    private static final long serialVersionUID = 1L;

    /** Lazily, window-major: one run's series can be millions of rows. */
    @Override
    public java.util.Iterator<Row> call(RunResult r) {
      double[][] lw = r.loadWindows();
      int run = r.spec().runId();
      int nInst = lw.length;
      int nw = nInst == 0 ? 0 : lw[0].length;
      return new java.util.Iterator<>() {
        int k;
        int i;

        @Override
        public boolean hasNext() {
          return k < nw && i < nInst;
        }

        @Override
        public Row next() {
          Row row = RowFactory.create(run, k, i, lw[i][k]);
          if (++i == nInst) {
            i = 0;
            k++;
          }
          return row;
        }
      };
    }
  }

  // ------------------------------------------------------------------ output

  /** Writes the runs and headline tables and replay.json; returns replay.json. */
  ObjectNode write(OutputDir out, Swept swept) {
    List<RunResult> results = swept.results();
    Map<Integer, Integer> sameAs = swept.sameAs();
    EqualLoad equalLoad = swept.equalLoad();
    TreeSet<String> metricNames = new TreeSet<>();
    for (RunResult r : results) metricNames.addAll(r.metrics().keySet());
    // columns every runs table has, even when no run computed them (a reader can rely on them)
    metricNames.addAll(List.of(ReplayTables.RunMetrics.STICKINESS, ReplayTables.RunMetrics.SESSION_MIGRATIONS,
        ReplayTables.RunMetrics.LOCAL_HIT_RATIO, ReplayTables.RunMetrics.TPOT_P50_S));
    StructType runs = ReplayTables.runs(metricNames);
    long localCap = base.localCapacity(Math.max(1, summary.blockSize()));
    List<Row> runRows = new ArrayList<>();
    for (RunResult r : results) {
      List<Object> v = new ArrayList<>();
      SimSpec s = r.spec();
      v.add(s.runId());
      v.add(s.policy());
      v.add(base.architecture.name().toLowerCase(java.util.Locale.ROOT));
      v.add(s.overrides().containsKey("instances") ? (int) Math.round(s.overrides().get("instances")) : base.instances);
      v.add(localCap == Long.MAX_VALUE ? null : localCap);
      v.add(s.globalRatio());
      v.add(s.rateScale());
      v.add(nullIfNaN(s.overload()));
      v.add(nullIfNaN(s.hitRatio()));
      v.add(r.wallSeconds());
      v.add(r.cpuSeconds());
      v.add(r.notApplicable().isEmpty() ? null : r.notApplicable().toString());
      v.add(s.replicate());
      v.add(s.variant());
      v.add(s.overrides().isEmpty() ? null : overridesJson(s));
      v.add(sameAs.get(s.runId()));
      for (String m : metricNames) v.add(r.metrics().get(m));
      runRows.add(RowFactory.create(v.toArray()));
    }
    save(runRows, runs, out.child(AuditLayout.REPLAY_RUNS_DIR));

    // headline: max TPS within SLO over the offered-rate sweep, per (policy, global ratio, O, H)
    SweepSummary sum = new SweepSummary(results, referenceOverload, referenceHitRatio);
    StructType head = ReplayTables.HEADLINE;
    List<Row> headRows = new ArrayList<>();
    ArrayNode headJson = Json.MAPPER.createArrayNode();
    for (SweepSummary.Headline hl : sum.headlines()) {
      SimSpec s = hl.best().spec();
      double tps = hl.tps();
      headRows.add(RowFactory.create(s.policy(), s.globalRatio(), nullIfNaN(s.overload()), nullIfNaN(s.hitRatio()), tps,
          s.rateScale(), s.runId()));
      ObjectNode h = headJson.addObject();
      h.put(HeadlineBlock.Row.POLICY, s.policy());
      h.put(HeadlineBlock.Row.GLOBAL_RATIO, s.globalRatio());
      putNumber(h, HeadlineBlock.Row.OVERLOAD, s.overload());
      putNumber(h, HeadlineBlock.Row.HIT_RATIO, s.hitRatio());
      h.put(HeadlineBlock.Row.MAX_TPS_WITHIN_SLO, tps);
      h.put(HeadlineBlock.Row.AT_RATE_SCALE, s.rateScale());
      if (hl.edge() == null) h.putNull(HeadlineBlock.Row.AT_EDGE);
      else h.put(HeadlineBlock.Row.AT_EDGE, hl.edge());
      h.put(HeadlineBlock.Row.RUN_ID, s.runId());
    }
    save(headRows, head, out.child(AuditLayout.REPLAY_HEADLINE_DIR));

    ObjectNode root = Json.object();
    root.put("tool", "smetric-audit replay");
    root.put("trace", options.traceLabel());
    ObjectNode tr = root.putObject(TraceSummaryBlock.BLOCK);
    tr.put(TraceSummaryBlock.REQUESTS, summary.requests());
    tr.put(TraceSummaryBlock.SESSIONS, summary.sessions());
    tr.put(TraceSummaryBlock.SESSION_TREES, summary.sessionTrees());
    tr.put(TraceSummaryBlock.BLOCK_SIZE, summary.blockSize());
    tr.put(TraceSummaryBlock.SEGMENTS, summary.segments());
    tr.put(TraceSummaryBlock.BLOCKS_REFERENCED, summary.blocksReferenced());
    tr.put(TraceSummaryBlock.BLOCK_COUNT_MISMATCHES, summary.blockCountMismatches());
    tr.put(TraceSummaryBlock.HAS_BLOCKS, summary.hasBlocks());
    tr.put(TraceSummaryBlock.HAS_SESSIONS, summary.hasSessions());
    tr.put(TraceSummaryBlock.HAS_TURNS, summary.hasTurns());
    root.put("local_capacity_blocks", localCap == Long.MAX_VALUE ? "unbounded" : Long.toString(localCap));
    try {
      root.set(io.smetric.audit.contract.SettingsBlock.BLOCK, Json.MAPPER.readTree(base.toJson()));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    ArrayNode pol = root.putArray(PoliciesBlock.BLOCK);
    for (Policies p : options.policies()) {
      ObjectNode o = pol.addObject();
      o.put(PoliciesBlock.Policy.NAME, p.cliName());
      o.put(PoliciesBlock.Policy.SOURCE, p.info().source());
      boolean configured = base.currentRouterConfig != null && p.cliName().equals(options.currentRouter());
      o.put(PoliciesBlock.Policy.DEFAULTS, configured ? "as configured by --current-router (judged.current_router_config)" : p.info().defaults());
      o.put(PoliciesBlock.Policy.NEEDS, new TreeSet<>(p.info().needs().stream().map(Enum::name).toList()).toString());
    }
    ArrayNode sk = root.putArray("skipped");
    swept.skipped().forEach(sk::add);
    if (plan != null) root.set(SweepBlock.BLOCK, plan.describe());
    root.set(GlobalTierBlock.BLOCK, io.smetric.audit.replay.sim.GlobalTierLimits.describe(base));
    root.set(HeadlineBlock.BLOCK, headJson);
    root.set(ReplayComparison.COMPARISON, sum.comparison());
    root.set(ReplayComparison.PAPER_CLAIM, sum.paperClaim());
    root.set(io.smetric.audit.contract.BestRouter.BLOCK, sum.bestRouter());
    ObjectNode judged = sum.judged(options.currentRouter());
    if (base.currentRouterConfig != null) {
      // the router's own configuration as understood: each knob, its value and where it came from
      ArrayNode cfg = judged.putArray(ReplayComparison.CURRENT_ROUTER_CONFIG);
      for (io.smetric.audit.replay.RouterKnob k : base.currentRouterConfig) {
        cfg.addObject().put(ReplayComparison.Knob.ROUTER, k.router()).put(ReplayComparison.Knob.KNOB, k.knob())
            .put(Metric.VALUE, k.value()).put(ReplayComparison.Knob.SOURCE, k.source());
      }
    }
    root.set(ReplayComparison.JUDGED, judged);
    if (equalLoad != null) {
      ObjectNode el = equalLoad.describe(results);
      judgeAtEqualLoad(judged, el, equalLoad);
      el.put(io.smetric.audit.contract.EqualLoadBlock.REFINED_CURVES, swept.refinedCurves());
      el.put(io.smetric.audit.contract.EqualLoadBlock.SIMULATIONS, swept.equalLoadRuns());
      root.set(ReplayComparison.EQUAL_LOAD, el);
    }
    if (swept.capacity() != null) root.set(io.smetric.audit.contract.CapacityBlock.BLOCK, swept.capacity().describe(results));
    else root.putObject(io.smetric.audit.contract.CapacityBlock.BLOCK).put(Metric.NOT_APPLICABLE, options.capacity().enabled()
        ? "the capacity search needs the audit sweep's equal-load anchors (SMetric and a judged router with a 90%-attainment rate)"
        : "the capacity search was not run (--no-capacity, or not the audit sweep)");
    if (swept.conditions() != null) root.set(ConditionsBlock.BLOCK, swept.conditions());
    else root.putObject(ConditionsBlock.BLOCK).put(Metric.NOT_APPLICABLE, "the conditions sweep was not run (--no-conditions, or not the audit sweep)");
    String uncNa = options.bootstrap() == 0 ? "no bootstrap replicates were replayed (--bootstrap 0, or not the audit sweep)"
        : swept.bootstrapSkipped();
    root.set(io.smetric.audit.contract.UncertaintyBlock.BLOCK, Json.MAPPER.valueToTree(new io.smetric.audit.contract.UncertaintyBlock(
        options.bootstrap(), swept.bootstrapRuns(),
        "session trees (a root session with its forks), with replacement, on the trace's tree starts",
        "bootstrap interval on the log of the TPS ratio, transformed back: exp(u +- 1.96 x sqrt(SE^2 + "
        + "bias^2)) - 1, u = log(1 + gain), SE the standard deviation of the replicates' u, bias their mean - u; paired at equal load: SMetric and the judged router on "
        + "each replicate at the decision load's rate divided by the replicate's offered-token factor (its prompt+output "
        + "tokens over the trace's, replicate_offered_token_factor in its runs), so every replicate offers the trace's "
        + "token rate, at the declared capacity and at 0", uncNa)));
    root.set(PreconditionsBlock.BLOCK, sum.preconditions(base.reuseIntervalThresholdS));

    ObjectNode abl = sum.ablation();
    if (abl != null) root.set(AblationBlock.BLOCK, abl);
    ObjectNode sens = sum.sensitivity();
    if (sens != null) root.set(SensitivityBlock.BLOCK, sens);
    ArrayNode st = sum.stickiness();
    if (st != null) root.set(StickinessBlock.BLOCK, st);
    ArrayNode rj = root.putArray("runs");
    for (RunResult r : results) {
      ObjectNode o = rj.addObject();
      SimSpec s = r.spec();
      o.put("run_id", s.runId());
      o.put("policy", s.policy());
      o.put("global_ratio", s.globalRatio());
      o.put("rate_scale", s.rateScale());
      putNumber(o, "overload", s.overload());
      putNumber(o, "hit_ratio", s.hitRatio());
      if (s.replicate() != 0) o.put("replicate", s.replicate());
      if (s.variant() != null) {
        o.put("variant", s.variant());
        ObjectNode ov = o.putObject("overrides");
        s.overrides().forEach((k, x) -> putNumber(ov, k, x));
      }
      ObjectNode m = o.putObject("metrics");
      r.metrics().forEach(m::put);
      ObjectNode na = o.putObject("not_applicable");
      r.notApplicable().forEach(na::put);
      o.put("wall_s", r.wallSeconds());
      o.put("cpu_s", r.cpuSeconds());
      Integer same = sameAs.get(s.runId());
      if (same != null) o.put("same_simulation_as", same);
    }
    root.put("wall_s", swept.wallSeconds());
    try {
      out.writeString(AuditLayout.REPLAY_FILE, Json.MAPPER.writeValueAsString(root) + "\n");
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    return root;
  }

  private static String overridesJson(SimSpec s) {
    ObjectNode o = Json.object();
    s.overrides().forEach((k, x) -> putNumber(o, k, x));
    return o.toString();
  }

  private static Double nullIfNaN(double v) {
    return Double.isNaN(v) ? null : v;
  }

  /** NaN (not used by the policy) becomes null; Infinity (guard off) is written as the string "Infinity". */
  private static void putNumber(ObjectNode o, String k, double v) {
    if (Double.isNaN(v)) o.putNull(k);
    else if (Double.isInfinite(v)) o.put(k, v > 0 ? "Infinity" : "-Infinity");
    else o.put(k, v);
  }

  private static void addCdf(List<Row> rows, int run, String metric, double[] pts) {
    for (int k = 0; k < pts.length; k++) rows.add(RowFactory.create(run, metric, (double) (k + 1) / pts.length, pts[k]));
  }

  private void save(List<Row> rows, StructType schema, String path) {
    spark.createDataFrame(rows, schema).coalesce(1).write().mode(SaveMode.ErrorIfExists).parquet(path);
  }

  /**
   * The verdict's gains in the judged block (docs/replay.md "replay.json"): SMetric over the judged
   * router at equal load (the decision load) at the declared capacity and at capacity 0, each with
   * its paired interval; the smallest capacity whose gain there clears the threshold. The
   * maximum-TPS comparison stays beside them ({@code by_global_ratio}), descriptive.
   */
  private static void judgeAtEqualLoad(ObjectNode judged, ObjectNode described, EqualLoad equalLoad) {
    judged.remove(ReplayComparison.BEST_GAIN_WITH_GLOBAL);
    judged.put("basis", "equal load: SMetric and the judged router at the same offered rate, "
        + EqualLoad.DECISION_LOAD + "x the judged router's knee at each capacity "
        + "(replay.json equal_load); by_global_ratio compares the routers' maxima at their own rates, descriptive");
    double gd = equalLoad.declaredGlobalRatio();
    ObjectNode with = Double.isNaN(gd) ? null : EqualLoad.decisionGain(described, gd);
    if (with == null) {
      with = Json.object();
      with.putNull(Metric.VALUE);
      with.put(Metric.NOT_APPLICABLE, Double.isNaN(gd) ? "no global-tier capacity above 0 with SMetric and a judged router in the sweep"
          : "SMetric or the judged router has no run at the decision load at " + gd + "x");
    }
    judged.set(ReplayComparison.GAIN_WITH_GLOBAL, with);
    ObjectNode without = EqualLoad.decisionGain(described, 0.0);
    if (without == null) {
      without = Json.object();
      without.putNull(Metric.VALUE);
      without.put(Metric.NOT_APPLICABLE, "global ratio 0 with SMetric and a judged router is not in the sweep, or has no run at the decision load");
    }
    judged.set(ReplayComparison.GAIN_NO_GLOBAL, without);
    ObjectNode mg = judged.putObject(ReplayComparison.MIN_GLOBAL_RATIO);
    Double minG = null;
    for (double g : equalLoad.anchors().keySet()) {
      if (g <= 0) continue;
      ObjectNode d = EqualLoad.decisionGain(described, g);
      if (d != null && d.path(Metric.VALUE).isNumber() && d.path(Metric.VALUE).asDouble() >= SweepSummary.GAIN_THRESHOLD
          && (minG == null || g < minG)) {
        minG = g;
      }
    }
    if (minG != null) mg.put(Metric.VALUE, minG);
    else mg.putNull(Metric.VALUE);
    mg.put(ReplayComparison.MinGlobalRatio.THRESHOLD, SweepSummary.GAIN_THRESHOLD);
    mg.put("rule", "the smallest capacity above 0 whose equal-load gain at the decision load clears the threshold");
  }
}
