package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.AuditLayout;
import java.util.List;
import java.util.Locale;

/**
 * "The replay's error on your own requests": when the audited trace records its routing, the audit
 * runs validate TRACE's comparison (own-traffic/validation.json: the recorded assignment replayed,
 * simulated against measured TTFT and end-to-end time per request); the report shows its median
 * and p90 |error| and counts beside the verdict, and audit.json carries the file as
 * {@code own_traffic_validation}.
 */
public final class OwnTrafficReport {
  private OwnTrafficReport() {}

  /** own-traffic/validation.json, or null when the audit has none (a trace without recorded routing). */
  public static JsonNode summary(AuditFolder f) {
    return f.exists(AuditLayout.OWN_TRAFFIC_VALIDATION) ? f.json(AuditLayout.OWN_TRAFFIC_VALIDATION) : null;
  }

  /** The paragraph and table; nothing for null. */
  public static void html(Html h, JsonNode v) {
    if (v == null) return;
    JsonNode n = v.path("counted");
    h.raw("<section id=\"own-traffic\">\n");
    h.tag("h2", null, "The replay's error on your own requests");
    h.tag("p", null, String.format(Locale.ROOT, "The trace records which instance served each request and how long it took."
        + " Replayed as recorded (%s, %d instances, profile %s, at the recorded send times), the simulated times differ from the"
        + " measured ones by the per-request error (simulated - measured) / measured below: how far the model behind the"
        + " verdict's replay is from your cluster on your own requests. Measured: TTFT %d, end-to-end %d requests; not measured: %d without TTFT, %d without end-to-end, %d not"
        + " completed, %d measured as 0 s. The same numbers as validate TRACE (docs/replay.md).",
        v.path("policy").asText(), v.path("instances").path("simulated").asInt(), v.path("profile").asText(),
        n.path("ttft_compared").asInt(), n.path("e2e_compared").asInt(), n.path("without_ttft").asInt(),
        n.path("without_e2e").asInt(), n.path("not_completed").asInt(), n.path("measured_zero").asInt()));
    if (v.path("profile_fitted_on_this_trace").isTextual()) {
      h.tag("p", null, "Profile: " + v.path("profile_fitted_on_this_trace").asText() + ".");
    }
    h.table(List.of("", "median error", "median |error|", "p90 |error|", "requests"),
        List.of(row("TTFT", v.path("ttft")), row("end-to-end", v.path("e2e"))), null);
    h.raw("</section>\n");
  }

  private static List<String> row(String label, JsonNode s) {
    return List.of(label, pct(s.path("median_error"), true), pct(s.path("median_abs_error"), false),
        pct(s.path("p90_abs_error"), false), Integer.toString(s.path("requests").asInt()));
  }

  private static String pct(JsonNode x, boolean signed) {
    if (x.isNull() || x.isMissingNode()) return "-";
    return String.format(Locale.ROOT, signed ? "%+.1f%%" : "%.1f%%", 100 * x.asDouble());
  }
}
