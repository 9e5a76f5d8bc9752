package io.smetric.audit.replay;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.AuditPlan;
import io.smetric.audit.replay.sweep.Capacity;
import io.smetric.audit.replay.sweep.Conditions;
import io.smetric.audit.replay.sweep.EqualLoad;
import io.smetric.audit.replay.sweep.RunResult;
import io.smetric.audit.replay.sweep.Schedule;
import io.smetric.audit.replay.sweep.SimSpec;
import io.smetric.audit.replay.sweep.Sweep;
import io.smetric.audit.replay.sweep.SweepProgress;
import io.smetric.audit.replay.sweep.SweepSummary;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a {@link ReplayJob} simulates (docs/architecture.md, "One job per class inside a stage"):
 * which asked-for policies can run on the trace and why the others cannot, the audit or custom plan
 * ({@link AuditPlan}) or the grid, and the {@link Schedule} groups with the continuations that plan
 * each round from the results of the one before: the main sweep, the refinement of the compared
 * knees, the judged routers' reference rates, then beside each other the equal-load runs, the
 * bootstrap replicates, the conditions sweep and the capacity search with its sized point and
 * interval. It also keeps the sweep's progress estimate in step with what it plans. It runs
 * nothing: the job runs the groups on its engine and hands what was planned to {@link ReplayWriter}
 * ({@link #swept}).
 *
 * <p>It holds no reference to the trace: the job lets the trace go once the sweep's tasks can read it.
 */
final class ReplayPlanning {
  private final ReplayJob.Options options;
  /** The options' settings (a value, shared with the job, which runs them). */
  private final ReplaySettings base;
  private final ReplayJob.TraceSummary summary;
  /** The audit or custom plan (run in rounds); null for a grid. */
  private final AuditPlan plan;
  /** The asked-for policies the trace can serve, by name (set by {@link #choosePolicies}). */
  private Set<String> ok;
  private List<String> skipped;
  /** The grid's simulations (null for the audit and custom plans). */
  private List<SimSpec> grid;
  private int conditionRuns;
  private int bootstrapRuns;
  private String bootstrapSkipped;
  private ObjectNode conditionsJson;
  private Conditions conditionsPlan;
  private EqualLoad equalLoad;
  private int refinedCurves;
  private int equalLoadRuns;
  /** The capacity search (null: not run). */
  private Capacity capacity;
  /** The running sweep's progress estimate (set by {@link #first}). */
  private SweepProgress progress;

  /** Builds the plan the options ask for (the audit and custom plans derive their rates from the trace). */
  ReplayPlanning(ReplayTrace trace, ReplayJob.Options options, ReplaySettings base, ReplayJob.TraceSummary summary) {
    this.options = options;
    this.base = base;
    this.summary = summary;
    this.plan = switch (options.plan()) {
      case AUDIT -> AuditPlan.of(trace, base, options.rateGrid());
      case CUSTOM -> AuditPlan.custom(trace, base, options.rateGrid(), options.policies(), options.globalRatios());
      case GRID -> null;
    };
  }

  /** The audit or custom plan; null for a grid. */
  AuditPlan plan() {
    return plan;
  }

  /**
   * Picks the asked-for policies the trace can serve; the others are {@link #skipped} with why.
   *
   * @throws UsageException when none can run, or the current router is SMetric or not replayed
   */
  void choosePolicies(ReplayTrace trace) {
    List<Policies> policies = options.policies();
    String currentRouter = options.currentRouter();
    List<Policies> runnable = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (Policies p : policies) {
      List<String> why = p.unmet(trace, base);
      if (why.isEmpty()) runnable.add(p);
      else skipped.add(p.cliName() + ": not applicable: " + String.join("; ", why));
    }
    if (runnable.isEmpty()) throw new UsageException("no requested policy can run on this trace: " + skipped);
    if (currentRouter != null) {
      Policies cr = Policies.byName(currentRouter);
      if (SweepSummary.isSmetricFamily(cr.cliName())) {
        throw new UsageException("--current-router: " + currentRouter + " is SMetric itself or one of its variants; name the router you run today");
      }
      if (!runnable.contains(cr)) {
        throw new UsageException("--current-router " + currentRouter + " is not replayed"
            + (policies.contains(cr) ? " (not applicable to this trace: " + String.join("; ", cr.unmet(trace, base)) + ")" : "; add it to --policies"));
      }
    }
    Set<String> ok = new HashSet<>();
    for (Policies p : runnable) ok.add(p.cliName());
    this.ok = ok;
    this.skipped = skipped;
    this.grid = plan == null
        ? Sweep.grid(runnable, options.globalRatios(), options.rates(), options.overloads(), options.hitRatios()) : null;
  }

  /** The policies not replayed, each with why. */
  List<String> skipped() {
    return skipped;
  }

  /** Whether the sweep is one simulation and nothing after it (a grid of one point). */
  boolean singleSimulation() {
    return plan == null && grid.size() <= 1;
  }

  /**
   * The schedule's first group: the grid, or every curve's knee search as a track of its own; its
   * continuations plan the rest (see the class comment). Announces the expected simulations to
   * {@code progress}.
   */
  Schedule.Group first(SweepProgress progress) {
    this.progress = progress;
    Schedule.Group first;
    if (plan == null) {
      progress.expectExactly("grid", grid.size());
      first = new Schedule.Group(0, List.of(counted("grid", once(grid))), this::afterMainSweep);
    } else {
      // every curve's knee search is a track of its own: the anchors (SMetric at each global
      // ratio) and the cold curves first, then the curves warm-started from their anchor's knee;
      // the replicates and the conditions sweep need the whole main sweep, then run beside each other
      List<AuditPlan.Curve> planned = new ArrayList<>();
      for (var c : plan.curves()) {
        if (!ok.contains(c.policy())) continue;
        planned.add(c);
        progress.expect("curve " + c, plan.anchorOf(c, ok) == null ? "cold curve" : "warm curve", plan.expectedPoints(c, ok));
      }
      expectAfterMainSweep(planned);
      first = plan.mainSweep(ok, (c, t) -> counted("curve " + c, t), this::afterMainSweep);
    }
    return first;
  }

  /** Once the schedule has run: the plan's rounds and the conditions sweep's description of its results. */
  void finish(List<RunResult> results, int mainRounds) {
    if (plan != null) plan.rounds(mainRounds);
    if (conditionsPlan != null) {
      conditionsJson = conditionsPlan.describe(results);
      conditionsJson.put("simulations", conditionRuns);
    }
  }

  /** What the writer needs of the sweep: its results and what was planned from them. */
  ReplayWriter.Swept swept(List<RunResult> results, double wallSeconds, Map<Integer, Integer> sameAs) {
    return new ReplayWriter.Swept(results, skipped, wallSeconds, sameAs, equalLoad, refinedCurves,
        equalLoadRuns, capacity, conditionsJson, bootstrapRuns, bootstrapSkipped);
  }

  /** A track whose batches the progress estimate counts under {@code part}. */
  private Schedule.Track counted(String part, Schedule.Track t) {
    return all -> {
      List<SimSpec> n = t.next(all);
      progress.batch(part, n.size());
      return n;
    };
  }

  /**
   * Placeholders for what the main sweep's results will plan: the refinement, the reference
   * bisections, the equal-load runs, the replicates and the conditions sweep.
   */
  private void expectAfterMainSweep(List<AuditPlan.Curve> curves) {
    double[] e = SweepProgress.equalLoadBefore(curves, options.currentRouter(),
        plan != null && plan.grid() == AuditPlan.RateGrid.ADAPTIVE);
    progress.expect("refine", e[0]);
    progress.expect("reference", e[1]);
    progress.expect("equal load", e[2]);
    boolean resampled = options.bootstrap() > 0 && base.kvModel != ReplaySettings.KvModel.REFERENCE && summary.sessionTrees() >= 2;
    if (resampled) {
      progress.expect("replicates", SweepProgress.replicatesBefore(options.bootstrap(), curves, options.currentRouter()));
    }
    if (options.capacity().enabled()) {
      // SMetric and the judged router at two capacities, about 5 pass/fail runs at x1 and 3 per growth factor;
      // then the sized point (4 runs) and the interval's searches (as planned in afterReference), which it plans too
      progress.expect("capacity", 4 * (5.0 + 3.0 * options.capacity().growth().size()) + 4
          + (resampled ? INTERVAL_RUNS * 2 * options.bootstrap() : 0));
    }
    if (!options.conditions().isEmpty()) {
      double[] c = SweepProgress.conditionsBefore(base, options.conditions());
      progress.expect("conditions", c[0]);
      progress.expect("conditions grid", c[1]);
    }
  }

  /** Pass/fail runs one replicate's capacity search is expected to take (progress estimate). */
  private static final double INTERVAL_RUNS = 2.0;

  /** A track of one batch. */
  private static Schedule.Track once(List<SimSpec> specs) {
    boolean[] sent = {false};
    return all -> {
      if (sent[0]) return List.of();
      sent[0] = true;
      return specs;
    };
  }

  /**
   * What follows the coarse main sweep: the refinement of the compared routers' knees (phase 0,
   * {@link EqualLoad#refinedCurves}; the adaptive audit and custom
   * plans), then {@link #afterRefinement}.
   */
  private List<Schedule.Group> afterMainSweep(List<RunResult> main) {
    if (plan == null || plan.grid() != AuditPlan.RateGrid.ADAPTIVE) {
      progress.drop("refine");
      return afterRefinement(main);
    }
    // (the fixed grid: no refinement; the reference rates are still bisected)
    SweepSummary coarse = new SweepSummary(main, referenceOverload(), referenceHitRatio());
    List<Schedule.Track> refine = new ArrayList<>();
    for (AuditPlan.Curve c : EqualLoad.refinedCurves(coarse, options.currentRouter())) {
      refine.add(EqualLoad.refineTrack(c));
    }
    refinedCurves = refine.size();
    progress.drop("refine");
    if (refine.isEmpty()) return afterRefinement(main);
    List<Schedule.Track> counted = new ArrayList<>();
    for (int i = 0; i < refine.size(); i++) {
      progress.expect("refine " + i, SweepProgress.REFINE_POINTS);
      counted.add(counted("refine " + i, refine.get(i)));
    }
    return List.of(new Schedule.Group(0, counted, this::afterRefinement));
  }

  /**
   * After the refinement: the bisection of each judged router's reference rate (phase 0, the rate
   * 1.0x of the equal-load comparison stands for), then {@link #afterReference}.
   */
  private List<Schedule.Group> afterRefinement(List<RunResult> main) {
    progress.drop("reference");
    if (plan == null) return afterReference(main);
    SweepSummary refined = new SweepSummary(main, referenceOverload(), referenceHitRatio());
    List<Schedule.Track> ref = new ArrayList<>();
    for (AuditPlan.Curve c : EqualLoad.judgedCurves(refined, options.currentRouter())) {
      String part = "reference " + ref.size();
      progress.expect(part, SweepProgress.REFERENCE_POINTS);
      ref.add(counted(part, EqualLoad.referenceTrack(c, plan.rateReference())));
    }
    if (ref.isEmpty()) return afterReference(main);
    return List.of(new Schedule.Group(0, ref, this::afterReference));
  }

  /**
   * What follows the reference rates: the equal-load runs (phase 0, main-sweep runs at the
   * normalised loads), the paired bootstrap replicates at the decision load (phase 1) and the
   * conditions sweep at the verdict's operating point (phase 2), side by side.
   */
  private List<Schedule.Group> afterReference(List<RunResult> main) {
    List<Schedule.Group> next = new ArrayList<>();
    int bootstrap = options.bootstrap();
    SweepSummary mainSum = new SweepSummary(main, referenceOverload(), referenceHitRatio());
    equalLoad = EqualLoad.plan(mainSum, options.currentRouter(), main);
    List<SimSpec> eq = equalLoad.specs(main);
    // a grid sweep (--rate-scale) gets them too: its verdict reads the same equal-load gains; its
    // judged routers' reference rates are the grid's own (no bisection: the resolution says how coarse)
    equalLoadRuns = eq.size();
    progress.expectExactly("equal load", eq.size());
    if (!eq.isEmpty()) next.add(Schedule.Group.of(0, List.of(counted("equal load", once(eq)))));
    if (bootstrap > 0) {
      if (base.kvModel == ReplaySettings.KvModel.REFERENCE) {
        bootstrapSkipped = "the block-by-block reference KV model cannot resample session trees";
      } else if (summary.sessionTrees() < 2) {
        bootstrapSkipped = "fewer than two session trees to resample";
      } else {
        List<SimSpec> reps = equalLoad.replicates(bootstrap);
        bootstrapRuns = reps.size();
        progress.expectExactly("replicates", reps.size());
        if (!reps.isEmpty()) next.add(Schedule.Group.of(1, List.of(counted("replicates", once(reps)))));
      }
    }
    if (!options.conditions().isEmpty() && plan != null) {
      conditionsPlan = Conditions.plan(mainSum, base, equalLoad, options.conditions());
      progress.drop("conditions");
      if (conditionsPlan.notApplicable() != null) progress.drop("conditions grid");
      next.add(new Schedule.Group(2, conditionTracks(conditionsPlan.pointKeys()), all -> {
        List<String> before = conditionsPlan.pointKeys();
        conditionsPlan.planGrid(all);
        List<String> grid = new ArrayList<>(conditionsPlan.pointKeys());
        grid.removeAll(before);
        progress.drop("conditions grid");
        return List.of(Schedule.Group.of(2, conditionTracks(grid)));
      }));
    } else {
      progress.drop("conditions");
      progress.drop("conditions grid");
    }
    if (bootstrapRuns == 0) progress.drop("replicates");
    progress.drop("capacity");
    if (options.capacity().enabled() && plan != null) {
      // beside the equal-load runs, replicates and conditions: it needs only the refined curves and the anchors
      capacity = Capacity.plan(options.capacity(), base, equalLoad, mainSum, main);
      if (capacity.chainCount() == 0) capacity = null;
      List<Schedule.Track> tracks = new ArrayList<>();
      List<Schedule.Track> searches = capacity == null ? List.of() : capacity.tracks();
      int i = 0;
      for (Schedule.Track t : searches) {
        String part = "capacity " + i++;
        progress.expect(part, "capacity search", capacity.expectedSimulations() / searches.size());
        tracks.add(counted(part, t));
      }
      if (!tracks.isEmpty()) {
        progress.expect("sized point", 4);
        // then the second operating point: both routers as full runs on the cluster sized for the judged router
        int reps = bootstrapRuns > 0 ? bootstrap : 0;
        // the interval's replicates: about 2 runs per router and replicate (a search from a guess on the answer or 1 below it)
        if (reps > 0) progress.expect("capacity interval", INTERVAL_RUNS * 2 * reps);
        next.add(new Schedule.Group(3, tracks, all -> {
          List<SimSpec> sized = capacity.sizedSpecs();
          progress.expectExactly("sized point", sized.size());
          List<Schedule.Group> then = new ArrayList<>();
          if (!sized.isEmpty()) then.add(Schedule.Group.of(3, List.of(counted("sized point", once(sized)))));
          // the instance count's bootstrap interval, beside the sized point (issue 29 item 1): the first waves'
          // group, whose continuation plans the second waves; the placeholder counts the tracks not yet made
          int[] made = {0};
          int[] planned = {Integer.MAX_VALUE};
          then.addAll(capacity.intervalGroups(reps, (part, t) -> {
            progress.expect(part, "capacity interval", INTERVAL_RUNS);
            made[0]++;
            if (planned[0] != Integer.MAX_VALUE) progress.expect("capacity interval", INTERVAL_RUNS * (planned[0] - made[0]));
            return counted(part, t);
          }));
          planned[0] = capacity.intervalSearches();
          progress.expect("capacity interval", INTERVAL_RUNS * (planned[0] - made[0]));
          return then;
        }));
      }
    }
    return next;
  }

  private List<Schedule.Track> conditionTracks(List<String> keys) {
    List<Schedule.Track> out = new ArrayList<>();
    double expected = SweepProgress.conditionPointSimulations();
    for (String k : keys) {
      progress.expect("condition " + k, expected);
      out.add(counted("condition " + k, all -> {
        List<SimSpec> n = conditionsPlan.next(k, all);
        conditionRuns += n.size();
        return n;
      }));
    }
    return out;
  }

  /** The thresholds the comparison and ablation read: the base's, or the first swept value if the base's was not swept. */
  double referenceOverload() {
    List<Double> overloads = options.overloads();
    return overloads.contains(base.overload) ? base.overload : overloads.get(0);
  }

  double referenceHitRatio() {
    List<Double> hitRatios = options.hitRatios();
    return hitRatios.contains(base.hitRatio) ? base.hitRatio : hitRatios.get(0);
  }
}
