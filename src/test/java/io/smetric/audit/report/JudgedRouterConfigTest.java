package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import org.junit.jupiter.api.Test;

/** audit.json's answers.judged_router carries the --current-router configuration replay.json recorded, and nothing without one. */
class JudgedRouterConfigTest {
  @Test
  void configuredRouter_configurationCopied_plainRouter_none() throws Exception {
    JsonNode judged = Json.MAPPER.readTree("{\"current_router\":\"sglang-cache-aware\",\"rule\":\"the router named by "
        + "--current-router\",\"current_router_config\":[{\"router\":\"sglang\",\"knob\":\"--cache-threshold -> "
        + "sglangCacheThreshold\",\"value\":\"0.6\",\"source\":\"--current-router sglang: --cache-threshold\"}]}");
    JsonNode j = Answers.judgedRouter(judged);
    assertEquals("sglang-cache-aware", j.get("name").asText());
    assertEquals("0.6", j.get("configuration").get(0).get("value").asText());
    assertEquals("--current-router sglang: --cache-threshold", j.get("configuration").get(0).get("source").asText());
    JsonNode plain = Answers.judgedRouter(Json.MAPPER.readTree("{\"current_router\":\"llm-d\",\"rule\":\"r\"}"));
    assertFalse(plain.has("configuration"));
  }
}
