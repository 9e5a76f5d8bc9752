package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.replay.policy.CacheAffinityPolicy;
import io.smetric.audit.replay.policy.ClusterView;
import io.smetric.audit.replay.policy.DynamoKvPolicy;
import io.smetric.audit.replay.policy.LMetricBlocksPolicy;
import io.smetric.audit.replay.policy.LMetricPolicy;
import io.smetric.audit.replay.policy.LeastLoadPolicy;
import io.smetric.audit.replay.policy.LlmdPolicy;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.policy.SMetricPolicy;
import io.smetric.audit.replay.policy.SglangCacheAwarePolicy;
import org.junit.jupiter.api.Test;

/** Hand-worked routing examples: a fixed cluster state, and the instance each formula picks. */
class PolicyExamplesTest {

  /** A hand-set cluster of 3 instances; block size 16; request of 160 tokens (10 blocks). */
  static final class View implements ClusterView {
    int input = 160;
    int turn = 3;
    long estHit = 128;
    int[] hitBlocks = {0, 8, 4};
    int[] requests = {1, 5, 2};
    int[] running = {1, 4, 2};
    int[] waiting = {0, 1, 0};
    long[] unprefilled = {0, 300, 40};
    long[] active = {10, 60, 20};
    double[] kv = {0.1, 0.6, 0.2};
    long[] cached = {5, 80, 30};
    boolean disagg;

    public int instances() { return 3; }
    public int blockSize() { return 16; }
    public int inputTokens() { return input; }
    public int promptBlocks() { return (input + 15) / 16; }
    public int turn() { return turn; }
    public long sessionHash() { return 1; }
    public boolean hasSession() { return true; }
    public long estHitTokens() { return estHit; }
    public int localHitBlocks(int i) { return hitBlocks[i]; }
    public long localHitTokens(int i) { return Math.min(hitBlocks[i] * 16L, input); }
    public int requests(int i) { return requests[i]; }
    public int running(int i) { return running[i]; }
    public int waiting(int i) { return waiting[i]; }
    public long unprefilledTokens(int i) { return unprefilled[i]; }
    public long activeBlocks(int i) { return active[i]; }
    public double kvUsage(int i) { return kv[i]; }
    public long cachedBlocks(int i) { return cached[i]; }
    public long load(int i) { return disagg ? unprefilled[i] : requests[i]; }
  }

  @Test
  void smetric_followUpNotOverloaded_sticksToMaxHit() {
    // c = (0, 128, 64) tokens, s = 1; l = (1, 5, 2), mean 8/3; OVERLOAD 2 -> 5 <= 5.33 ok;
    // HIT_RATIO 0.5 -> 128 >= 0.5 x 128 ok -> route to 1
    assertEquals(1, new SMetricPolicy(new Policies.SMetricConfig(2.0, 0.5), true, true).route(new View()));
  }

  @Test
  void smetric_overloadedMaxHit_fallsBackToLeastLoad() {
    // OVERLOAD 1.5 -> 5 > 1.5 x 8/3 = 4 -> round_robin_argmin(l) = 0 (load 1)
    assertEquals(0, new SMetricPolicy(new Policies.SMetricConfig(1.5, 0.5), true, true).route(new View()));
  }

  @Test
  void smetric_sessionEvicted_fallsBackToLeastLoad() {
    // est_hit 320 tokens: 128 < 0.5 x 320 = 160 -> evicted -> least load = 0
    View v = new View();
    v.estHit = 320;
    assertEquals(0, new SMetricPolicy(new Policies.SMetricConfig(2.0, 0.5), true, true).route(v));
    // the basic variant ignores both guards and sticks
    assertEquals(1, new SMetricPolicy(new Policies.SMetricConfig(2.0, 0.5), false, false).route(v));
  }

  @Test
  void smetric_firstTurn_goesToLeastLoadRoundRobin() {
    View v = new View();
    v.turn = 0;
    v.requests = new int[] {2, 2, 2};
    SMetricPolicy p = new SMetricPolicy(new Policies.SMetricConfig(2.0, 0.5), true, true);
    // all tied: the rotating cursor gives 0, then 1, then 2
    assertEquals(0, p.route(v));
    assertEquals(1, p.route(v));
    assertEquals(2, p.route(v));
  }

