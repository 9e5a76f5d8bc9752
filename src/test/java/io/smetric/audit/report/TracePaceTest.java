package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import org.junit.jupiter.api.Test;

/** Whether the simulated cluster serves the trace at its own pace (issue 29 item 4), from hand-made equal_load blocks. */
class TracePaceTest {
  private static JsonNode replay(double r0, double r16) throws Exception {
    return Json.MAPPER.readTree("{\"settings\":{\"instances\":4,\"profile\":{\"name\":\"qwen3-30b-a3b-h20\"}},"
        + "\"equal_load\":{\"target_attainment\":0.9,\"by_global_ratio\":["
        + "{\"global_ratio\":0,\"judged_router\":\"lmetric\",\"reference_rate_scale\":" + r0 + "},"
        + "{\"global_ratio\":1.6,\"judged_router\":\"least-load\",\"reference_rate_scale\":" + r16 + "}]}}");
  }

  @Test
  void belowTheTracesRate_saysTheClusterAndProfileDisagree_namingTheBestCapacity() throws Exception {
    JsonNode p = Answers.tracePace(replay(0.1405, 0.1557));
    assertFalse(p.get("served_at_trace_pace").asBoolean());
    assertEquals(0.1557, p.get("highest_rate_scale").asDouble());
    assertEquals(1.6, p.get("at_global_ratio").asDouble());
    assertEquals("least-load", p.get("router").asText());
    String s = p.get("summary").asText();
    assertTrue(s.startsWith("The simulated cluster (4 instances, profile qwen3-30b-a3b-h20) cannot serve this trace at its own pace"), s);
    assertTrue(s.contains("keeps 90.0% of its requests within SLO only up to x0.1557"), s);
    assertTrue(s.contains("check --instances"), s);
  }

  @Test
  void atOrAboveTheTracesRate_served() throws Exception {
    JsonNode p = Answers.tracePace(replay(0.8, 1.0));
    assertTrue(p.get("served_at_trace_pace").asBoolean());
    assertTrue(p.get("summary").asText().contains("serves this trace at its own pace"), p.get("summary").asText());
  }

  @Test
  void noEqualLoadBlock_noStatement() throws Exception {
    assertNull(Answers.tracePace(Json.MAPPER.readTree("{\"settings\":{}}")));
  }
}
