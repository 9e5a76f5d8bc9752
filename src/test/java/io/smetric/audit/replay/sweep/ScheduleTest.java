package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import io.smetric.audit.testing.Traces;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

class ScheduleTest {
  private static SimSpec spec(String name) {
    return new SimSpec(-1, name, 0, 1, Double.NaN, Double.NaN);
  }

  private static RunResult result(SimSpec s, double tps) {
    return new RunResult(s, Map.of("tps_within_slo", tps), Map.of(), new double[0], new double[0], new double[0],
        new double[0][], 1, 1);
  }

  /** A track that hands out the given batches one after another. */
  private static Schedule.Track batches(String... batches) {
    Deque<String> left = new ArrayDeque<>(List.of(batches));
    return all -> {
      if (left.isEmpty()) return List.of();
      List<SimSpec> out = new ArrayList<>();
      for (String n : left.poll().split(",")) out.add(spec(n));
      return out;
    };
  }

  /**
   * An engine that holds every batch and completes them newest first, a batch at a time, whenever
   * the scheduler waits: the order in which results come back is scrambled against submission.
   */
  private static final class LastFirst implements Schedule.Engine {
    final Deque<Object[]> held = new ArrayDeque<>();
    final ToDoubleFunction<SimSpec> tps;
    final List<String> submitted = new ArrayList<>();

    LastFirst(ToDoubleFunction<SimSpec> tps) {
      this.tps = tps;
    }

    @Override
    public CompletableFuture<List<RunResult>> submit(List<SimSpec> numbered) {
      CompletableFuture<List<RunResult>> f = new CompletableFuture<>();
      // the push shares the lock of releaseOne's poll: an ArrayDeque written by two threads at once
      // can lose a batch, whose future then never completes (a CI run hung here until its limit)
      synchronized (held) {
        held.push(new Object[] {numbered, f});
      }
      for (SimSpec s : numbered) submitted.add(s.policy());
      // complete the newest held batch from another thread once the scheduler has submitted this one
      CompletableFuture.runAsync(this::releaseOne);
      return f;
    }

    @SuppressWarnings("unchecked")
    private synchronized void releaseOne() {
      Object[] b;
      synchronized (held) {
        b = held.poll();
      }
      if (b == null) return;
      List<RunResult> out = new ArrayList<>();
      for (SimSpec s : (List<SimSpec>) b[0]) out.add(result(s, tps.applyAsDouble(s)));
      ((CompletableFuture<List<RunResult>>) b[1]).complete(out);
    }
  }

  @Test
  void tracksOfOneGroupAndTheirContinuations_numberedInRoundByRoundOrder() {
    // round 0: a0 a1 (A) b0 b1 (B); round 1: a2; round 2: a3; then A and B's continuation: d0 in
    // phase 0 (round 3, after the group's three rounds) and c0 in phase 1 (numbered after every phase-0 run)
    Schedule.Group first = new Schedule.Group(0, List.of(batches("a0,a1", "a2", "a3"), batches("b0,b1")),
        all -> List.of(Schedule.Group.of(1, List.of(batches("c0"))), Schedule.Group.of(0, List.of(batches("d0")))));
    Schedule s = new Schedule(new LastFirst(x -> 1));
    List<RunResult> r = s.run(List.of(first));
    List<String> names = r.stream().map(x -> x.spec().policy()).toList();
    assertEquals(List.of("a0", "a1", "b0", "b1", "a2", "a3", "d0", "c0"), names);
    for (int i = 0; i < r.size(); i++) assertEquals(i, r.get(i).spec().runId());
    assertEquals(4, s.rounds(0));
    assertEquals(1, s.rounds(1));
    // finalIds maps the ids the engine saw (submission order) to these
    int[] ids = s.finalIds();
    assertEquals(8, ids.length);
    assertEquals(8, java.util.Arrays.stream(ids).distinct().count());
  }

