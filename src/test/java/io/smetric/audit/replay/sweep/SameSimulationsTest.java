package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.ReplaySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The engine that runs each distinct simulation once, and how the runs table credits its time. */
class SameSimulationsTest {
  private static final double INF = Double.POSITIVE_INFINITY;
  private final ReplaySettings base = ReplaySettings.defaults(); // OVERLOAD 1.5, HIT_RATIO 0.5

  /** An engine that records what it was asked to run; a run's TPS is 100 x its run id, its times 2 s and 3 s. */
  private static final class Recording implements Schedule.Engine {
    final List<List<Integer>> submitted = new ArrayList<>();

    @Override
    public CompletableFuture<List<RunResult>> submit(List<SimSpec> numbered) {
      submitted.add(numbered.stream().map(SimSpec::runId).toList());
      List<RunResult> out = new ArrayList<>();
      for (SimSpec s : numbered) out.add(result(s, 100.0 * s.runId(), 2, 3));
      return CompletableFuture.completedFuture(out);
    }
  }

  private static RunResult result(SimSpec s, double tps, double wall, double cpu) {
    return new RunResult(s, Map.of("tps_within_slo", tps), Map.of(), new double[0], new double[0], new double[0],
        new double[0][], wall, cpu);
  }

  private static SimSpec main(int id, String policy, double o, double h) {
    return new SimSpec(id, policy, 1.6, 0.25, o, h);
  }

  private static SimSpec condition(int id, String policy, double o, double h) {
    return new SimSpec(id, policy, 1.6, 0.25, o, h, 0, "param:overload", null);
  }

  @Test
  void theSameSimulation_runsOnce_andItsCopiesTakeItsResultWithNoTime() {
    Recording inner = new Recording();
    SameSimulations same = new SameSimulations(inner, base);
    // batch 1: eviction-only, and SMetric at OVERLOAD infinity (its twin) in the same batch
    List<RunResult> b1 = same.submit(List.of(main(0, "smetric-eviction-only", Double.NaN, 0.5),
        main(1, "smetric", INF, 0.5), main(2, "smetric", 1.5, 0.5))).join();
    // batch 2: SMetric at HIT_RATIO 0 after overload-only; and a repeat of run 2 as a condition point
    same.submit(List.of(main(3, "smetric-overload-only", 1.5, Double.NaN))).join();
    List<RunResult> b3 = same.submit(List.of(main(4, "smetric", 1.5, 0.0), condition(5, "smetric", 1.5, 0.5))).join();
    assertEquals(List.of(List.of(0, 2), List.of(3)), inner.submitted, "runs 1, 4 and 5 are copies");
    assertEquals(3, b1.size());
    RunResult copy1 = b1.stream().filter(r -> r.spec().runId() == 1).findFirst().orElseThrow();
    assertEquals(main(1, "smetric", INF, 0.5), copy1.spec(), "a copy keeps its own spec");
    assertEquals(0.0, copy1.metrics().get("tps_within_slo"), "run 0's result (TPS 100 x 0)");
    assertEquals(0.0, copy1.wallSeconds());
    assertEquals(0.0, copy1.cpuSeconds());
    assertEquals(300.0, b3.get(0).metrics().get("tps_within_slo"), "run 4 takes run 3's");
    assertEquals(200.0, b3.get(1).metrics().get("tps_within_slo"), "run 5 takes run 2's");
    assertEquals(Map.of(1, 0, 4, 3, 5, 2), same.copyOf());
  }

  @Test
  void aMainRun_neverTakesAConditionRun_theSeriesTablesReadMainRunsOnly() {
    Recording inner = new Recording();
    SameSimulations same = new SameSimulations(inner, base);
    same.submit(List.of(condition(0, "smetric", INF, 0.5))).join();
    same.submit(List.of(main(1, "smetric-eviction-only", Double.NaN, 0.5))).join();
    same.submit(List.of(main(2, "smetric", INF, 0.5), condition(3, "smetric-eviction-only", Double.NaN, 0.5))).join();
    // run 1 runs although run 0 is its simulation; main run 2 then takes run 1's, condition 3 run 0's
    assertEquals(List.of(List.of(0), List.of(1)), inner.submitted);
    assertEquals(Map.of(2, 1, 3, 0), same.copyOf());
  }

  @Test
  void aFailedSimulation_failsItsCopies() {
    Schedule.Engine failing = specs -> CompletableFuture.failedFuture(new IllegalStateException("boom"));
    SameSimulations same = new SameSimulations(failing, base);
    CompletableFuture<List<RunResult>> f = same.submit(List.of(main(0, "smetric", INF, 0.5), main(1, "smetric-eviction-only", Double.NaN, 0.5)));
    assertTrue(f.isCompletedExceptionally());
  }

  @Test
  void sameAs_namesTheLowestRunId_andCreditLowest_movesTheTimeThere() {
    // final ids: 0 lmetric; 1 and 4 one simulation (4 simulated: 5 s, 7 s); 2 and 3 another (2 simulated)
    List<RunResult> rs = List.of(
        result(main(0, "lmetric", Double.NaN, Double.NaN), 1, 1, 1),
        result(main(1, "smetric", INF, 0.5), 2, 0, 0),
        result(main(2, "smetric-overload-only", 1.5, Double.NaN), 3, 4, 6),
        result(main(3, "smetric", 1.5, 0.0), 3, 0, 0),
        result(main(4, "smetric-eviction-only", Double.NaN, 0.5), 2, 5, 7));
    Map<Integer, Integer> same = SameSimulations.sameAs(rs, base);
    assertEquals(Map.of(3, 2, 4, 1), same);
    List<RunResult> credited = SameSimulations.creditLowest(rs, same);
    double[][] times = credited.stream().map(r -> new double[] {r.wallSeconds(), r.cpuSeconds()}).toArray(double[][]::new);
    assertEquals(List.of(1.0, 5.0, 4.0, 0.0, 0.0), java.util.Arrays.stream(times).map(t -> t[0]).toList());
    assertEquals(List.of(1.0, 7.0, 6.0, 0.0, 0.0), java.util.Arrays.stream(times).map(t -> t[1]).toList());
    for (int i = 0; i < rs.size(); i++) assertEquals(rs.get(i).metrics(), credited.get(i).metrics());
  }
}
