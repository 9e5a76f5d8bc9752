package io.smetric.audit.hasher;

import io.smetric.audit.contract.TraceRecord;

/**
 * What a log says about one request besides its messages, each null where the log does not say it:
 * its arrival (epoch seconds; null = synthesise one), the provider's cache accounting, the output
 * tokens the provider counted, and the log's own request id (hashed into the request id).
 */
record RequestMeta(Double arrivalS, TraceRecord.ProviderCache cache, Integer outputTokens, String requestIdRaw) {
  static final RequestMeta NONE = new RequestMeta(null, null, null, null);
}