  @Test
  void leastLoad_picksMinimumRequests() {
    assertEquals(0, new LeastLoadPolicy().route(new View())); // loads 1, 5, 2
  }

  @Test
  void cacheAffinity_minimisesMissPlusQueuedPrefill() {
    // prompt 160 >= min 100: cost = miss + queued = (160+0, 32+300, 96+40) = (160, 332, 136) -> 2
    assertEquals(2, new CacheAffinityPolicy(new Policies.CacheAffinityConfig(100)).route(new View()));
    // below the minimum prompt length it is least load -> 0
    assertEquals(0, new CacheAffinityPolicy(new Policies.CacheAffinityConfig(1024)).route(new View()));
  }

  @Test
  void lmetric_minimisesMissTimesBatchPlusOne() {
    // miss x (requests + 1) = (160 x 2, 32 x 6, 96 x 3) = (320, 192, 288) -> 1
    assertEquals(1, new LMetricPolicy().route(new View()));
  }

  @Test
  void lmetricBlocks_minimisesPrefillBlocksTimesDecodeBlocksPlusOne() {
    // prefill = (10, 20.75, 8.5) as for dynamo below; decode + 1 = (10 + 10 + 1, 60 + 10 + 1,
    // 20 + 10 + 1) = (21, 71, 31); cost = (210, 1473.25, 263.5) -> 0 (lmetric by requests picks 1)
    assertEquals(0, new LMetricBlocksPolicy().route(new View()));
  }

  @Test
  void lmetricBlocks_zeroPrefillTie_fewerDecodeBlocksWins() {
    // no queued prefill; hits (10, 10, 4) of 10 blocks -> prefill (0, 0, 6); decode = active + 10
    // = (70, 20, 30): cost (0, 0, 186); 0 and 1 tie at 0 -> fewer decode blocks -> 1
    View v = new View();
    v.unprefilled = new long[] {0, 0, 0};
    v.hitBlocks = new int[] {10, 10, 4};
    v.active = new long[] {60, 10, 20};
    assertEquals(1, new LMetricBlocksPolicy().route(v));
  }

  @Test
  void dynamo_minimisesPrefillBlocksAfterOverlapPlusDecodeBlocks() {
    // prefill = max(0, (unprefilled + 160)/16 - overlap) = (10 - 0, 28.75 - 8, 12.5 - 4) = (10, 20.75, 8.5)
    // decode = active + 10 = (20, 70, 30); logits = (30, 90.75, 38.5) -> 0
    assertEquals(0, new DynamoKvPolicy(new Policies.DynamoConfig(1, 1, 0)).route(new View()));
  }

  @Test
  void llmd_maximisesWeightedScores() {
    // prefix = (0, 0.8, 0.4); queue over waiting (0,1,0): (1, 0, 1); kv = (0.9, 0.4, 0.8)
    // 3p + 2q + 2k = (0 + 2 + 1.8, 2.4 + 0 + 0.8, 1.2 + 2 + 1.6) = (3.8, 3.2, 4.8) -> 2
    assertEquals(2, new LlmdPolicy(new Policies.LlmdConfig(3, 2, 2, 0, 128, Double.POSITIVE_INFINITY)).route(new View()));
  }

  @Test
  void sglang_balancedCluster_longestPrefixAboveThreshold() {
    // loads (1,5,2): max-min = 4 <= 64 -> cache branch; best match 128/160 = 0.8 > 0.3 -> 1
    assertEquals(1, new SglangCacheAwarePolicy(new Policies.SglangConfig(64, 1.5, 0.3)).route(new View()));
  }

  @Test
  void sglang_imbalancedCluster_leastLoad() {
    // abs 3, rel 1.5: 5 - 1 = 4 > 3 and 5 > 1.5 -> least load = 0
    assertEquals(0, new SglangCacheAwarePolicy(new Policies.SglangConfig(3, 1.5, 0.3)).route(new View()));
  }

  @Test
  void sglang_lowMatch_smallestTree() {
    // best match 128/160 = 0.8 <= 0.9 -> fewest cached blocks = (5, 80, 30) -> 0
    assertEquals(0, new SglangCacheAwarePolicy(new Policies.SglangConfig(64, 1.5, 0.9)).route(new View()));
  }
}
