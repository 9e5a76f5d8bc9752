package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord.ProviderCache;

/**
 * The provider's own prefix-cache accounting of a request, read from the {@code usage} object its
 * API returned (trace-model v1.2, section 1). The convention is recognised by its field names,
 * most specific first, because gateways such as LiteLLM copy one provider's fields into the
 * OpenAI shape and keep the originals beside them:
 * <ol>
 *   <li>DeepSeek: {@code prompt_cache_hit_tokens} (and {@code prompt_cache_miss_tokens}); input =
 *       {@code prompt_tokens}, else hit + miss;
 *   <li>Anthropic: {@code cache_read_input_tokens} / {@code cache_creation_input_tokens}; input =
 *       {@code prompt_tokens} where a gateway put the total there, else the native
 *       {@code input_tokens} (uncached part) + read + creation;
 *   <li>OpenAI: {@code prompt_tokens_details.cached_tokens} with {@code prompt_tokens} (Chat
 *       Completions), {@code input_tokens_details.cached_tokens} or {@code cached_input_tokens}
 *       with {@code input_tokens} (Responses API, Codex CLI).
 * </ol>
 * Usage without any cache field, or with counts that contradict each other (cached above input),
 * gives null: no measurement rather than a wrong one (the latter is counted per file).
 */
final class ProviderUsage {
  private ProviderUsage() {}

  /** The accounting, null when there is none; {@code inconsistent} is told about contradicting counts. */
  static ProviderCache parse(JsonNode usage, Runnable inconsistent) {
    if (usage == null || !usage.isObject()) return null;
    ProviderCache c = read(usage);
    if (c == INVALID) {
      inconsistent.run();
      return null;
    }
    return c;
  }

  private static final ProviderCache INVALID = new ProviderCache("invalid", 0, 0, null);

  private static ProviderCache read(JsonNode u) {
    Long hit = count(u, "prompt_cache_hit_tokens");
    if (hit != null) {
      Long miss = count(u, "prompt_cache_miss_tokens");
      Long prompt = count(u, "prompt_tokens");
      Long in = prompt != null ? prompt : miss != null ? hit + miss : null;
      return make(Canonical.CACHE_DEEPSEEK, in, hit, null);
    }
    Long read = count(u, "cache_read_input_tokens");
    Long created = count(u, "cache_creation_input_tokens");
    if (read != null || created != null) {
      long r = read == null ? 0 : read;
      long w = created == null ? 0 : created;
      Long prompt = count(u, "prompt_tokens");
      Long uncached = count(u, "input_tokens");
      Long in = prompt != null ? prompt : uncached != null ? uncached + r + w : null;
      return make(Canonical.CACHE_ANTHROPIC, in, r, w);
    }
    Long cached = count(u.path("prompt_tokens_details"), "cached_tokens");
    if (cached != null) return make(Canonical.CACHE_OPENAI, count(u, "prompt_tokens"), cached, null);
    cached = count(u.path("input_tokens_details"), "cached_tokens");
    if (cached == null) cached = count(u, "cached_input_tokens");
    if (cached != null) return make(Canonical.CACHE_OPENAI, count(u, "input_tokens"), cached, null);
    return null;
  }

  private static ProviderCache make(String kind, Long in, Long cached, Long written) {
    if (in == null || cached == null) return INVALID;
    if (in > Integer.MAX_VALUE || cached > in || (written != null && written + cached > in)) return INVALID;
    return new ProviderCache(kind, (int) (long) in, (int) (long) cached, written == null ? null : (int) (long) written);
  }

  /** A non-negative integer field; null when absent or null; Long.MAX_VALUE (which fails every check) when negative or not an integer. */
  private static Long count(JsonNode n, String key) {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) return null;
    if (!v.canConvertToLong() || !v.isIntegralNumber() && v.asDouble() != Math.rint(v.asDouble())) return Long.MAX_VALUE;
    long x = v.asLong();
    return x < 0 ? Long.MAX_VALUE : x;
  }
}
