package io.smetric.audit.hasher;

import io.smetric.audit.contract.TraceRecord;

/**
 * What a log says about one request besides its messages, each null where the log does not say it:
 * its arrival (epoch seconds; null = synthesise one), the provider's cache accounting, the output
 * tokens the provider counted, the log's own request id (hashed into the request id), and the
 * recorded routing and latencies (trace-model v1.3: served instance, TTFT, end-to-end, outcome).
 */
record RequestMeta(Double arrivalS, TraceRecord.ProviderCache cache, Integer outputTokens, String requestIdRaw,
    TraceRecord.Recorded recorded) {
  static final RequestMeta NONE = new RequestMeta(null, null, null, null, null);

  RequestMeta(Double arrivalS, TraceRecord.ProviderCache cache, Integer outputTokens, String requestIdRaw) {
    this(arrivalS, cache, outputTokens, requestIdRaw, null);
  }
}
