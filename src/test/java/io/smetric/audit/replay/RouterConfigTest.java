package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.policy.LlmdPolicy;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.policy.RouterConfig;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * --current-router NAME:CONFIG: the shipped example configurations (docs/examples/routers, in the
 * routers' own schemas) read to the knobs worked out by hand from the files and the routers'
 * sources; unmodelled plugins, parameters and flags are usage errors naming them; a configured
 * router routes a small trace differently from the defaults where its knobs differ.
 */
class RouterConfigTest {
  private static final Path EXAMPLES = Path.of("docs/examples/routers");

  private static ReplaySettings applied(String spec) {
    ReplaySettings.Builder s = new ReplaySettings.Builder();
    RouterConfig.parse(spec).apply(s);
    return s.build();
  }

  private static String knob(ReplaySettings s, String knobPrefix) {
    return s.currentRouterConfig.stream().filter(k -> k.knob().startsWith(knobPrefix)).findFirst()
        .map(k -> k.value() + " | " + k.source()).orElse(null);
  }

  private static String error(String spec) {
    return assertThrows(UsageException.class, () -> RouterConfig.parse(spec)).getMessage();
  }

  // ---- llm-d ----
  @Test
  void llmdDefaultConfig_readsTheDefaultWeights_andTheRoutersPrefixCap() {
    ReplaySettings s = applied("llm-d:" + EXAMPLES.resolve("llm-d-default.yaml"));
    assertEquals(3, s.llmdPrefixWeight);
    assertEquals(2, s.llmdQueueWeight);
    assertEquals(2, s.llmdKvUtilWeight);
    assertEquals(0, s.llmdLoadAwareWeight);
    // no prefix parameters: defaultMaxPrefixBlocks 256 x defaultBlockSizeTokens 16 = 4096 tokens
    assertEquals(4096, s.llmdPrefixMaxTokens);
    assertTrue(knob(s, "prefix-cache-scorer prompt tokens").contains("defaultMaxPrefixBlocks 256"), knob(s, "prefix-cache-scorer prompt"));
    assertTrue(knob(s, "prefix-cache-scorer weight").contains("schedulingProfiles[0].plugins[2] weight"));
    assertTrue(knob(s, "load-aware-scorer weight").contains("not in the scheduling profile"));
    assertTrue(knob(s, "picker").contains("the loader adds max-score-picker"), "the loader's default picker is listed");
    assertTrue(knob(s, "plugins[3]").contains("reads them exactly"), "the metrics data source is listed, not dropped");
  }

  @Test
  void llmdPrefixLoadConfig_namedPluginLegacyBlockSizeAndDefaultWeight() {
    ReplaySettings s = applied("llmd:" + EXAMPLES.resolve("llm-d-prefix-load.yaml"));
    assertEquals(2.0, s.llmdPrefixWeight);
    assertEquals(1.0, s.llmdLoadAwareWeight); // no weight given: DefaultScorerWeight 1.0
    assertTrue(knob(s, "load-aware-scorer weight").contains("DefaultScorerWeight 1.0"));
    assertEquals(0, s.llmdQueueWeight);
    assertEquals(0, s.llmdKvUtilWeight);
    assertEquals(64, s.llmdLoadAwareThreshold);
    // 128 blocks x (64 characters / 4 characters per token) = 2048 tokens
    assertEquals(2048, s.llmdPrefixMaxTokens);
    assertTrue(knob(s, "prefix lruCapacityPerServer=31250").startsWith("no effect in the replay"));
    assertTrue(knob(s, "plugins[1]").contains("decode filter keeps such pods"), knob(s, "plugins[1]"));
  }

  @Test
  void llmdNoProfiles_everyScorerWithWeightOne(@TempDir Path tmp) throws Exception {
    Path f = tmp.resolve("c.yaml");
    Files.writeString(f, "plugins:\n- type: queue-scorer\n- type: kv-cache-scorer\n");
    ReplaySettings s = applied("llm-d:" + f);
    assertEquals(1, s.llmdQueueWeight);
    assertEquals(1, s.llmdKvUtilWeight);
    assertEquals(0, s.llmdPrefixWeight);
  }

  @Test
  void llmdUnmodelledPluginParameterOrProfile_isAnErrorNamingIt(@TempDir Path tmp) throws Exception {
    Path precise = tmp.resolve("precise.yaml");
    Files.writeString(precise, "plugins:\n- type: precise-prefix-cache-scorer\nschedulingProfiles:\n- name: default\n"
        + "  plugins:\n  - pluginRef: precise-prefix-cache-scorer\n");
    String e = error("llm-d:" + precise);
    assertTrue(e.contains("plugins[0]") && e.contains("'precise-prefix-cache-scorer' is not modelled")
        && e.contains("modelled: the scorers prefix-cache-scorer"), e);
    Path mode = tmp.resolve("mode.yaml");
    Files.writeString(mode, "plugins:\n- type: prefix-cache-scorer\n  parameters:\n    mode: cache_tracking\n");
    e = error("llm-d:" + mode);
    assertTrue(e.contains("parameter 'mode' is not modelled") && e.contains("maxPrefixBlocksToMatch"), e);
    Path pd = tmp.resolve("pd.yaml");
    Files.writeString(pd, "plugins:\n- type: prefix-cache-scorer\nschedulingProfiles:\n- name: prefill\n  plugins:\n"
        + "  - pluginRef: prefix-cache-scorer\n- name: decode\n  plugins:\n  - pluginRef: prefix-cache-scorer\n");
    assertTrue(error("llm-d:" + pd).contains("2 scheduling profiles; one is modelled"));
    Path ref = tmp.resolve("ref.yaml");
    Files.writeString(ref, "plugins:\n- type: queue-scorer\nschedulingProfiles:\n- name: d\n  plugins:\n  - pluginRef: queue\n");
    assertTrue(error("llm-d:" + ref).contains("pluginRef 'queue' names no plugin"));
    Path flow = tmp.resolve("flow.yaml");
    Files.writeString(flow, "plugins:\n- type: queue-scorer\nflowControl: {}\n");
    assertTrue(error("llm-d:" + flow).contains("flowControl is not modelled"));
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, "plugins:\n  - type: [\n");
    assertTrue(error("llm-d:" + bad).startsWith(bad + ":"), error("llm-d:" + bad));
  }

  @Test
  void llmdPolicy_prefixCapAndLoadAware_byHand() {
    // View: 160-token prompt; hits (0, 128, 64) tokens. Queue scores 1 (no waiting), kv use (0.5, 0.5, 0.4).
    PolicyExamplesTest.View v = new PolicyExamplesTest.View();
    v.waiting = new int[] {0, 0, 0};
    v.kv = new double[] {0.5, 0.5, 0.4};
    // uncapped: 3 x (0, 0.8, 0.4) + 2 x (0.5, 0.5, 0.6) = (1, 3.4, 2.4) -> 1
    assertEquals(1, new LlmdPolicy(new Policies.LlmdConfig(3, 0, 2, 0, 128, Double.POSITIVE_INFINITY)).route(v));
    // the first 64 tokens only: prefix = min(hit, 64) / 64 = (0, 1, 1): (1, 4, 4.2) -> 2
    assertEquals(2, new LlmdPolicy(new Policies.LlmdConfig(3, 0, 2, 0, 128, 64)).route(v));
    // load-aware alone, threshold 2, waiting (0, 3, 1): 0.5 x (1 - min(q, 2) / 2) = (0.5, 0, 0.25) -> 0
    v.waiting = new int[] {0, 3, 1};
    assertEquals(0, new LlmdPolicy(new Policies.LlmdConfig(0, 0, 0, 1, 2, Double.POSITIVE_INFINITY)).route(v));
  }

  // ---- SGLang ----
  @Test
  void sglangLaunchCommandFile_readsTheThreeThresholds() {
    ReplaySettings s = applied("sglang:" + EXAMPLES.resolve("sglang-router.flags"));
    assertEquals(0.5, s.sglangCacheThreshold);
    assertEquals(32, s.sglangBalanceAbs);
    assertEquals(1.2, s.sglangBalanceRel);
    assertTrue(knob(s, "--worker-urls").contains("deployment only"));
    assertTrue(knob(s, "command python -m sglang_router.launch_router") != null);
    assertTrue(knob(s, "--policy -> replay policy").startsWith("cache_aware | "), knob(s, "--policy"));
  }

  @Test
  void sglangInlineFlags_routerPrefixAndDefaultsFromSource() {
    ReplaySettings s = applied("sglang:--router-cache-threshold=0.1");
    assertEquals(0.1, s.sglangCacheThreshold);
    assertEquals(64, s.sglangBalanceAbs);
    assertEquals(1.5, s.sglangBalanceRel);
    assertTrue(knob(s, "--balance-abs-threshold").contains("sgl-router/src/main.rs"), knob(s, "--balance-abs-threshold"));
    assertEquals(Policies.SGLANG_CACHE_AWARE, RouterConfig.parse("sglang:--cache-threshold 0.2").policy());
  }

  @Test
  void sglangUnmodelledFlag_isAnErrorNamingIt() {
    assertTrue(error("sglang:--max-tree-size 1000").contains("--max-tree-size is not modelled"));
    assertTrue(error("sglang:--router-eviction-interval 60").contains("--router-eviction-interval is not modelled"));
    String e = error("sglang:--cache-threshold 0.3 --dp-aware");
    assertTrue(e.contains("--dp-aware is not modelled") && e.contains("modelled: --policy cache_aware"), e);
    assertTrue(error("sglang:--policy power_of_two").contains("not the cache-aware router"));
    assertTrue(error("sglang:--cache-threshold 1.5").contains("out of range"));
  }

  // ---- Dynamo ----
  @Test
  void dynamoLaunchCommandFile_deprecatedWeightSetsThePrefillScale() {
    ReplaySettings s = applied("dynamo:" + EXAMPLES.resolve("dynamo-kv.flags"));
    assertEquals(2, s.dynamoPrefillLoadScale);
    assertEquals(1, s.dynamoOverlapCredit);
    assertTrue(knob(s, "prefill_load_scale").contains("apply_deprecated_overlap_score_weight_override"));
    assertTrue(knob(s, "overlap_score_credit").contains("default 1.0"));
    assertTrue(knob(s, "--kv-cache-block-size 64").startsWith("no effect in the replay"));
  }

  @Test
  void dynamoWeightZero_alsoZeroesTheCredit_andCanonicalFlagsRead() {
    ReplaySettings s = applied("dynamo:--router-mode kv --kv-overlap-score-weight 0");
    assertEquals(0, s.dynamoPrefillLoadScale);
    assertEquals(0, s.dynamoOverlapCredit);
    s = applied("dynamo:--router-kv-overlap-score-credit 0.5 --router-prefill-load-scale 3 --router-temperature 0");
    assertEquals(0.5, s.dynamoOverlapCredit);
    assertEquals(3, s.dynamoPrefillLoadScale);
  }

  @Test
  void dynamoUnmodelledFlag_isAnErrorNamingIt() {
    assertTrue(error("dynamo:--router-temperature 0.5").contains("--router-temperature 0.5 is not modelled"));
    assertTrue(error("dynamo:--no-kv-events").contains("--no-kv-events is not modelled"));
    String e = error("dynamo:--router-queue-threshold 4");
    assertTrue(e.contains("--router-queue-threshold is not modelled") && e.contains("--router-kv-overlap-score-credit"), e);
    assertTrue(error("dynamo:--router-kv-overlap-score-credit 1.5").contains("out of [0, 1]"));
    assertTrue(error("dynamo:--router-mode round-robin").contains("not the KV router"));
    assertTrue(error("cache-affinity:x").contains("only llm-d"));
  }

  @Test
  void plainName_hasNoConfig() {
    assertTrue(RouterConfig.hasConfig("llm-d:x.yaml"));
    assertTrue(!RouterConfig.hasConfig("llm-d"));
    assertNull(ReplaySettings.defaults().currentRouterConfig);
    // without a configuration, the settings in replay.json carry no configuration key
    assertTrue(!ReplaySettings.defaults().toJson().contains("currentRouterConfig"));
    assertTrue(applied("sglang:--cache-threshold 0.2").toJson().contains("currentRouterConfig"));
  }

  // ---- routing differs where the knobs differ ----
  /** a0 (session A, blocks 1-4) at t=0, a1 (A, blocks 1-8) at t=50, long after a0 finished; 2 instances. */
  private static ReplayTrace twoTurns() {
    return ReplayFixtures.trace(Traces.builder().blockSize(16)
        .simple("a0", "A", 0, 0.0, 1, 2, 3, 4)
        .simple("a1", "A", 1, 50.0, 1, 2, 3, 4, 5, 6, 7, 8), false);
  }

  private static int[] route(ReplaySettings s, Policies p) {
    SimOutcome o = ReplayFixtures.run(twoTurns(), s, p);
    return o.instance;
  }

  private static ReplaySettings configured(String spec) {
    ReplaySettings.Builder s = ReplayFixtures.settingsBuilder(2, 1000);
    RouterConfig.parse(spec).apply(s);
    return s.build();
  }

  @Test
  void sglangCacheThreshold_aboveTheMatch_sendsTheFollowUpToTheSmallestTree() {
    // a0: balanced, no match -> smallest tree, tie -> 0. a1: match 64/128 = 0.5.
    // default threshold 0.3: 0.5 > 0.3 -> the matching instance 0; configured 0.6: smallest tree (4, 0 blocks) -> 1
    assertEquals(0, route(ReplayFixtures.settings(2, 1000), Policies.SGLANG_CACHE_AWARE)[1]);
    assertEquals(1, route(configured("sglang:--cache-threshold 0.6"), Policies.SGLANG_CACHE_AWARE)[1]);
  }

  @Test
  void dynamoWeightZero_ignoresTheOverlap() {
    // a1 defaults: logit = 1 x max(0, 128/16 - 1 x hit) + (0 active + 8 new blocks) = (4 + 8, 8 + 8) -> 0.
    // weight 0 (scale 0, credit 0): logits (8, 8) tie; a0 took 0 (tie, cursor -> 1) -> 1
    assertEquals(0, route(ReplayFixtures.settings(2, 1000), Policies.DYNAMO_KV)[1]);
    assertEquals(1, route(configured("dynamo:--router-kv-overlap-score-weight 0"), Policies.DYNAMO_KV)[1]);
  }

  @Test
  void llmdQueueOnlyProfile_ignoresThePrefix(@TempDir Path tmp) throws Exception {
    // default weights: a1 prefix (0.5, 0) x 3 outweighs kv use (a few blocks of 1000) -> 0.
    // queue-scorer alone: every score 1, tie; a0 took 0 (cursor -> 1) -> 1
    Path f = tmp.resolve("q.yaml");
    Files.writeString(f, "plugins:\n- type: queue-scorer\nschedulingProfiles:\n- name: default\n  plugins:\n"
        + "  - pluginRef: queue-scorer\n    weight: 1\n");
    assertEquals(0, route(ReplayFixtures.settings(2, 1000), Policies.LLM_D)[1]);
    assertEquals(1, route(configured("llm-d:" + f), Policies.LLM_D)[1]);
  }
}
