package io.smetric.audit.ingest;

import io.smetric.audit.contract.Canonical;
import it.unimi.dsi.fastutil.longs.LongArrayList;

/**
 * One parsed line, reused across lines of a file: either a canonical record (reason == null) or a
 * quarantine reason naming the field. Parsers fill it; {@link FileScanner} turns it into a row.
 */
final class Staged {
  String requestId;
  String sessionId;
  String parentId;
  Integer turn;
  String trigger;
  double arrivalS;
  /** Absolute timestamp in microseconds for formats with wall-clock times (Azure CSV), else null. */
  Long tsAbsUs;
  long inputTokens;
  long outputTokens;
  Integer blockSize;
  final LongArrayList blocks = new LongArrayList();
  boolean hasBlocks;
  String requestType;
  /** Optional provider cache accounting (trace-model v1.2); all null when the record has none. */
  Integer providerInputTokens;
  Integer providerCachedTokens;
  Integer providerCacheWriteTokens;
  String providerCache;
  /** Global input order, {@code Canonical.seq(fileIndex, line)}. */
  long seqValue;

  String reason;
  String field;
  String detail;

  void reset() {
    requestId = null;
    sessionId = null;
    parentId = null;
    turn = null;
    trigger = null;
    arrivalS = Double.NaN;
    tsAbsUs = null;
    inputTokens = -1;
    outputTokens = -1;
    blockSize = null;
    blocks.clear();
    hasBlocks = false;
    requestType = null;
    providerInputTokens = null;
    providerCachedTokens = null;
    providerCacheWriteTokens = null;
    providerCache = null;
    reason = null;
    field = null;
    detail = null;
  }

  /**
   * Checks the optional provider cache fields together: none, or the convention, the provider's
   * input tokens and its cached tokens (write tokens optional), cached and written within the input.
   */
  boolean checkProviderCache() {
    boolean any = providerInputTokens != null || providerCachedTokens != null || providerCacheWriteTokens != null
        || providerCache != null;
    if (!any) return true;
    if (providerCache == null) return fail(Reasons.MISSING_FIELD, Canonical.PROVIDER_CACHE, "provider token counts without their convention");
    if (!Canonical.CACHE_KINDS.contains(providerCache)) {
      return fail(Reasons.BAD_VALUE, Canonical.PROVIDER_CACHE, "'" + providerCache + "' is not one of " + Canonical.CACHE_KINDS);
    }
    if (providerInputTokens == null) return fail(Reasons.MISSING_FIELD, Canonical.PROVIDER_INPUT_TOKENS, "required with provider_cache");
    if (providerCachedTokens == null) return fail(Reasons.MISSING_FIELD, Canonical.PROVIDER_CACHED_TOKENS, "required with provider_cache");
    if (providerCachedTokens > providerInputTokens) {
      return fail(Reasons.BAD_VALUE, Canonical.PROVIDER_CACHED_TOKENS, "cached tokens exceed the provider's input tokens");
    }
    if (providerCacheWriteTokens != null && providerCacheWriteTokens + (long) providerCachedTokens > providerInputTokens) {
      return fail(Reasons.BAD_VALUE, Canonical.PROVIDER_CACHE_WRITE_TOKENS, "cached plus written tokens exceed the provider's input tokens");
    }
    return true;
  }

  /** Marks the record bad; the first reason found wins. Returns false for use in parsers. */
  boolean fail(String reason, String field, String detail) {
    if (this.reason == null) {
      this.reason = reason;
      this.field = field;
      this.detail = detail;
    }
    return false;
  }

  boolean ok() {
    return reason == null;
  }
}
