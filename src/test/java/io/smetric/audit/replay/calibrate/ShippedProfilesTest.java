package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.ModelProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shipped profiles against the real runs shipped beside them (docs/validation.md): every
 * number sourced; the default reproduces Qwen's H20 speed table within 15% at every length (the
 * issue's bound); each H100 profile reproduces one held-out stage of its model (a workload it was
 * not fitted to) within 10% on E2E and TPOT and 20% on TTFT. Stages are replayed whole, as the
 * docs' numbers are (a shortened stage overweights its first requests, which miss every cache).
 */
class ShippedProfilesTest {
  private static final MeasurementReplay.Options WHOLE_STAGES = MeasurementReplay.Options.DEFAULT;

  @Test
  void everyShippedProfile_givesASourceForEveryNumber_andNamesItsValidationData() {
    List<String> names = ModelProfile.catalogue();
    assertEquals(ModelProfile.DEFAULT_NAME, names.get(0));
    for (String n : names) {
      ModelProfile p = ModelProfile.named(n);
      assertEquals(n, p.name);
      assertEquals(List.of(), p.unsourcedFields(), n);
      assertNotNull(p.validation, n);
      assertNotNull(p.validation.data, n);
      assertNotNull(p.validation.summary, n);
    }
  }

  @Test
  void defaultProfile_reproducesQwensH20Table_within15PercentAtEveryLength() {
    List<Measurement> ms = MeasurementReader.readResource("qwen-speed-benchmark/qwen3-moe-h20-speed.csv").stream()
        .filter(m -> m.group().equals("qwen3-30b-a3b/h20-96gb/tp1/sglang-0.4.6.post1/bf16")).toList();
    assertEquals(6, ms.size());
    for (Calibrator.PointFit f : Calibrator.evaluate(ms, ModelProfile.defaultProfile(), WHOLE_STAGES)) {
      assertTrue(Math.abs(f.error()) <= 0.15, f.toString());
    }
  }

  @Test
  void h100Profiles_oneHeldOutStageEach_withinTheIssuesBounds() {
    List<Measurement> runs = MeasurementReader.readResource("inference-sim-h100/runs.json");
    String[][] cases = {
      {"llama-2-7b-h100-tp1", "llama-2-7b-tp1-codegen/stage0"},
      {"llama-2-70b-h100-tp4", "llama-2-70b-tp4-roleplay/stage0"},
      {"codellama-34b-h100-tp2", "codellama-34b-tp2-codegen/stage1"},
      {"mixtral-8x7b-h100-tp2", "mixtral-8x7b-v0-1-tp2-roleplay/stage0"},
    };
    List<String> failures = new ArrayList<>();
    for (String[] c : cases) {
      ModelProfile p = ModelProfile.named(c[0]);
      assertTrue(p.validation.heldOut.stream().anyMatch(c[1]::contains), c[1] + " must be held out of " + c[0]);
      List<Measurement> stage = runs.stream().filter(m -> m.id().endsWith(c[1])).toList();
      assertEquals(1, stage.size(), c[1]);
      for (Calibrator.PointFit f : Calibrator.evaluate(stage, p, WHOLE_STAGES)) {
        double bound = f.metric().startsWith("ttft") ? 0.20 : 0.10;
        if (Math.abs(f.error()) > bound) failures.add(c[0] + " " + f);
      }
    }
    assertEquals(List.of(), failures);
  }
}
