package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

/**
 * The paper's preconditions measured on the replayed timeline (SimOutcome's operating-point
 * metrics). Hand-made trace, one instance, 16-token blocks, open loop at the trace's own rate:
 *
 * <pre>
 *   request  session  sent   input  blocks
 *   a0       A        0      32     1 2
 *   b0       B        10     32     11 12
 *   a1       A        50     64     1 2 3 4
 *   b1       B        130    48     11 12 13
 *   a2       A        200    80     1 2 3 4 5
 * </pre>
 *
 * Reuse intervals (trace-model section 4 on sent times): a1's blocks 1-2 were last sent at 0:
 * 50 s (32 tokens, within 100 s); b1's 11-12 at 10: 120 s (32 tokens); a2's 1-4 at 50: 150 s (64
 * tokens). Hit tokens 128, within 100 s 32: share 0.25. Whole minutes inside [0, 200]: [0, 60)
 * with 3 requests, [60, 120) with 0, [120, 180) with 1: ratios 3, 0, 1 per instance, median 1,
 * mean 4/3. The local tier (1000 blocks = 16,000 tokens) keeps everything: local hits = the 128
 * hit tokens, so 256 - 128 = 128 tokens enter it over the run: turnover 16,000 x duration / 128.
 */
class OperatingPointTest {
  private static ReplayTrace trace() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .req("a0", "A", null, 0, "user", 0, 32, 4, 1, 2)
        .req("b0", "B", null, 0, "user", 10, 32, 4, 11, 12)
        .req("a1", "A", "a0", 1, "tool", 50, 64, 4, 1, 2, 3, 4)
        .req("b1", "B", "b0", 1, "tool", 130, 48, 4, 11, 12, 13)
        .req("a2", "A", "a1", 2, "tool", 200, 80, 4, 1, 2, 3, 4, 5);
    return ReplayFixtures.trace(b, false);
  }

  @Test
  void handMadeTrace_operatingPointMetrics() {
    SimOutcome o = ReplayFixtures.run(trace(), ReplayFixtures.settings(1, 1000), Policies.LEAST_LOAD);
    assertEquals(0.25, (double) o.metrics.get("reuse_within_threshold_share"), 1e-12);
    assertEquals(1.0, (double) o.metrics.get("requests_per_instance_minute_median"), 0.0);
    assertEquals(4.0 / 3, (double) o.metrics.get("requests_per_instance_minute_mean"), 1e-12);
    assertEquals(3L, o.metrics.get("whole_minutes"));
    double d = (double) o.metrics.get("duration_s");
    assertEquals(1.0, (double) o.metrics.get("local_hit_ratio") * 256 / 128, 1e-12);
    assertEquals(16_000 * d / 128, (double) o.metrics.get("local_hold_s"), 1e-9);
    assertEquals(1.0, (double) o.metrics.get("reuse_within_local_hold_share"), 0.0);
    // A lives from 0 to a2's finish (~200 s), B from 10 to b1's finish (~130 s): (200 + 120) / ~200
    double live = (double) o.metrics.get("live_sessions_per_instance");
    assertEquals(320 / d, live, 0.01);
  }

  /**
   * At twice the rate (uniform) every interval halves: 25, 60 and 75 s are all within 100 s; the
   * trace spans [0, 100], one whole minute [0, 60) with a0, b0, a1: 3 requests.
   */
  @Test
  void doubleRate_intervalsShrinkOnTheReplayedTimeline() {
    ReplaySettings s = ReplayFixtures.settings(1, 1000).with(sb -> sb.rateScale = 2);
    SimOutcome o = ReplayFixtures.run(trace(), s, Policies.LEAST_LOAD);
    assertEquals(1.0, (double) o.metrics.get("reuse_within_threshold_share"), 0.0);
    assertEquals(3.0, (double) o.metrics.get("requests_per_instance_minute_median"), 0.0);
    s = s.with(sb -> sb.reuseIntervalThresholdS = 30); // only a1's 25 s (32 of 128 hit tokens)
    o = ReplayFixtures.run(trace(), s, Policies.LEAST_LOAD);
    assertEquals(0.25, (double) o.metrics.get("reuse_within_threshold_share"), 1e-12);
  }

  @Test
  void unboundedLocalTier_holdNotApplicable() {
    SimOutcome o = ReplayFixtures.run(trace(), ReplayFixtures.settings(1, -1), Policies.LEAST_LOAD);
    assertTrue(o.notApplicable.get("local_hold_s").contains("unbounded"));
  }

  /**
   * What the run asked of its instance (compared with a profile's validated regime): inputs 32, 32,
   * 48, 64, 80 -> p50 (nearest rank 3 of 5) 48, p90 (rank 5) 80, max 80; contexts up to 80 + 4.
   * Requests in flight = summed send-to-response time / duration / instances. The five requests are
   * tens of seconds apart, so none waits for admission: queue wait 0.
   */
  @Test
  void handMadeTrace_lengthsInFlightAndNoQueueWait() {
    SimOutcome o = ReplayFixtures.run(trace(), ReplayFixtures.settings(1, 1000), Policies.LEAST_LOAD);
    assertEquals(48.0, (double) o.metrics.get("input_tokens_p50"), 0.0);
    assertEquals(80.0, (double) o.metrics.get("input_tokens_p90"), 0.0);
    assertEquals(80.0, (double) o.metrics.get("input_tokens_max"), 0.0);
    assertEquals(84.0, (double) o.metrics.get("context_tokens_max"), 0.0);
    double busy = 0;
    for (int r = 0; r < 5; r++) busy += o.finish[r] - o.arrival[r];
    assertEquals(busy / (double) o.metrics.get("duration_s"), (double) o.metrics.get("in_flight_per_instance_mean"), 1e-12);
    assertEquals(0.0, (double) o.metrics.get("queue_wait_mean_s"), 0.0);
    assertEquals(0.0, (double) o.metrics.get("queue_wait_share_of_ttft"), 0.0);
  }

  /**
   * Batch limit 1 and two requests sent together: the second is admitted only when the first has
   * finished, so its queue wait is the first one's finish time, and the mean wait half of it.
   */
  @Test
  void batchOfOne_secondRequestWaitsForTheFirstToFinish() {
    ReplayTrace t = ReplayFixtures.trace(Traces.builder().blockSize(16)
        .req("x", "X", null, 0, "user", 0, 32, 4, 1, 2)
        .req("y", "Y", null, 0, "user", 0, 32, 4, 11, 12), false);
    ReplaySettings s = ReplayFixtures.settings(1, 1000).with(sb -> sb.profile = sb.profile.with(p -> p.maxBatch = 1));
    SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    int first = o.finish[0] < o.finish[1] ? 0 : 1;
    double wait = o.finish[first] - o.arrival[1 - first];
    assertTrue(wait > 0);
    assertEquals(wait / 2, (double) o.metrics.get("queue_wait_mean_s"), 1e-12);
    assertEquals(wait, (double) o.metrics.get("queue_wait_p90_s"), 1e-12);
    assertEquals(wait / (o.ttft(0) + o.ttft(1)), (double) o.metrics.get("queue_wait_share_of_ttft"), 1e-12);
  }
}
