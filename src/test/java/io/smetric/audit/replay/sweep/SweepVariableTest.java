package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplaySettings;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The sweep's typed variables: the names replay.json carries, and each one setting its own field on a copy. */
class SweepVariableTest {
  @Test
  void keys_areTheNamesReplayJsonCarries() {
    // a run's overrides in replay.json and the replay table: fixed output names
    assertEquals(List.of("profile.globalReadGBps", "profile.globalLookupLatencyS", "profile.globalSaveGBps",
        "profile.globalSaveBlocksStep", "profile.prefillPerTokenS", "profile.tokenBudget", "ttftPerTokenS", "overload",
        "hitRatio", "instances", "decideAttainment"), Arrays.stream(SweepVariable.values()).map(SweepVariable::key).toList());
    for (SweepVariable v : SweepVariable.values()) assertEquals(v, SweepVariable.byKey(v.key()));
    assertEquals("globalReadGBps", SweepVariable.GLOBAL_READ_GBPS.profileField());
    assertEquals(null, SweepVariable.INSTANCES.profileField());
    assertThrows(UsageException.class, () -> SweepVariable.byKey("profile.noSuchField"));
  }

  @Test
  void with_setsItsOwnField_onACopy() {
    ReplaySettings base = ReplaySettings.defaults();
    String before = base.toJson();
    assertEquals(3.5, SweepVariable.GLOBAL_READ_GBPS.with(base, 3.5).profile.globalReadGBps);
    assertEquals(0.02, SweepVariable.GLOBAL_LOOKUP_LATENCY_S.with(base, 0.02).profile.globalLookupLatencyS);
    assertEquals(5.65, SweepVariable.GLOBAL_SAVE_GBPS.with(base, 5.65).profile.globalSaveGBps);
    assertTrue(SweepVariable.GLOBAL_SAVE_BLOCKS_STEP.with(base, 1).profile.globalSaveBlocksStep);
    assertFalse(SweepVariable.GLOBAL_SAVE_BLOCKS_STEP.with(base, 0).profile.globalSaveBlocksStep);
    assertEquals(1.5e-4, SweepVariable.PREFILL_PER_TOKEN_S.with(base, 1.5e-4).profile.prefillPerTokenS);
    assertEquals(512, SweepVariable.TOKEN_BUDGET.with(base, 511.6).profile.tokenBudget, "an int field takes the value rounded");
    assertEquals(5e-4, SweepVariable.TTFT_PER_TOKEN_S.with(base, 5e-4).ttftPerTokenS);
    assertEquals(3.0, SweepVariable.OVERLOAD.with(base, 3.0).overload);
    assertEquals(0.75, SweepVariable.HIT_RATIO.with(base, 0.75).hitRatio);
    assertEquals(7, SweepVariable.INSTANCES.with(base, 7).instances);
    assertEquals(0.9, SweepVariable.DECIDE_ATTAINMENT.with(base, 0.9).decideAttainment);
    // the base is left as it was (its profile too: each builder has its own copy)
    assertEquals(before, base.toJson());
    // and the getter reads what the setter wrote (booleans as 0 / 1)
    for (SweepVariable v : SweepVariable.values()) {
      double x = v == SweepVariable.GLOBAL_SAVE_BLOCKS_STEP ? 1 : v == SweepVariable.TOKEN_BUDGET || v == SweepVariable.INSTANCES ? 9 : 0.25;
      assertEquals(x, v.get(v.with(base, x)), v.key());
    }
    assertEquals(0, SweepVariable.GLOBAL_SAVE_BLOCKS_STEP.get(SweepVariable.GLOBAL_SAVE_BLOCKS_STEP.with(base, 0)));
    assertEquals(base.profile.globalReadGBps, SweepVariable.GLOBAL_READ_GBPS.get(base));
    assertEquals(base.instances, SweepVariable.INSTANCES.get(base));
  }

  @Test
  void simSpec_appliesItsOverrides_andRefusesAnUnknownName() {
    ReplaySettings base = ReplaySettings.defaults();
    TreeMap<String, Double> ov = new TreeMap<>(Map.of("instances", 3.0, "profile.globalReadGBps", 6.8));
    ReplaySettings s = new SimSpec(0, "smetric", 1.6, 0.5, 3.0, 0.0, 0, "x", ov).apply(base);
    assertEquals(3, s.instances);
    assertEquals(6.8, s.profile.globalReadGBps);
    assertEquals(1.6, s.globalRatio);
    assertEquals(0.5, s.rateScale);
    assertEquals(3.0, s.overload);
    assertEquals(0.0, s.hitRatio);
    assertFalse(base.instances == 3 || base.profile.globalReadGBps == 6.8, "the base is not changed");
    TreeMap<String, Double> bad = new TreeMap<>(Map.of("profile.globalReadGbps", 6.8));
    assertThrows(UsageException.class, () -> new SimSpec(0, "smetric", 1.6, 0.5, 3.0, 0.0, 0, "x", bad));
  }
}
