package io.smetric.audit.replay.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplaySettings;
import org.junit.jupiter.api.Test;

/** Each policy's configuration record: read from the settings' fields of the same names, checked as the settings always were. */
class PolicyConfigTest {
  @Test
  void eachRecord_readsItsOwnSettings_andKeepsThemAsBuilt() {
    ReplaySettings s = new ReplaySettings();
    s.overload = 2.5;
    s.hitRatio = 0.25;
    s.cacheAffinityMinTokens = 512;
    s.dynamoOverlapCredit = 0.5;
    s.dynamoPrefillLoadScale = 2.0;
    s.dynamoDecodeRequestWeight = 0.1;
    s.llmdPrefixWeight = 4;
    s.llmdQueueWeight = 5;
    s.llmdKvUtilWeight = 6;
    s.llmdLoadAwareWeight = 7;
    s.llmdLoadAwareThreshold = 64;
    s.llmdPrefixMaxTokens = 4096;
    s.sglangBalanceAbs = 32;
    s.sglangBalanceRel = 2.0;
    s.sglangCacheThreshold = 0.5;
    s.sessionHashVnodes = 80;
    Policies.SMetricConfig sm = Policies.SMetricConfig.of(s);
    assertEquals(new Policies.SMetricConfig(2.5, 0.25), sm);
    assertEquals(new Policies.CacheAffinityConfig(512), Policies.CacheAffinityConfig.of(s));
    assertEquals(new Policies.DynamoConfig(0.5, 2.0, 0.1), Policies.DynamoConfig.of(s));
    assertEquals(new Policies.LlmdConfig(4, 5, 6, 7, 64, 4096), Policies.LlmdConfig.of(s));
    assertEquals(new Policies.SglangConfig(32, 2.0, 0.5), Policies.SglangConfig.of(s));
    assertEquals(new Policies.SessionHashConfig(80), Policies.SessionHashConfig.of(s));
    s.overload = 3.0; // a value: what a policy was built with does not follow later changes
    assertEquals(2.5, sm.overload());
    assertInstanceOf(SMetricPolicy.class, Policies.SMETRIC_BASIC.create(s));
    assertInstanceOf(LlmdPolicy.class, Policies.LLM_D.create(s));
    assertInstanceOf(SglangCacheAwarePolicy.class, Policies.SGLANG_CACHE_AWARE.create(s));
  }

  @Test
  void validate_reportsTheFirstBadKnob_withTheMessagesItAlwaysHad() {
    assertEquals("replay settings: sessionHashVnodes must be >= 1", error(s -> s.sessionHashVnodes = 0));
    assertEquals("replay settings: llmdPrefixMaxTokens must be >= 1 (Infinity = no cap)", error(s -> s.llmdPrefixMaxTokens = 0.5));
    assertEquals("replay settings: hitRatio must be in [0, 1]", error(s -> s.hitRatio = 1.5));
    // the order of the checks is the settings' own: SLOs before the guards, the guards before SGLang,
    // SGLang before llm-d and the ring, all of them before the windows
    assertEquals("replay settings: SLOs must be >= 0 (TPOT > 0)", error(s -> {
      s.tpotS = 0;
      s.overload = -1;
    }));
    assertEquals("replay settings: overload must be >= 0 (Infinity disables the guard)", error(s -> {
      s.overload = -1;
      s.sglangBalanceRel = 0.5;
    }));
    assertEquals("replay settings: SGLang thresholds: rel >= 1, abs >= 0", error(s -> {
      s.sglangBalanceAbs = -1;
      s.llmdLoadAwareThreshold = 0;
    }));
    assertEquals("replay settings: llm-d load-aware scorer: weight >= 0, threshold >= 1", error(s -> {
      s.llmdLoadAwareThreshold = 0;
      s.sessionHashVnodes = 0;
    }));
    assertEquals("replay settings: sessionHashVnodes must be >= 1", error(s -> {
      s.sessionHashVnodes = 0;
      s.cdfPoints = 1;
    }));
    // and a record built directly checks the same ranges
    assertThrows(UsageException.class, () -> new Policies.SessionHashConfig(0));
  }

  private static String error(java.util.function.Consumer<ReplaySettings> bad) {
    ReplaySettings s = new ReplaySettings();
    s.validate(Policies::checkConfigs); // the defaults pass
    bad.accept(s);
    return assertThrows(UsageException.class, () -> s.validate(Policies::checkConfigs)).getMessage();
  }
}
