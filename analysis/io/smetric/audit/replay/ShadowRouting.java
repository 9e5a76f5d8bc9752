package io.smetric.audit.replay;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.replay.policy.AsRecordedPolicy;
import io.smetric.audit.replay.policy.ClusterView;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.policy.Policy;
import io.smetric.audit.replay.policy.SMetricPolicy;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code validate TRACE --shadow smetric}: what SMetric would have decided on the user's own
 * recorded traffic (issue 28 item 5; the paper's follow-up asks for shadow routing before any
 * threshold is chosen). The trace is replayed as recorded ({@link AsRecordedPolicy}, the same replay
 * as {@code validate TRACE}); at each request's routing moment an SMetric instance is asked too, on
 * the same cluster view, and its answer and reason are kept but never executed. So the cluster state
 * every shadow decision sees is the recorded routing's, not SMetric's own: a shadow decision is
 * "what SMetric would do next from here", not a replay of SMetric.
 */
public final class ShadowRouting {
  private ShadowRouting() {}

  /** The decision classes of the report, in {@link SMetricPolicy.Reason} order from FIRST_TURN. */
  public static final SMetricPolicy.Reason[] CLASSES = {SMetricPolicy.Reason.FIRST_TURN, SMetricPolicy.Reason.STUCK,
      SMetricPolicy.Reason.OVERLOADED, SMetricPolicy.Reason.EVICTED};

  /** Routes as recorded; asks the shadow SMetric on the same view first and records its answer. */
  static final class Shadowed implements Policy {
    final Policy executed;
    final SMetricPolicy shadow;
    final int[] choice;
    final SMetricPolicy.Reason[] reason;
    final int[] inferredTurn;

    Shadowed(Policy executed, SMetricPolicy shadow, int n) {
      this.executed = executed;
      this.shadow = shadow;
      this.choice = new int[n];
      this.reason = new SMetricPolicy.Reason[n];
      this.inferredTurn = new int[n];
      Arrays.fill(choice, -1);
    }

    @Override
    public boolean probesEveryInstance() {
      return true; // SMetric reads every instance's hit; the answers are the same either way
    }

    @Override
    public int route(ClusterView v) {
      int r = v.request();
      choice[r] = shadow.route(v);
      reason[r] = shadow.lastReason();
      inferredTurn[r] = v.turn();
      return executed.route(v);
    }
  }

  /** Measured TTFT percentiles of one group (nearest rank; NaN when empty). */
  public record Tail(int n, double p50, double p90, double p99) {
    static Tail of(double[] x, int n) {
      if (n == 0) return new Tail(0, Double.NaN, Double.NaN, Double.NaN);
      double[] s = Arrays.copyOf(x, n);
      Arrays.sort(s);
      return new Tail(n, rank(s, 0.5), rank(s, 0.9), rank(s, 0.99));
    }

    private static double rank(double[] sorted, double q) {
      return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
    }
  }

  /** Per decision class: requests, those whose recorded instance SMetric would also have chosen, the measured TTFT tail. */
  public record ClassRow(SMetricPolicy.Reason reason, int requests, int agreed, Tail ttft) {}

  /**
   * The report. {@code compared} requests have a recorded instance; {@code agreed} of them SMetric
   * would have sent to it. First-turn inference: over requests whose trace turn is known (>= 0),
   * SMetric's flag (its view's turn == 0) against the trace's turn == 0. Migrations: follow-ups (a
   * previous request of the session in the trace) whose previous request's recorded instance, the
   * one holding the session's KV under the recorded routing, differs from SMetric's choice
   * ({@code shadowMigrations}) or from the recorded choice ({@code recordedMigrations}).
   */
  public record Result(int requests, int instances, int compared, int agreed, int turnKnown, int turnInferredRight,
      int firstTurnAsFollowUp, int followUpAsFirstTurn, int followUps, int shadowMigrations, int recordedMigrations,
      long localHitBytes, long globalHitBytes, double globalPeakReadBytesPerS, double bandwidthWindowS, ClassRow[] classes,
      int[] choice, SMetricPolicy.Reason[] reason, SimOutcome outcome, ObjectNode json) {}

