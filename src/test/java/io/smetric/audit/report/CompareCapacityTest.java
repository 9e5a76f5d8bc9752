package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** compare sets the audits' capacity answers side by side (issue 29 item 5). */
class CompareCapacityTest {
  private static JsonNode auditWith(int judged, int smetric) throws Exception {
    JsonNode replay = Json.MAPPER.readTree("{\"capacity\":{\"target_attainment\":0.9,\"rule\":\"r\",\"interval\":\"i\","
        + "\"gpu\":\"NVIDIA H20 96 GB\",\"searches\":["
        + "{\"policy\":\"lmetric\",\"role\":\"judged\",\"global_ratio\":1.6,\"judged_router\":\"lmetric\",\"traffic_factor\":1.0,"
        + "\"instances\":" + judged + ",\"gpus\":" + judged + "},"
        + "{\"policy\":\"smetric\",\"role\":\"smetric\",\"global_ratio\":1.6,\"judged_router\":\"lmetric\",\"traffic_factor\":1.0,"
        + "\"instances\":" + smetric + ",\"gpus\":" + smetric + "}]}}");
    ObjectNode a = Json.object();
    a.putObject("answers").set("capacity", Answers.capacity(replay));
    return a;
  }

  @Test
  void capacity_rowPerAuditAndSentence_auditWithoutOneSaysSo() throws Exception {
    List<CompareReport.Audit> audits = List.of(new CompareReport.Audit("trace A", null, auditWith(24, 20), null),
        new CompareReport.Audit("trace B", null, auditWith(9, 11), null),
        new CompareReport.Audit("old", null, Json.object(), null));
    Html h = new Html();
    CompareReport.capacityHtml(h, audits);
    String s = h.toString();
    assertTrue(s.contains("trace A: Serving this trace within SLO takes 24 x NVIDIA H20 96 GB with lmetric, 20 with SMetric"), s);
    assertTrue(s.contains("trace B: Serving this trace within SLO takes 9 x NVIDIA H20 96 GB with lmetric, 11 with SMetric"), s);
    assertTrue(s.contains("<td>trace A</td><td class=\"num\">1.6x</td>") || s.contains("trace A</td>"), s);
    assertTrue(s.contains("24 instances (24 GPUs)") && s.contains("11 instances (11 GPUs)"), s);
    assertTrue(s.contains("old: no capacity answer"), s);
  }
}
