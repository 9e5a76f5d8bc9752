package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sweep.SimSpec;
import io.smetric.audit.replay.sweep.Sweep;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplaySettingsAndSweepTest {
  @TempDir Path tmp;

  @Test
  void defaultProfile_derivedLocalCapacity_matchesDocumentedArithmetic() {
    // (96 x 0.9 - 56.87 - 4) GiB = 25.53 GiB = 27,412,628,767 B; / (98,304 x 16 B) = 17,428.5 -> 17,428
    assertEquals(17_428L, ReplaySettings.defaults().localCapacity(16));
  }

  @Test
  void globalCapacity_isRatioOfTotalLocal() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.instances = 4;
      sb.localBlocks = 100L;
      sb.globalRatio = 0.4;
    });
    assertEquals(160L, s.globalCapacity(16)); // 0.4 x 4 x 100
    s = s.with(sb -> sb.localBlocks = -1L);
    assertEquals(Long.MAX_VALUE, s.globalCapacity(16));
  }

  @Test
  void yamlOverrides_applyAndUnknownFieldIsUsageError() throws Exception {
    Path y = tmp.resolve("s.yaml");
    Files.writeString(y, "instances: 8\noverload: Infinity\nprofile:\n  maxBatch: 64\n");
    ReplaySettings s = ReplaySettings.load(y, ReplaySettings.defaults());
    assertEquals(8, s.instances);
    assertTrue(Double.isInfinite(s.overload));
    assertEquals(64, s.profile.maxBatch);
    assertEquals(8192, s.profile.tokenBudget); // untouched default
    Path bad = tmp.resolve("b.json");
    Files.writeString(bad, "{\"instancez\": 3}");
    assertThrows(UsageException.class, () -> ReplaySettings.load(bad, ReplaySettings.defaults()));
  }

  @Test
  void load_nestedProfile_replacesTheBaseProfile_notMergedIntoIt() throws Exception {
    // as before the settings were a value: no @JsonMerge, so a nested object is a whole new profile
    Path y = tmp.resolve("p.yaml");
    Files.writeString(y, "profile:\n  maxBatch: 3\n");
    ReplaySettings base = ReplaySettings.defaults();
    ReplaySettings s = ReplaySettings.load(y, base);
    assertEquals(3, s.profile.maxBatch);
    assertEquals(1.1, base.profile.globalReadGBps, "the shipped default profile's read rate");
    assertNotEquals(base.profile.globalReadGBps, s.profile.globalReadGBps, "not the base profile's");
    assertNotEquals(base.profile.name, s.profile.name);
  }

  @Test
  void load_unknownField_namesTheSettingsClass_notItsBuilder() throws Exception {
    Path bad = tmp.resolve("u.yaml");
    Files.writeString(bad, "nosuch: 1\n");
    UsageException e = assertThrows(UsageException.class, () -> ReplaySettings.load(bad, ReplaySettings.defaults()));
    assertTrue(e.getMessage().startsWith("cannot read settings " + bad
        + ": Unrecognized field \"nosuch\" (class io.smetric.audit.replay.ReplaySettings), not marked as ignorable"),
        e.getMessage());
  }

  @Test
  void with_leavesTheValueAsItWas_andSharesTheImmutableProfile() {
    ReplaySettings a = ReplaySettings.defaults();
    int batch = a.profile.maxBatch;
    ReplaySettings.Builder b = a.toBuilder();
    b.profile = b.profile.with(p -> p.maxBatch = batch + 1);
    assertEquals(batch, a.profile.maxBatch, "a builder's new profile does not reach the value it came from");
    ReplaySettings c = b.build();
    b.profile = b.profile.with(p -> p.maxBatch = batch + 2);
    assertEquals(batch + 1, c.profile.maxBatch, "later edits of the builder do not reach a built value");
    assertEquals(batch + 3, c.with(e -> e.profile = e.profile.with(p -> p.maxBatch = batch + 3)).profile.maxBatch);
    assertEquals(batch + 1, c.profile.maxBatch, "with leaves the value as it was");
    assertSame(c.profile, c.with(e -> e.instances = 2).profile, "an unchanged profile is shared, not copied");
  }

  @Test
  void validate_rejectsNonPositiveRate() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> sb.rateScale = 0);
    assertThrows(UsageException.class, () -> s.validate(Policies::checkConfigs));
  }

  @Test
  void grid_thresholdAxesMultiplyOnlyPoliciesThatReadThem() {
    List<SimSpec> g = Sweep.grid(List.of(Policies.SMETRIC, Policies.SMETRIC_BASIC, Policies.LEAST_LOAD),
        List.of(0.0, 0.8), List.of(1.0, 2.0), List.of(1.0, 2.0, Double.POSITIVE_INFINITY), List.of(0.0, 0.5));
    // smetric: 2 ratios x 2 rates x 3 O x 2 H = 24; basic and least-load: 2 x 2 = 4 each
    assertEquals(32, g.size());
    assertEquals(24, g.stream().filter(x -> x.policy().equals("smetric")).count());
  }

  @Test
  void disaggregated_tpotNotApplicable_andLoadIsUnprefilledTokens() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(8, 30, 6, 0.05), false);
    ReplaySettings s = ReplayFixtures.settings(3, -1).with(sb -> {
      sb.architecture = ReplaySettings.Architecture.DISAGGREGATED;
    });
    SimOutcome o = ReplayFixtures.run(t, s, Policies.SMETRIC);
    assertTrue(o.notApplicable.get("tpot").contains("disaggregation"));
    assertTrue(o.notApplicable.containsKey("raw_tps"));
    // prefill-only: every request finishes at its first token
    for (int r = 0; r < t.n; r++) assertEquals(o.firstToken[r], o.finish[r], 0.0);
  }

  @Test
  void disaggregatedWithDecodePool_decodeStepsGiveTpot() {
    // one request, 32 tokens in, 3 out, decode pool of 1: after the prefill two decode steps run
    // with contexts 33 and 34, one token each: TPOT = a + b x 1 + c + d x 33.5 (no weight term)
    io.smetric.audit.testing.Traces.Builder b = io.smetric.audit.testing.Traces.builder().blockSize(16)
        .req("a", "s", null, 0, "user", 0.0, 32, 3, 1, 2);
    ReplayTrace t = ReplayFixtures.trace(b, false);
    ReplaySettings s = ReplayFixtures.settings(2, -1).with(sb -> {
      sb.architecture = ReplaySettings.Architecture.DISAGGREGATED;
      sb.decodeInstances = 1;
    });
    SimOutcome o = ReplayFixtures.run(t, s, Policies.LEAST_LOAD);
    assertEquals(0.015 + 1.1e-4 + 0.0002 + 2.5e-8 * 33.5, o.tpot(0), 1e-12);
    assertTrue(o.metrics.containsKey("tpot_p50_s") && o.metrics.containsKey("raw_tps"));
  }
}
