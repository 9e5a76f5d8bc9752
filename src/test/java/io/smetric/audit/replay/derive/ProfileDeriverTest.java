package io.smetric.audit.replay.derive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Learned efficiency factors and the derived coefficients, against the shipped profiles' own numbers worked by hand. */
class ProfileDeriverTest {
  @TempDir Path tmp;

  private static double median4(double a, double b, double c, double d) {
    double[] v = {a, b, c, d};
    java.util.Arrays.sort(v);
    return (v[1] + v[2]) / 2;
  }

  private static ModelProfile qwenFromTheH100Profiles() {
    Efficiency eff = Efficiency.learnShipped(List.of("qwen3-30b-a3b-h20"));
    return ProfileDeriver.derive(new ProfileDeriver.Request(ModelFacts.resource("qwen3-30b-a3b.json"), "Qwen/Qwen3-30B-A3B",
        GpuSpec.named("H20"), 1, "sglang", null), eff);
  }

  @Test
  void kvReadEfficiencyAndStepBase_learnedFromTheOtherProfiles_asWorkedByHand() {
    ModelProfile l7 = ModelProfile.named("llama-2-7b-h100-tp1");
    ModelProfile l70 = ModelProfile.named("llama-2-70b-h100-tp4");
    ModelProfile c34 = ModelProfile.named("codellama-34b-h100-tp2");
    ModelProfile mx = ModelProfile.named("mixtral-8x7b-h100-tp2");
    // KV bytes per token (models.json) / (fitted d x 3.35 TB/s x TP)
    double eta = median4(524_288 / (l7.decodePerContextTokenS * 3350e9), 327_680 / (l70.decodePerContextTokenS * 4 * 3350e9),
        196_608 / (c34.decodePerContextTokenS * 2 * 3350e9), 131_072 / (mx.decodePerContextTokenS * 2 * 3350e9));
    double perLayer = median4(l7.stepBaseS / 32, l70.stepBaseS / 80, c34.stepBaseS / 48, mx.stepBaseS / 32);
    ModelProfile q = qwenFromTheH100Profiles();
    assertEquals(98_304 / (eta * 4000e9), q.decodePerContextTokenS, 1e-12 * q.decodePerContextTokenS);
    assertEquals(48 * perLayer, q.stepBaseS, 1e-12 * q.stepBaseS);
    // c and the frontend latency: medians of the four fitted values as they are
    assertEquals(median4(l7.decodePerSeqS, l70.decodePerSeqS, c34.decodePerSeqS, mx.decodePerSeqS), q.decodePerSeqS, 1e-15);
    assertEquals(median4(l7.frontendLatencyS, l70.frontendLatencyS, c34.frontendLatencyS, mx.frontendLatencyS), q.frontendLatencyS, 1e-12);
    // none of the four has its attention cost fitted: e falls back to the prefill MFU, labelled an assumption
    assertEquals("assumption", q.sources.get("prefillAttentionPerPairS").kind);
    double mfu = 786_432 / (q.prefillAttentionPerPairS * 148e12);
    assertEquals(6_083_313_664.0 / (mfu * 148e12), q.prefillPerTokenS, 1e-9 * q.prefillPerTokenS);
  }

  @Test
  void derivedWeightsAndMemory_fromConfigAndGpuTable() {
    ModelProfile q = qwenFromTheH100Profiles();
    assertEquals(98_304L, q.kvBytesPerToken);
    assertEquals(57.982_058_496, q.expertWeightGB, 1e-9);
    assertEquals(2.459_435_008, q.denseWeightGB, 1e-9);
    assertEquals(128, q.experts);
    assertEquals(8, q.expertsPerToken);
    assertEquals(4000.0, q.hbmGBps, 0);
    assertEquals(96e9 / (1L << 30), q.gpuMemoryGiB, 1e-9);
    // (89.41 GiB x 0.85 - 56.87 GiB - 4 GiB) / 98,304 B
    double free = (96e9 / (1L << 30)) * 0.85 - 61_063_823_360.0 / (1L << 30) - 4.0;
    assertEquals((long) Math.floor(free * (1L << 30) / 98_304), q.kvCapacityTokens.longValue());
  }

