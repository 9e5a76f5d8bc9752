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
  /**
   * Optional recorded routing (trace-model v1.3); null when the record has none. The first-token
   * and finish times are on the arrival's clock and become {@link #ttftS} / {@link #e2eS} in
   * {@link #checkRecorded}.
   */
  String servedInstance;
  Double ttftS;
  Double e2eS;
  String outcome;
  Double firstTokenS;
  Double finishS;
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
    servedInstance = null;
    ttftS = null;
    e2eS = null;
    outcome = null;
    firstTokenS = null;
    finishS = null;
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

  /**
   * Checks the optional recorded-routing fields (after the arrival is known): first-token and finish
   * times become TTFT and end-to-end durations (a duration given as well wins), then every value must
   * be finite and non-negative, TTFT no larger than end-to-end, the outcome a known one.
   */
  boolean checkRecorded() {
    if (firstTokenS != null) {
      if (!(firstTokenS >= arrivalS)) {
        return fail(Reasons.BAD_VALUE, Canonical.FIRST_TOKEN_S, "first token at " + firstTokenS + " s is before the arrival " + arrivalS + " s");
      }
      if (ttftS == null) ttftS = firstTokenS - arrivalS;
    }
    if (finishS != null) {
      if (!(finishS >= arrivalS)) {
        return fail(Reasons.BAD_VALUE, Canonical.FINISH_S, "finish at " + finishS + " s is before the arrival " + arrivalS + " s");
      }
      if (e2eS == null) e2eS = finishS - arrivalS;
    }
    if (servedInstance != null && servedInstance.isEmpty()) servedInstance = null;
    if (ttftS != null && ttftS < 0) return fail(Reasons.NEGATIVE_VALUE, Canonical.TTFT_S, "ttft_s " + ttftS + " < 0");
    if (e2eS != null && e2eS < 0) return fail(Reasons.NEGATIVE_VALUE, Canonical.E2E_S, "e2e_s " + e2eS + " < 0");
    String bad = io.smetric.audit.contract.TraceRecord.Recorded.problem(servedInstance, ttftS, e2eS, outcome);
    if (bad != null) {
      int colon = bad.indexOf(':');
      return fail(Reasons.BAD_VALUE, bad.substring(0, colon), bad.substring(colon + 2));
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
