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
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.overload = 2.5;
      sb.hitRatio = 0.25;
      sb.cacheAffinityMinTokens = 512;
      sb.dynamoOverlapCredit = 0.5;
      sb.dynamoPrefillLoadScale = 2.0;
      sb.dynamoDecodeRequestWeight = 0.1;
      sb.llmdPrefixWeight = 4;
      sb.llmdQueueWeight = 5;
      sb.llmdKvUtilWeight = 6;
      sb.llmdLoadAwareWeight = 7;
      sb.llmdLoadAwareThreshold = 64;
      sb.llmdPrefixMaxTokens = 4096;
      sb.sglangBalanceAbs = 32;
      sb.sglangBalanceRel = 2.0;
      sb.sglangCacheThreshold = 0.5;
      sb.sessionHashVnodes = 80;
    });
    Policies.SMetricConfig sm = Policies.SMetricConfig.of(s);
    assertEquals(new Policies.SMetricConfig(2.5, 0.25), sm);
    assertEquals(new Policies.CacheAffinityConfig(512), Policies.CacheAffinityConfig.of(s));
    assertEquals(new Policies.DynamoConfig(0.5, 2.0, 0.1), Policies.DynamoConfig.of(s));
    assertEquals(new Policies.LlmdConfig(4, 5, 6, 7, 64, 4096), Policies.LlmdConfig.of(s));
    assertEquals(new Policies.SglangConfig(32, 2.0, 0.5), Policies.SglangConfig.of(s));
    assertEquals(new Policies.SessionHashConfig(80), Policies.SessionHashConfig.of(s));
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

  private static String error(java.util.function.Consumer<ReplaySettings.Builder> bad) {
    ReplaySettings s = ReplaySettings.defaults();
    s.validate(Policies::checkConfigs); // the defaults pass
    ReplaySettings b = s.with(bad);
    return assertThrows(UsageException.class, () -> b.validate(Policies::checkConfigs)).getMessage();
  }
}