  /**
   * Runs the shadow report.
   *
   * @param policyName the shadow policy: smetric or one of its variants (smetric-basic, ...)
   * @param instances the cluster size, or null for the number of distinct recorded instances
   */
  public static Result run(ReplayTrace t, TraceValidation.Recorded rec, ReplaySettings base, Integer instances,
      String policyName, String traceLabel) {
    Policies shadowKind;
    try {
      shadowKind = Policies.byName(policyName);
    } catch (IllegalArgumentException e) {
      throw new io.smetric.audit.common.UsageException("--shadow: " + e.getMessage());
    }
    TreeSet<String> names = new TreeSet<>();
    for (String s : rec.instance()) if (s != null) names.add(s);
    if (names.isEmpty()) {
      throw new BadInputException(traceLabel, -1, Canonical.SERVED_INSTANCE,
          "no request records the instance that served it: nothing to shadow");
    }
    int n = instances != null ? instances : names.size();
    if (n < names.size()) {
      throw new BadInputException(traceLabel, -1, Canonical.SERVED_INSTANCE,
          "the trace names " + names.size() + " distinct instances, more than --instances " + n);
    }
    // the same name-to-index mapping as validate TRACE: recorded names in sorted order
    List<String> list = new ArrayList<>(names);
    Map<String, Integer> id = new HashMap<>();
    for (int i = 0; i < list.size(); i++) id.put(list.get(i), i);
    int[] instanceOf = new int[t.n];
    for (int r = 0; r < t.n; r++) instanceOf[r] = rec.instance()[r] == null ? -1 : id.get(rec.instance()[r]);

    ReplaySettings s = TraceValidation.asRecordedSettings(base, n);
    Policy made = shadowKind.create(s);
    if (!(made instanceof SMetricPolicy sm)) {
      throw new io.smetric.audit.common.UsageException("--shadow takes smetric or a variant of it (smetric-basic, "
          + "smetric-overload-only, smetric-eviction-only), not " + policyName);
    }
    List<String> unmet = shadowKind.unmet(t);
    if (!unmet.isEmpty()) {
      throw new BadInputException(traceLabel, -1, "trace", policyName + " cannot decide on this trace: " + String.join("; ", unmet));
    }
    Shadowed p = new Shadowed(new AsRecordedPolicy(instanceOf), sm, t.n);
    SimOutcome o = new Simulator(t, s, p).run();

    int compared = 0;
    int agreed = 0;
    int turnKnown = 0;
    int turnRight = 0;
    int firstAsFollow = 0;
    int followAsFirst = 0;
    int followUps = 0;
    int shadowMig = 0;
    int recMig = 0;
    long localBytes = 0;
    long globalBytes = 0;
    long perBlock = (long) t.blockSize * s.profile.kvBytesPerToken;
    int k = CLASSES.length;
    int[] cn = new int[k];
    int[] ca = new int[k];
    double[][] ttft = new double[k][t.n];
    int[] tn = new int[k];
    for (int r = 0; r < t.n; r++) {
      int c = Arrays.asList(CLASSES).indexOf(p.reason[r]);
      if (c < 0) throw new IllegalStateException("request " + t.requestIds[r] + " was never routed");
      boolean rec_ = instanceOf[r] >= 0;
      cn[c]++;
      if (rec_) {
        compared++;
        if (p.choice[r] == instanceOf[r]) {
          agreed++;
          ca[c]++;
        }
      }
      if (t.turn[r] >= 0) {
        turnKnown++;
        boolean truth = t.turn[r] == 0;
        boolean inferred = p.inferredTurn[r] == 0;
        if (truth == inferred) turnRight++;
        else if (truth) firstAsFollow++;
        else followAsFirst++;
      }
      int prev = t.prevInSession[r];
      if (prev >= 0) {
        followUps++;
        // the instance holding the session's KV under the recorded routing: where its previous request ran
        int holder = o.instance[prev];
        if (p.choice[r] != holder) shadowMig++;
        if (o.instance[r] != holder) recMig++;
      }
      localBytes += o.localHitBlocks[r] * perBlock;
      globalBytes += o.globalHitBlocks[r] * perBlock;
      String oc = rec.outcome()[r];
      double m = rec.ttft()[r];
      if ((oc == null || oc.equals(Canonical.OUTCOME_COMPLETED)) && !Double.isNaN(m)) ttft[c][tn[c]++] = m;
    }
    double peak = 0;
    for (double b : o.bandwidthWindows) peak = Math.max(peak, b);
    peak /= s.bandwidthWindowS;
    ClassRow[] rows = new ClassRow[k];
    for (int c = 0; c < k; c++) rows[c] = new ClassRow(CLASSES[c], cn[c], ca[c], Tail.of(ttft[c], tn[c]));

    ObjectNode j = Json.object();
    j.put("trace", traceLabel);
    j.put("executed", TraceValidation.AS_RECORDED);
    j.put("shadow", shadowKind.cliName());
    j.put("overload", s.overload);
    j.put("hit_ratio", s.hitRatio);
    j.put("profile", s.profile.name);
    j.put("global_ratio", s.globalRatio);
    j.put("requests", t.n);
    j.put("instances", n);
    ObjectNode ag = j.putObject("agreement");
    ag.put("requests_with_recorded_instance", compared);
    ag.put("agreed", agreed);
    share(ag, "share", agreed, compared);
    ObjectNode ft = j.putObject("first_turn_inference");
    ft.put("rule", "SMetric's first-turn flag (the turn its view infers from the history == 0) against the trace's turn == 0");
    ft.put("requests_with_known_turn", turnKnown);
    ft.put("correct", turnRight);
    share(ft, "accuracy", turnRight, turnKnown);
    ft.put("first_turn_seen_as_follow_up", firstAsFollow);
    ft.put("follow_up_seen_as_first_turn", followAsFirst);
    ObjectNode mg = j.putObject("migrations");
    mg.put("rule", "a follow-up (a previous request of its session in the trace) sent elsewhere than its previous "
        + "request's recorded instance, which holds the session's KV under the recorded routing");
    mg.put("follow_ups", followUps);
    mg.put("shadow", shadowMig);
    share(mg, "shadow_share", shadowMig, followUps);
    mg.put("recorded", recMig);
    share(mg, "recorded_share", recMig, followUps);
    ObjectNode hb = j.putObject("recorded_routing_hits");
    hb.put("rule", "prompt blocks the as-recorded replay found in the local tier / fetched from the global tier, x block size x KV bytes per token");
    hb.put("local_hit_bytes", localBytes);
    hb.put("global_hit_bytes", globalBytes);
    hb.put("global_peak_read_bytes_per_s", peak);
    hb.put("bandwidth_window_s", s.bandwidthWindowS);
    com.fasterxml.jackson.databind.node.ArrayNode cl = j.putArray("by_decision_class");
    for (ClassRow row : rows) {
      ObjectNode x = cl.addObject();
      x.put("class", label(row.reason()));
      x.put("requests", row.requests());
      share(x, "share", row.requests(), t.n);
      x.put("agreed_with_recorded", row.agreed());
      ObjectNode tt = x.putObject("measured_ttft_s");
      tt.put("requests", row.ttft().n());
      put(tt, "p50", row.ttft().p50());
      put(tt, "p90", row.ttft().p90());
      put(tt, "p99", row.ttft().p99());
    }
    return new Result(t.n, n, compared, agreed, turnKnown, turnRight, firstAsFollow, followAsFirst, followUps, shadowMig,
        recMig, localBytes, globalBytes, peak, s.bandwidthWindowS, rows, p.choice, p.reason, o, j);
  }

  /** The class names of the report and shadow.json. */
  public static String label(SMetricPolicy.Reason r) {
    return switch (r) {
      case FIRST_TURN -> "first-turn (balanced)";
      case STUCK -> "stuck to the session's instance";
      case OVERLOADED -> "rebalanced: overload";
      case EVICTED -> "rebalanced: eviction";
      case NONE -> "not routed";
    };
  }

  private static void share(ObjectNode o, String k, long a, long b) {
    if (b == 0) o.putNull(k);
    else o.put(k, (double) a / b);
  }

  private static void put(ObjectNode o, String k, double v) {
    if (Double.isNaN(v)) o.putNull(k);
    else o.put(k, v);
  }
}