  @Test
  void aFailedBatch_failsTheRunWithItsOwnException() {
    Schedule.Engine failing = specs -> specs.get(0).policy().equals("b0")
        ? CompletableFuture.supplyAsync(() -> {
          throw new IllegalArgumentException("simulation b0 failed");
        })
        : CompletableFuture.completedFuture(specs.stream().map(x -> result(x, 1)).toList());
    Schedule s = new Schedule(failing);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> s.run(List.of(Schedule.Group.of(0, List.of(batches("a0", "a1"), batches("b0"))))));
    assertEquals("simulation b0 failed", e.getMessage());
  }

  /**
   * The audit plan's curves run as tracks, with results coming back out of order, give the same
   * simulations under the same run ids as the round-by-round sweep ({@link AuditPlan#nextRound}):
   * every curve with a knee of its own (TPS rises with the rate up to the knee, falls after it).
   */
  @Test
  void auditPlan_tracksOutOfOrder_sameRunsAndIdsAsRoundByRound() {
    List<TraceRecord> recs = Traces.builder().simple("a", "A", 0, 0.0, 1, 2).simple("b", "A", 1, 10.0, 1, 2, 3).records();
    var trace = ReplayTraceBuilder.fromRecords(recs, false);
    ReplaySettings base = ReplaySettings.defaults().with(sb -> {
      sb.profile = io.smetric.audit.testing.Profiles.estimate();
      sb.instances = 4;
    });
    Set<String> runnable = new HashSet<>();
    for (var p : io.smetric.audit.replay.policy.Policies.values()) runnable.add(p.cliName());
    runnable.remove("session-hash");
    AuditPlan ref = AuditPlan.of(trace, base);
    double x0 = ref.rateReference();
    List<AuditPlan.Curve> curves = ref.curves();
    ToDoubleFunction<SimSpec> tps = s -> {
      int c = curves.indexOf(AuditPlan.Curve.of(s));
      double knee = x0 * Math.pow(2, (c % 9) - 5); // knees from x0 / 32 to x0 x 8
      return s.rateScale() <= knee ? s.rateScale() : Math.max(0, 2 * knee - s.rateScale());
    };

    // round by round, numbered in order
    List<RunResult> rounds = new ArrayList<>();
    int id = 0;
    for (List<SimSpec> next = ref.nextRound(rounds, runnable); !next.isEmpty(); next = ref.nextRound(rounds, runnable)) {
      for (SimSpec s : next) rounds.add(result(s.withRunId(id++), tps.applyAsDouble(s)));
    }

    // the anchors (SMetric at each ratio) run in round 0 alone; every warm curve's first batch is
    // its anchor's knee x {2^-0.25, 1, 2^0.25}, so the warm curves' start depends on the anchors' results
    assertEquals(5 * 4, rounds.stream().filter(r -> r.spec().runId() < 20 && r.spec().policy().equals("smetric")).count());
    for (AuditPlan.Curve c : curves) {
      AuditPlan.Curve a = ref.anchorOf(c, runnable);
      if (a == null || !runnable.contains(c.policy())) continue;
      double h = ref.hint(c, rounds, runnable);
      List<Double> first = rounds.stream().filter(r -> AuditPlan.Curve.of(r.spec()).equals(c)).limit(3)
          .map(r -> r.spec().rateScale()).toList();
      assertEquals(List.of(KneeSearch.round(h / KneeSearch.WARM_STEP), h, KneeSearch.round(h * KneeSearch.WARM_STEP)), first,
          c.toString());
    }
    assertTrue(rounds.size() > 62 * 4, "more than one round: " + rounds.size());

    AuditPlan plan = AuditPlan.of(trace, base);
    // the plan's own groups (anchors, then the warm curves), with results coming back out of order:
    // one submission per batch, and batches held back and sent several tracks at a time (as the replay does)
    for (Schedule s : List.of(new Schedule(new LastFirst(tps)), new Schedule(new LastFirst(tps), 2, 5))) {
      List<RunResult> tracked = s.run(List.of(plan.mainSweep(runnable, (c, t) -> t, all -> List.of())));
      assertEquals(rounds.stream().map(r -> r.spec().runId() + " " + r.spec().label()).toList(),
          tracked.stream().map(r -> r.spec().runId() + " " + r.spec().label()).toList());
      assertEquals(ref.describe().get("rounds").asInt(), s.rounds(0));
    }
  }
}
