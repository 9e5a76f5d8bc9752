package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;

/**
 * Which simulated instance the replay ran (the profile in replay.json's settings) and how well that
 * profile reproduced real runs it was not fitted to: audit.json's {@code replay_profile} and a
 * paragraph of the report, so nobody reads a verdict without knowing what cost model decided it.
 */
final class ReplayProfileSection {
  private ReplayProfileSection() {}

  /** {name, model, hardware, engine, validation: {summary, medians}}; null without a replay. */
  static ObjectNode json(JsonNode replay) {
    JsonNode p = replay == null ? null : replay.path("settings").path("profile");
    if (p == null || !p.isObject()) return null;
    ObjectNode o = Json.object();
    for (String k : new String[] {"name", "model", "hardware", "engine"}) {
      if (p.path(k).isTextual()) o.put(k, p.path(k).asText());
    }
    JsonNode v = p.path("validation");
    if (v.isObject()) {
      ObjectNode val = o.putObject("validation");
      for (String k : new String[] {"summary", "heldOutPoints", "e2eMedianAbsError", "tpotMedianAbsError", "ttftMedianAbsError"}) {
        if (!v.path(k).isMissingNode() && !v.path(k).isNull()) val.set(k, v.path(k).deepCopy());
      }
    } else {
      o.put("validation", "none: this profile was not checked against real runs");
    }
    return o;
  }

  static void html(Html h, ObjectNode profile) {
    if (profile == null) return;
    h.raw("<section id=\"replay-profile\">\n");
    h.tag("h2", null, "Simulated instance");
    String what = profile.path("name").asText() + " (" + profile.path("model").asText("model not stated") + " on "
        + profile.path("hardware").asText("hardware not stated") + ", " + profile.path("engine").asText("engine not stated") + ")";
    JsonNode v = profile.path("validation");
    String val = v.isObject() ? v.path("summary").asText("no summary") : v.asText();
    h.tag("p", null, "The replay's instances follow the profile " + what + ". Against real runs it was not fitted to: " + val
        + ". Every number of the profile and its source: `smetric-audit profiles " + profile.path("name").asText()
        + "`; the validation: docs/validation.md. A verdict near a threshold depends on these costs: calibrate a profile "
        + "on your own measurements (`smetric-audit calibrate`) and rerun with --profile.");
    h.raw("</section>\n");
  }
}
