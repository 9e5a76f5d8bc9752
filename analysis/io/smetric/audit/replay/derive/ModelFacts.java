package io.smetric.audit.replay.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smetric.audit.common.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A decoder-only transformer as its Hugging Face {@code config.json} describes it, and what the step
 * cost needs from it: weight bytes (all, those every step reads, the routed experts), KV bytes per
 * token, matmul FLOPs per token and attention FLOPs per (query, context) token pair.
 *
 * <p>Layouts read (by the fields present, whatever {@code model_type} says): dense GQA/MHA
 * (Llama, Mistral, Qwen2, Qwen3), routed-expert MoE with {@code num_experts} (Qwen2/Qwen3-MoE),
 * {@code num_local_experts} (Mixtral, whose expert size is {@code intermediate_size}) or
 * {@code n_routed_experts} (DeepSeek-V2/V3, with shared experts and leading dense layers), and
 * multi-head latent attention ({@code kv_lora_rank}: DeepSeek-V2/V3, whose KV cache is the
 * compressed latent plus the rotary key). The FFN is gated (three matrices), as in every layout
 * above. Norms and biases are left out (under 0.1% of the weights of the models shipped). Weights and
 * KV are counted at {@link #BYTES} bytes (BF16/FP16).
 */
public record ModelFacts(String source, String modelType, int layers, int hidden, int heads, int kvHeads,
    int qkHeadDim, int vHeadDim, long vocab, boolean tiedEmbeddings, long denseIntermediate, int denseLayers,
    int experts, int expertsPerToken, long moeIntermediate, long sharedIntermediate, int moeLayers,
    Integer kvLoraRank, Integer qkRopeHeadDim, Integer qLoraRank, List<String> notes) {

  /** Bytes per weight and per KV element: BF16/FP16, the precision the GPU table's FLOP/s are for. */
  public static final int BYTES = 2;

  public boolean mla() {
    return kvLoraRank != null;
  }

  public boolean moe() {
    return experts > 0;
  }

  /** Attention weights of one layer (parameters). */
  public long attentionParamsPerLayer() {
    if (mla()) {
      long qk = (long) qkHeadDim; // nope + rope per head
      long q = qLoraRank == null ? (long) hidden * heads * qk : (long) hidden * qLoraRank + (long) qLoraRank * heads * qk;
      long kvA = (long) hidden * (kvLoraRank + qkRopeHeadDim);
      long kvB = (long) kvLoraRank * heads * ((qk - qkRopeHeadDim) + vHeadDim);
      long o = (long) heads * vHeadDim * hidden;
      return q + kvA + kvB + o;
    }
    return (long) hidden * heads * qkHeadDim + 2L * hidden * kvHeads * qkHeadDim + (long) heads * vHeadDim * hidden;
  }

  public long denseFfnParamsPerLayer() {
    return 3L * hidden * denseIntermediate;
  }

  /** All routed experts of one MoE layer. */
  public long routedParamsPerMoeLayer() {
    return (long) experts * 3L * hidden * moeIntermediate;
  }

  /** Shared experts and the router of one MoE layer: read by every token. */
  public long alwaysReadParamsPerMoeLayer() {
    return 3L * hidden * sharedIntermediate + (long) hidden * experts;
  }

  public long embeddingParams() {
    return vocab * hidden;
  }

  /** Every weight of the model. */
  public long totalParams() {
    return layers * attentionParamsPerLayer() + denseLayers * denseFfnParamsPerLayer()
        + moeLayers * (routedParamsPerMoeLayer() + alwaysReadParamsPerMoeLayer()) + embeddingParams()
        + (tiedEmbeddings ? 0 : embeddingParams());
  }

  /** Weights a token multiplies by (no embedding lookup; the LM head, tied or not, is a matmul). */
  public long activeMatmulParams() {
    return layers * attentionParamsPerLayer() + denseLayers * denseFfnParamsPerLayer()
        + moeLayers * ((long) expertsPerToken * 3L * hidden * moeIntermediate + alwaysReadParamsPerMoeLayer())
        + embeddingParams();
  }

  /** Matmul FLOPs of one token through the model: 2 per weight multiplied. */
  public double flopsPerToken() {
    return 2.0 * activeMatmulParams();
  }

  /**
   * Attention FLOPs per (new token, context token) pair: Q K^T and P V, 2 FLOP per multiply-add,
   * every head of every layer. MLA's prefill runs as multi-head attention over the decompressed keys
   * (nope + rope dims) and values.
   */
  public double attentionFlopsPerPair() {
    return 2.0 * layers * heads * (qkHeadDim + vHeadDim);
  }

  /** Weights every step reads whatever its batch: all but the routed experts and the embedding table [bytes]. */
  public double denseReadBytes() {
    return BYTES * (double) (layers * attentionParamsPerLayer() + denseLayers * denseFfnParamsPerLayer()
        + moeLayers * alwaysReadParamsPerMoeLayer() + embeddingParams());
  }

  /** All routed experts [bytes]. */
  public double expertBytes() {
    return BYTES * (double) (moeLayers * routedParamsPerMoeLayer());
  }

  public double weightBytes() {
    return BYTES * (double) totalParams();
  }

  /** KV cache bytes per token of the whole model: K and V of every KV head, or MLA's latent plus rotary key. */
  public long kvBytesPerToken() {
    if (mla()) return (long) layers * (kvLoraRank + qkRopeHeadDim) * BYTES;
    return (long) layers * 2L * kvHeads * qkHeadDim * BYTES;
  }

  /**
   * How many copies of each token's KV a tensor-parallel instance of {@code tp} GPUs keeps: KV heads
   * are split over the GPUs while there are at least as many as GPUs, and replicated beyond; MLA's
   * single latent is replicated on every GPU (vLLM and SGLang without data-parallel attention).
   */
  public int kvReplication(int tp) {
    if (mla()) return tp;
    return tp > kvHeads ? (tp + kvHeads - 1) / kvHeads : 1;
  }

  /** One-line description: "48 layers, hidden 2048, 32/4 heads x 128, MoE 128 experts (8 per token, 768), vocab 151936". */
  public String describe() {
    String att = mla()
        ? String.format(Locale.ROOT, "MLA %d heads, kv_lora_rank %d + rope %d", heads, kvLoraRank, qkRopeHeadDim)
        : String.format(Locale.ROOT, "%d/%d heads x %d", heads, kvHeads, qkHeadDim);
    String ffn = moe()
        ? String.format(Locale.ROOT, "MoE %d experts (%d per token, intermediate %d) in %d of %d layers%s", experts, expertsPerToken,
            moeIntermediate, moeLayers, layers, sharedIntermediate > 0 ? ", shared intermediate " + sharedIntermediate : "")
        : String.format(Locale.ROOT, "dense intermediate %d", denseIntermediate);
    return String.format(Locale.ROOT, "%s: %d layers, hidden %d, %s, %s, vocab %d%s", modelType, layers, hidden, att, ffn, vocab,
        tiedEmbeddings ? " (tied embeddings)" : "");
  }

  // ---------------------------------------------------------------- reading config.json

  private static final ObjectMapper JSON = new ObjectMapper();

  public static ModelFacts read(Path file) {
    try {
      return of(JSON.readTree(Files.readAllBytes(file)), file.toString());
    } catch (IOException e) {
      throw new BadInputException(file.toString(), "cannot read config.json: " + e.getMessage().lines().findFirst().orElse(""));
    }
  }

  /** A config shipped in the jar (measurements/facts/configs/NAME). */
  public static ModelFacts resource(String name) {
    String path = "/io/smetric/audit/replay/measurements/facts/configs/" + name;
    try (InputStream in = ModelFacts.class.getResourceAsStream(path)) {
      if (in == null) throw new IllegalStateException("shipped config missing: " + path);
      return of(JSON.readTree(in), "shipped:facts/configs/" + name);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Reads the fields of {@code root}; a field the layout needs and the config lacks is a
   * {@link BadInputException} naming the file and the field.
   */
  public static ModelFacts of(JsonNode root, String file) {
    if (root == null || !root.isObject()) throw new BadInputException(file, "not a JSON object (a Hugging Face config.json)");
    // multimodal and wrapper configs keep the language model under text_config
    JsonNode c = root.path("text_config").isObject() && !root.has("num_hidden_layers") ? root.path("text_config") : root;
    List<String> notes = new ArrayList<>();
    String type = c.path("model_type").asText(root.path("model_type").asText("unknown"));
    int layers = req(c, file, "num_hidden_layers", "the number of layers");
    int hidden = req(c, file, "hidden_size", "the hidden size");
    int heads = req(c, file, "num_attention_heads", "the attention heads");
    long vocab = req(c, file, "vocab_size", "the LM head and embedding size");
    boolean tied = c.path("tie_word_embeddings").asBoolean(false);
    if (!c.has("tie_word_embeddings")) notes.add("tie_word_embeddings absent: untied (the default of every layout read here)");

    Integer kvLora = opt(c, "kv_lora_rank");
    int kvHeads;
    int qkDim;
    int vDim;
    Integer rope = null;
    Integer qLora = null;
    if (kvLora != null) { // multi-head latent attention (DeepSeek-V2/V3)
      rope = req(c, file, "qk_rope_head_dim", "MLA's rotary key (kv_lora_rank is set)");
      int nope = req(c, file, "qk_nope_head_dim", "MLA's query/key size (kv_lora_rank is set)");
      vDim = req(c, file, "v_head_dim", "MLA's value size (kv_lora_rank is set)");
      qkDim = nope + rope;
      qLora = opt(c, "q_lora_rank");
      kvHeads = heads;
    } else {
      Integer kv = opt(c, "num_key_value_heads");
      if (kv == null) {
        kv = heads;
        notes.add("num_key_value_heads absent: as many KV heads as attention heads (MHA, the Hugging Face default)");
      }
      kvHeads = kv;
      Integer hd = opt(c, "head_dim");
      if (hd == null) {
        if (hidden % heads != 0) {
          throw new BadInputException(file, -1, "head_dim", "field 'head_dim' missing and hidden_size " + hidden
              + " is not a multiple of num_attention_heads " + heads);
        }
        hd = hidden / heads;
      }
      qkDim = hd;
      vDim = hd;
      if (kvHeads <= 0 || heads % kvHeads != 0) {
        throw new BadInputException(file, -1, "num_key_value_heads", "num_key_value_heads " + kvHeads
            + " does not divide num_attention_heads " + heads);
      }
    }

    // routed experts: Qwen2/3-MoE num_experts, Mixtral num_local_experts, DeepSeek n_routed_experts
    Integer experts = firstOf(c, "num_experts", "num_local_experts", "n_routed_experts");
    int k = 0;
    long moeInter = 0;
    long shared = 0;
    int moeLayers = 0;
    long denseInter = 0;
    if (experts != null && experts > 0) {
      k = req(c, file, "num_experts_per_tok", "the experts each token is routed to (the config has routed experts)");
      if (c.has("num_local_experts")) { // Mixtral: every layer MoE, the expert size is intermediate_size
        moeInter = req(c, file, "intermediate_size", "Mixtral's expert size");
        moeLayers = layers;
      } else {
        moeInter = req(c, file, "moe_intermediate_size", "the routed experts' size");
        Set<Integer> denseOnly = new HashSet<>();
        if (c.has("n_routed_experts")) { // DeepSeek: the first k layers dense, then every moe_layer_freq-th
          int firstDense = opt(c, "first_k_dense_replace") == null ? 0 : opt(c, "first_k_dense_replace");
          int freq = opt(c, "moe_layer_freq") == null ? 1 : opt(c, "moe_layer_freq");
          for (int i = 0; i < layers; i++) if (i < firstDense || i % freq != 0) denseOnly.add(i);
          Integer ns = opt(c, "n_shared_experts");
          if (ns != null) shared = (long) ns * moeInter;
        } else { // Qwen2/3-MoE: decoder_sparse_step and mlp_only_layers
          int step = opt(c, "decoder_sparse_step") == null ? 1 : opt(c, "decoder_sparse_step");
          for (JsonNode l : c.path("mlp_only_layers")) denseOnly.add(l.asInt());
          for (int i = 0; i < layers; i++) if (step <= 0 || (i + 1) % step != 0) denseOnly.add(i);
          Integer sh = opt(c, "shared_expert_intermediate_size");
          if (sh != null) shared = sh;
        }
        moeLayers = layers - denseOnly.size();
      }
      if (k > experts) {
        throw new BadInputException(file, -1, "num_experts_per_tok", "num_experts_per_tok " + k + " > experts " + experts);
      }
    } else {
      experts = 0;
    }
    int denseLayers = layers - moeLayers;
    if (denseLayers > 0) denseInter = req(c, file, "intermediate_size", "the dense FFN size");
    if (c.path("quantization_config").isObject()) {
      notes.add("quantization_config (" + c.path("quantization_config").path("quant_method").asText("?")
          + ") ignored: weights and KV counted at 2 bytes (BF16)");
    }
    for (JsonNode t : c.path("layer_types")) {
      if (!t.asText().equals("full_attention")) {
        notes.add("layer_types holds " + t.asText() + " layers: counted as full attention (not modelled)");
        break;
      }
    }
    if (c.path("sliding_window").isNumber() && c.path("use_sliding_window").asBoolean(true)
        && !type.startsWith("qwen")) {
      notes.add("sliding_window " + c.path("sliding_window").asInt() + " ignored: full attention assumed");
    }
    return new ModelFacts(file, type, layers, hidden, heads, kvHeads, qkDim, vDim, vocab, tied, denseInter, denseLayers,
        experts, k, moeInter, shared, moeLayers, kvLora, rope, qLora, List.copyOf(notes));
  }

  private static Integer firstOf(JsonNode c, String... names) {
    for (String n : names) if (opt(c, n) != null) return opt(c, n);
    return null;
  }

  private static Integer opt(JsonNode c, String field) {
    JsonNode v = c.get(field);
    if (v == null || v.isNull()) return null;
    if (!v.isIntegralNumber()) return null;
    return v.asInt();
  }

  private static int req(JsonNode c, String file, String field, String what) {
    JsonNode v = c.get(field);
    if (v == null || v.isNull()) {
      throw new BadInputException(file, -1, field, "field '" + field + "' missing (" + what + "); model_type "
          + c.path("model_type").asText("not given") + ": not a layout this command reads (Llama, Mistral, Mixtral,"
          + " Qwen2/Qwen3, Qwen2/Qwen3-MoE, DeepSeek-V2/V3)");
    }
    if (!v.isIntegralNumber() || v.asLong() <= 0) {
      throw new BadInputException(file, -1, field, "field '" + field + "' must be a positive integer, got " + v);
    }
    return v.asInt();
  }
}