  @Test
  void mlaOnTwoGpus_replicatesTheLatent_inDecodeCostAndCapacity() throws Exception {
    ModelFacts m = ModelFacts.of(new ObjectMapper().readTree("""
        {"model_type": "deepseek_v2", "num_hidden_layers": 27, "hidden_size": 2048, "num_attention_heads": 16,
         "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
         "n_routed_experts": 64, "num_experts_per_tok": 6, "n_shared_experts": 2, "moe_intermediate_size": 1408,
         "intermediate_size": 10944, "first_k_dense_replace": 1, "vocab_size": 102400}"""), "lite.json");
    Efficiency eff = Efficiency.learnShipped(List.of());
    ModelProfile one = ProfileDeriver.derive(new ProfileDeriver.Request(m, "lite", GpuSpec.named("H100"), 1, "vllm", null), eff);
    ModelProfile two = ProfileDeriver.derive(new ProfileDeriver.Request(m, "lite", GpuSpec.named("H100"), 2, "vllm", null), eff);
    assertEquals(31_104L, two.kvBytesPerToken);
    // two copies over twice the bandwidth: the same time per context token
    assertEquals(one.decodePerContextTokenS, two.decodePerContextTokenS, 1e-12 * one.decodePerContextTokenS);
    double free = 2 * 80e9 / (1L << 30) * 0.9 - m.weightBytes() / (1L << 30) - 8.0;
    assertEquals((long) Math.floor(free * (1L << 30) / (2 * 31_104.0)), two.kvCapacityTokens.longValue());
  }

  @Test
  void derivedProfileFile_loadsWithEverySourceAndTheCrossValidatedLabel() throws Exception {
    ModelProfile q = qwenFromTheH100Profiles().with(b -> b.validation = CrossValidation.label(CrossValidation.shipped()));
    Path f = tmp.resolve("q.yaml");
    Files.writeString(f, q.toYaml());
    ModelProfile back = ModelProfile.resolve(f.toString()); // what --profile FILE and calibrate --base FILE use
    assertEquals(q.prefillPerTokenS, back.prefillPerTokenS, 0);
    assertEquals(List.of(), back.unsourcedFields());
    for (ModelProfile.Source s : back.sources.values()) {
      assertTrue(Set.of("derived", "documented", "assumption", "measured").contains(s.kind), s.kind + ": " + s.ref);
      assertTrue(!s.kind.equals("assumption") || s.low != null || s.ref.contains("range"), "an assumption needs a range: " + s.ref);
    }
    assertTrue(back.validation.summary.startsWith("derived, cross-validated error"), back.validation.summary);
    assertEquals(1, back.validation.checks.size());
    assertEquals(ModelProfile.Check.CROSS_VALIDATED, back.validation.checks.get(0).kind);
    assertNull(back.validation.check(ModelProfile.Check.FIT), "a derived profile is never labelled as fitted");
    assertNull(back.validation.data, "no measurement of this deployment to validate against");
  }

  @Test
  void unknownGpu_andAModelThatDoesNotFit_areUsageErrors() {
    assertThrows(UsageException.class, () -> GpuSpec.named("TPU v5"));
    UsageException e = assertThrows(UsageException.class, () -> ProfileDeriver.derive(new ProfileDeriver.Request(
        ModelFacts.resource("llama-2-70b-hf.json"), "llama-70b", GpuSpec.named("L4"), 1, "vllm", null),
        Efficiency.learnShipped(List.of())));
    assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
  }

  @Test
  void smallGpuUnderVllm_takesTheSmallBatchDefaults() {
    ModelProfile p = ProfileDeriver.derive(new ProfileDeriver.Request(ModelFacts.resource("llama-2-7b-hf.json"), "llama-7b",
        GpuSpec.named("L40S"), 1, "vllm", null), Efficiency.learnShipped(List.of()));
    assertEquals(256, p.maxBatch);
    assertEquals(2048, p.tokenBudget);
    assertNotNull(p.sources.get("maxBatch"));
    assertEquals(864.0, p.hbmGBps, 0);
  }
}
