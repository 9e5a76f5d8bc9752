package io.smetric.audit.replay.derive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.smetric.audit.common.BadInputException;
import org.junit.jupiter.api.Test;

/** Weights, KV bytes and FLOPs from config.json, against numbers worked out by hand from each config. */
class ModelFactsTest {
  private static ModelFacts parse(String json) throws Exception {
    return ModelFacts.of(new ObjectMapper().readTree(json), "test-config.json");
  }

  @Test
  void qwen3MoeConfig_kvBytesAndWeights_matchHandArithmetic() {
    ModelFacts m = ModelFacts.resource("qwen3-30b-a3b.json");
    // 2 (K, V) x 48 layers x 4 KV heads x 128 dims x 2 B
    assertEquals(98_304L, m.kvBytesPerToken());
    // per layer: attention 2048*32*128 + 2*2048*4*128 + 32*128*2048 = 18,874,368; experts 128*3*2048*768 =
    // 603,979,776; router 2048*128 = 262,144; embeddings and untied LM head 151,936*2048 = 311,164,928 each
    assertEquals(48L * (18_874_368L + 603_979_776L + 262_144L) + 2L * 311_164_928L, m.totalParams());
    assertEquals(30_531_911_680L, m.totalParams());
    assertEquals(2.0 * 48 * 603_979_776L, m.expertBytes(), 0.5); // 57.98 GB
    // read by every step: attention + routers + LM head (not the embedding table)
    assertEquals(2.0 * (48L * (18_874_368L + 262_144L) + 311_164_928L), m.denseReadBytes(), 0.5); // 2.46 GB
    // per token: attention + 8 experts (8*3*2048*768 = 37,748,736) + router per layer, and the LM head
    assertEquals(2.0 * (48L * (18_874_368L + 37_748_736L + 262_144L) + 311_164_928L), m.flopsPerToken(), 0.5);
    // Q K^T and P V: 2 x 48 layers x 32 heads x (128 + 128)
    assertEquals(786_432.0, m.attentionFlopsPerPair(), 0);
    assertEquals(1, m.kvReplication(4), "4 KV heads split over 4 GPUs");
    assertEquals(2, m.kvReplication(8), "8 GPUs with 4 KV heads keep two copies");
  }

  @Test
  void mixtralConfig_expertSizeIsIntermediateSize_everyLayerMoe() {
    ModelFacts m = ModelFacts.resource("mixtral-8x7b-v0.1.json");
    assertEquals(131_072L, m.kvBytesPerToken()); // 32 x 2 x 8 x 128 x 2
    assertEquals(32, m.moeLayers());
    assertEquals(0, m.denseLayers());
    assertEquals(2.0 * 32 * 8 * 3L * 4096 * 14336, m.expertBytes(), 0.5); // 90.19 GB, as models.json
    // attention 4096*32*128*2 + 2*4096*8*128 = 41,943,040 per layer; router 32,768; LM head 131,072,000
    assertEquals(2.0 * (32L * (41_943_040L + 32_768L) + 131_072_000L), m.denseReadBytes(), 0.5);
    assertEquals(46_702_526_464L, m.totalParams()); // 32 x (41,943,040 + 8 x 3 x 4096 x 14336 + 32,768) + 2 x 131,072,000; models.json: 46.703B
  }

  @Test
  void llamaDenseConfig_matchesModelsJson() {
    ModelFacts m = ModelFacts.resource("llama-2-7b-hf.json");
    assertEquals(524_288L, m.kvBytesPerToken());
    assertEquals(6_738_149_376L, m.totalParams()); // 32 x (4 x 4096^2 + 3 x 4096 x 11008) + 2 x 32000 x 4096 (norms left out); models.json: 6.738B
    assertEquals(0.0, m.expertBytes(), 0);
  }

  @Test
  void deepSeekV2LiteMla_kvIsLatentPlusRope_sharedExpertsAndLeadingDenseLayer() throws Exception {
    ModelFacts m = parse("""
        {"model_type": "deepseek_v2", "num_hidden_layers": 27, "hidden_size": 2048, "num_attention_heads": 16,
         "num_key_value_heads": 16, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
         "v_head_dim": 128, "q_lora_rank": null, "n_routed_experts": 64, "num_experts_per_tok": 6,
         "n_shared_experts": 2, "moe_intermediate_size": 1408, "intermediate_size": 10944,
         "first_k_dense_replace": 1, "moe_layer_freq": 1, "vocab_size": 102400, "tie_word_embeddings": false}""");
    assertTrue(m.mla());
    assertEquals(27L * (512 + 64) * 2, m.kvBytesPerToken()); // 31,104 B: the compressed latent and the rotary key
    assertEquals(26, m.moeLayers());
    assertEquals(1, m.denseLayers());
    assertEquals(2 * 1408L, m.sharedIntermediate());
    // q 2048*16*192 + kv_a 2048*576 + kv_b 512*16*(128+128) + o 16*128*2048
    assertEquals(6_291_456L + 1_179_648L + 2_097_152L + 4_194_304L, m.attentionParamsPerLayer());
    assertEquals(2.0 * 27 * 16 * (192 + 128), m.attentionFlopsPerPair(), 0);
    assertEquals(2, m.kvReplication(2), "MLA's latent is kept whole on every tensor-parallel GPU");
    assertEquals(2.0 * 26 * 64 * 3L * 2048 * 1408, m.expertBytes(), 0.5);
  }

