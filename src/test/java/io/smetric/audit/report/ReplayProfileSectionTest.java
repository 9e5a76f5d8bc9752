package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The report's "Simulated instance" section on a hand-made replay.json: the profile's checks keep
 * their labels (no "not fitted to" for a fit), and the operating point (SMetric's headline runs 3
 * and 7 of 4 instances; run 9 is no headline and must not count) is compared with the validated
 * regime (batch-1 single requests, prompts <= 1,000, contexts <= 1,200, no cache hits, unsaturated).
 */
class ReplayProfileSectionTest {
  private static JsonNode replay(String regime) throws Exception {
    return Json.MAPPER.readTree("""
        {"settings": {"instances": 4, "profile": {"name": "p", "model": "M", "hardware": "H", "engine": "E",
          "validation": {"summary": "s",
            "checks": [{"kind": "fit", "meaning": "in-sample", "measurements": 6, "points": 6, "e2eMedianAbsError": 0.001},
                       {"kind": "leave-one-out", "meaning": "the same runs", "measurements": 6, "points": 6, "e2eMedianAbsError": 0.003}],
            "regime": %s}}},
         "preconditions": {"by_global_ratio": [
           {"global_ratio": 0, "operating_point": {"policy": "smetric", "run_id": 3}},
           {"global_ratio": 1.6, "operating_point": {"policy": "smetric", "run_id": 7}}]},
         "runs": [
           {"run_id": 3, "metrics": {"input_tokens_max": 5000, "context_tokens_max": 6000, "in_flight_per_instance_mean": 2.5,
             "requests": 600, "duration_s": 100, "total_hit_ratio": 0.6, "queue_wait_share_of_ttft": 0.2,
             "timed_out_share": 0, "preemptions": 0}},
           {"run_id": 7, "metrics": {"input_tokens_max": 4000, "context_tokens_max": 4500, "in_flight_per_instance_mean": 12.5,
             "requests": 800, "duration_s": 100, "total_hit_ratio": 0.8, "queue_wait_share_of_ttft": 0.7,
             "timed_out_share": 0, "preemptions": 3}},
           {"run_id": 9, "metrics": {"input_tokens_max": 99999, "in_flight_per_instance_mean": 999}}]}
        """.formatted(regime));
  }

  private static final String BATCH_ONE = """
      {"summary": "6 single requests: ...", "kinds": "single requests", "measurements": 6, "promptTokensMin": 1,
       "promptTokensMax": 1000, "contextTokensMax": 1200, "concurrencyMin": 1.0, "concurrencyMax": 1.0,
       "cacheHitShareMin": 0.0, "cacheHitShareMax": 0.0, "saturatedMeasurements": 0}""";

  @Test
  void operatingPoint_isTheMaximumOverSMetricsHeadlineRuns() throws Exception {
    ObjectNode op = ReplayProfileSection.json(replay(BATCH_ONE)).with("operating_point");
    assertEquals(5000, op.path("input_tokens_max").asDouble(), 0);
    assertEquals(6000, op.path("context_tokens_max").asDouble(), 0);
    assertEquals(12.5, op.path("in_flight_per_instance_mean").asDouble(), 0);
    assertEquals(2.0, op.path("requests_per_s_per_instance").asDouble(), 1e-12); // 800 / 100 s / 4
    assertEquals(0.6, op.path("total_hit_ratio").path("min").asDouble(), 0);
    assertEquals(0.8, op.path("total_hit_ratio").path("max").asDouble(), 0);
    assertEquals("[3,7]", op.path("run_ids").toString());
  }

  @Test
  void batchOneRegime_everyAxisBeyondIt_isStatedWithItsFactor() throws Exception {
    ObjectNode o = ReplayProfileSection.json(replay(BATCH_ONE));
    List<String> out = new ArrayList<>();
    o.path("outside_validated_regime").forEach(x -> out.add(x.asText()));
    assertEquals(List.of(
        "prompts up to 5,000 tokens, 5.0x longer than any validated run (1,000)",
        "contexts (prompt + output) up to 6,000 tokens, 5.0x longer than any validated run (1,200)",
        "12.5 requests in flight per instance on average, where only one request at a time (batch 1) was validated",
        "a prefix-cache hit share of 60%-80%, where the validated single requests had none (no prefix-cache hits)",
        "a queue-bound knee (up to 70% of the time to first token spent waiting for admission, 3 preemptions for KV memory)"
            + " where only unsaturated single requests were validated"), out);
    Html h = new Html();
    ReplayProfileSection.html(h, o);
    String page = h.toString();
    assertTrue(page.contains("fit (in-sample): median |error| E2E 0.1%"), page);
    assertTrue(page.contains("leave-one-out (the fitted runs): median |error| E2E 0.3%"), page);
    assertTrue(page.contains("held-out runs: none"), page);
    assertFalse(page.contains("not fitted to"), page);
    assertTrue(page.contains("lies outside it: prompts up to 5,000 tokens"), page);
  }

  @Test
  void loadRegimeCoveringTheOperatingPoint_saysItLiesWithin() throws Exception {
    String wide = """
        {"summary": "load stages", "kinds": "load stages", "measurements": 5, "promptTokensMin": 500,
         "promptTokensMax": 8000, "contextTokensMax": 9000, "concurrencyMin": 2.0, "concurrencyMax": 40.0,
         "requestRateMin": 1.0, "requestRateMax": 5.0, "cacheHitShareMin": 0.58, "cacheHitShareMax": 0.9,
         "saturatedMeasurements": 1}""";
    ObjectNode o = ReplayProfileSection.json(replay(wide));
    assertEquals(0, o.path("outside_validated_regime").size(), o.toString());
    Html h = new Html();
    ReplayProfileSection.html(h, o);
    assertTrue(h.toString().contains("lies within it on every axis measured"), h.toString());
  }
}
