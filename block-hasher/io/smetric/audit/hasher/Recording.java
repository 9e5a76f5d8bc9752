package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord.Recorded;

/**
 * Recorded routing and latency (trace-model v1.3) from the logs that carry them: LiteLLM's logging
 * payload ({@code api_base} or {@code model_id}, {@code startTime}, {@code completionStartTime},
 * {@code endTime}, {@code status}; docs.litellm.ai "StandardLoggingPayload Specification") and
 * OpenTelemetry GenAI spans ({@code server.address}[:{@code server.port}], span start and end,
 * {@code gen_ai.response.time_to_first_chunk}, the span status). What a record lacks is noted once
 * per kind, as the hasher notes every other missing field. Values that break the contract's rules
 * (a first token after the end, a time before the start) are left out and noted, never guessed.
 */
final class Recording {
  private Recording() {}

  /**
   * The recorded part of a LiteLLM payload, or null when the record is not one (no {@code endTime}
   * beside {@code startTime}). {@code start} is the arrival already read (epoch seconds).
   */
  static Recorded litellm(JsonNode r, Double start, FileHasher h, long line) {
    JsonNode end = LogFields.first(r, "endTime", "end_time");
    if (start == null || end == null) return null;
    double endS = h.seconds(end, line, "endTime");
    Double e2e = endS >= start ? endS - start : null;
    if (e2e == null) h.note("e2e_before_start", "endTime before startTime: end-to-end time not recorded");
    Double ttft = null;
    JsonNode first = LogFields.first(r, "completionStartTime", "completion_start_time");
    if (first != null) {
      double f = h.seconds(first, line, "completionStartTime");
      // LiteLLM sets completionStartTime to endTime on non-streaming calls: the client saw no first token before the end
      if (f >= start && f < endS) ttft = f - start;
      else h.note("ttft", "completionStartTime not strictly between startTime and endTime (a non-streaming call): TTFT not recorded");
    } else {
      h.note("ttft", "no completionStartTime: TTFT not recorded");
    }
    String instance = nonEmpty(r, "api_base", "model_id", "deployment");
    if (instance == null) instance = nonEmpty(r.path("metadata"), "api_base", "model_id", "deployment");
    if (instance == null) h.note("served_instance", "no api_base, model_id or deployment: served instance not recorded");
    String status = LogFields.text(r, "status");
    String outcome = status == null ? null : status.equalsIgnoreCase("success") ? Canonical.OUTCOME_COMPLETED
        : status.equalsIgnoreCase("failure") ? Canonical.OUTCOME_ERROR : null;
    if (outcome == null) h.note("outcome", "no status success/failure: outcome not recorded");
    return of(instance, ttft, e2e, outcome);
  }

  /**
   * The recorded part of a span: end minus start (epoch seconds; null when the span has no end),
   * time to first chunk in seconds from its attribute, the server address, the status.
   */
  static Recorded span(JsonNode attrs, Double start, Double end, String statusCode, FileHasher h) {
    if (start == null) return null;
    Double e2e = null;
    if (end == null) h.note("e2e", "span without end time: end-to-end time not recorded");
    else if (end < start) h.note("e2e_before_start", "span ends before it starts: end-to-end time not recorded");
    else e2e = end - start;
    Double ttft = null;
    JsonNode t = LogFields.first(attrs, "gen_ai.response.time_to_first_chunk", "gen_ai.client.operation.time_to_first_chunk");
    if (t != null && t.isNumber() && t.asDouble() >= 0 && (e2e == null || t.asDouble() <= e2e + 1e-6)) ttft = t.asDouble();
    else if (t != null) h.note("ttft_invalid", "time to first chunk negative, not a number or after the span's end: TTFT not recorded");
    else h.note("ttft", "no gen_ai.response.time_to_first_chunk: TTFT not recorded");
    String host = nonEmpty(attrs, "server.address");
    String instance = null;
    if (host != null) {
      String port = LogFields.text(attrs, "server.port");
      instance = port == null ? host : host + ":" + port;
    } else {
      h.note("served_instance", "no server.address: served instance not recorded");
    }
    String outcome = null;
    if (statusCode != null) {
      String c = statusCode.toUpperCase(java.util.Locale.ROOT);
      outcome = c.equals("2") || c.contains("ERROR") ? Canonical.OUTCOME_ERROR : Canonical.OUTCOME_COMPLETED;
    } else if (end != null) {
      outcome = LogFields.text(attrs, "error.type") != null ? Canonical.OUTCOME_ERROR : Canonical.OUTCOME_COMPLETED;
    }
    return of(instance, ttft, e2e, outcome);
  }

  /** The first of {@code keys} with a non-empty text (LiteLLM writes "" where it has no value). */
  private static String nonEmpty(JsonNode n, String... keys) {
    for (String k : keys) {
      String v = LogFields.text(n, k);
      if (v != null && !v.isBlank()) return v;
    }
    return null;
  }

  private static Recorded of(String instance, Double ttft, Double e2e, String outcome) {
    if (ttft != null && e2e != null && ttft > e2e + 1e-6) ttft = null; // the contract's rule: never TTFT after the end
    Recorded x = new Recorded(instance, ttft, e2e, outcome);
    return x.any() ? x : null;
  }
}