  @Test
  void deepSeekV3Mla_withQueryLora_threeDenseLayers() throws Exception {
    ModelFacts m = parse("""
        {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128,
         "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "q_lora_rank": 1536,
         "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1, "moe_intermediate_size": 2048,
         "intermediate_size": 18432, "first_k_dense_replace": 3, "moe_layer_freq": 1, "vocab_size": 129280}""");
    assertEquals(61L * 576 * 2, m.kvBytesPerToken()); // 70,272 B
    assertEquals(58, m.moeLayers());
    // q: 7168*1536 + 1536*128*192; kv_a 7168*576; kv_b 512*128*256; o 128*128*7168
    assertEquals(7168L * 1536 + 1536L * 128 * 192 + 7168L * 576 + 512L * 128 * 256 + 128L * 128 * 7168, m.attentionParamsPerLayer());
  }

  @Test
  void qwen2MoeSharedExpert_andDecoderSparseStep() throws Exception {
    ModelFacts m = parse("""
        {"model_type": "qwen2_moe", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
         "shared_expert_intermediate_size": 128, "intermediate_size": 256, "decoder_sparse_step": 2,
         "mlp_only_layers": [], "vocab_size": 1000, "tie_word_embeddings": true}""");
    // layers 1 and 3 (0-based) are sparse with step 2
    assertEquals(2, m.moeLayers());
    assertEquals(2, m.denseLayers());
    assertEquals(128, m.sharedIntermediate());
    assertEquals(4L * 2 * 2 * 16 * 2, m.kvBytesPerToken()); // head_dim 64/4 = 16
    // tied: the embedding table counts once
    long att = 64L * 4 * 16 + 2L * 64 * 2 * 16 + 4L * 16 * 64;
    long perMoe = 8L * 3 * 64 * 32 + 3L * 64 * 128 + 64L * 8;
    assertEquals(4 * att + 2 * 3L * 64 * 256 + 2 * perMoe + 1000L * 64, m.totalParams());
  }

  @Test
  void quantisedOrSlidingConfig_isReadAtBf16_withANote() throws Exception {
    ModelFacts m = parse("""
        {"model_type": "mistral", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
         "num_key_value_heads": 1, "intermediate_size": 128, "vocab_size": 100, "sliding_window": 4096,
         "quantization_config": {"quant_method": "fp8"}}""");
    assertEquals(2L * 2 * 1 * 16 * 2, m.kvBytesPerToken());
    assertTrue(m.notes().stream().anyMatch(n -> n.contains("quantization_config (fp8)")), m.notes().toString());
    assertTrue(m.notes().stream().anyMatch(n -> n.contains("sliding_window 4096")), m.notes().toString());
    assertTrue(m.notes().stream().anyMatch(n -> n.contains("tie_word_embeddings absent")), m.notes().toString());
  }

  @Test
  void unknownLayout_missingLayers_namesTheField() throws Exception {
    BadInputException e = assertThrows(BadInputException.class, () -> parse("""
        {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257}"""));
    assertTrue(e.getMessage().contains("'num_hidden_layers' missing"), e.getMessage());
    assertTrue(e.getMessage().contains("gpt2"), e.getMessage());
    assertEquals("num_hidden_layers", e.field());
  }

  @Test
  void moeWithoutExpertsPerToken_namesTheField() throws Exception {
    BadInputException e = assertThrows(BadInputException.class, () -> parse("""
        {"model_type": "qwen3_moe", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_experts": 8, "moe_intermediate_size": 32, "vocab_size": 100}"""));
    assertEquals("num_experts_per_tok", e.field());
  }

  @Test
  void mlaWithoutRopeDim_namesTheField() throws Exception {
    BadInputException e = assertThrows(BadInputException.class, () -> parse("""
        {"model_type": "deepseek_v3", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
         "kv_lora_rank": 16, "qk_nope_head_dim": 8, "v_head_dim": 8, "intermediate_size": 128, "vocab_size": 100}"""));
    assertEquals("qk_rope_head_dim", e.field());
  }

  @Test
  void gpuTable_holdsTheSevenGpus_eachWithItsSource() {
    for (String n : new String[] {"H20", "H100 SXM", "H200", "A100 80GB", "L4", "L40S", "MI300X"}) {
      GpuSpec g = GpuSpec.named(n);
      assertTrue(g.source().length() > 40, n + ": " + g.source());
      assertTrue(g.bf16Tflops() > 0 && g.hbmGBps() > 0 && g.memoryGB() > 0, n);
    }
    assertEquals(989.0, GpuSpec.named("h100-sxm").bf16Tflops(), 0);
    assertEquals(2039.0, GpuSpec.named("a100").hbmGBps(), 0);
    assertEquals(7, GpuSpec.table().size());
  }
}
