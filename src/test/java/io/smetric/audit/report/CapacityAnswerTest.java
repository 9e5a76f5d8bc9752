package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import org.junit.jupiter.api.Test;

/** The capacity answer's sentence and rows (issue 29) from a hand-made replay.json capacity block. */
class CapacityAnswerTest {
  private static String search(String policy, String role, double g, double f, Integer inst, Integer gpus, Double usd) {
    return "{\"policy\":\"" + policy + "\",\"role\":\"" + role + "\",\"global_ratio\":" + g + ",\"judged_router\":\"lmetric\","
        + "\"traffic_factor\":" + f + ",\"instances\":" + inst + (gpus == null ? "" : ",\"gpus\":" + gpus)
        + (usd == null ? "" : ",\"usd_per_day\":" + usd) + (inst == null ? ",\"not_found\":\"no count up to 320 instances passed\"" : "")
        + "}";
  }

  private static JsonNode replay(String gpu, Double price, String... searches) throws Exception {
    return Json.MAPPER.readTree("{\"capacity\":{\"target_attainment\":0.9,\"rule\":\"r\",\"interval\":\"point estimate\","
        + (gpu == null ? "" : "\"gpu\":\"" + gpu + "\",") + "\"gpu_hour_usd\":" + price + ",\"searches\":["
        + String.join(",", searches) + "]}}");
  }

  /**
   * 2 GPUs per instance: lmetric 12 instances = 24 GPUs at 1.6x, SMetric 10 = 20; at $2 per
   * GPU-hour 24 x 2 x 24 = $1,152 and 20 x 2 x 24 = $960 per day; 0x and 2x in the same sentence.
   */
  @Test
  void sentence_namesGpusRoutersAndMoney() throws Exception {
    JsonNode r = replay("NVIDIA H100 SXM 80 GB", 2.0,
        search("lmetric", "judged", 1.6, 1.0, 12, 24, 1152.0), search("smetric", "smetric", 1.6, 1.0, 10, 20, 960.0),
        search("lmetric", "judged", 1.6, 2.0, 23, 46, 2208.0), search("smetric", "smetric", 1.6, 2.0, 19, 38, 1824.0),
        search("lmetric", "judged", 0.0, 1.0, 14, 28, 1344.0), search("smetric", "smetric", 0.0, 1.0, 15, 30, 1440.0));
    ObjectNode c = Answers.capacity(r);
    assertEquals("Serving this trace within SLO takes 24 x NVIDIA H100 SXM 80 GB with lmetric, 20 with SMetric (1.6x global "
        + "tier, 90.0% of requests within the TTFT and TPOT SLO, point estimates; $1152 vs $960 per day at $2 per GPU-hour); "
        + "without a global tier 28 and 30; at 2x the traffic 46 and 38.", c.get("summary").asText());
    assertEquals(3, c.get("by_global_ratio").size());
    assertEquals(20, c.get("by_global_ratio").get(0).get("smetric").get("gpus").asInt());
  }

  /**
   * The instance count's bootstrap interval (issue 29 item 1) in the sentence, in the answer's
   * unit: 2 GPUs per instance, lmetric 12 [11-14] instances = 24 [22-28] GPUs, SMetric 10 [10-11] =
   * 20 [20-22]; audit.json keeps the interval in instances.
   */
  @Test
  void sentence_withInterval_inGpus() throws Exception {
    String lm = search("lmetric", "judged", 1.6, 1.0, 12, 24, null);
    String sm = search("smetric", "smetric", 1.6, 1.0, 10, 20, null);
    lm = lm.substring(0, lm.length() - 1) + ",\"interval\":{\"low\":11,\"high\":14,\"level\":0.95,\"replicates\":10}}";
    sm = sm.substring(0, sm.length() - 1) + ",\"interval\":{\"low\":10,\"high\":11,\"level\":0.95,\"replicates\":10}}";
    ObjectNode c = Answers.capacity(replay("NVIDIA H20 96 GB", null, lm, sm));
    assertEquals("Serving this trace within SLO takes 24 x NVIDIA H20 96 GB with lmetric [22-28], 20 with SMetric [20-22] (1.6x "
        + "global tier, 90.0% of requests within the TTFT and TPOT SLO, ranges of the answers over 10 session-tree "
        + "resamples).", c.get("summary").asText());
    JsonNode row = c.get("by_global_ratio").get(0);
    assertEquals(11, row.get("judged").get("interval").get("low").asInt());
    assertEquals(11, row.get("smetric").get("interval").get("high").asInt());
  }

  /**
   * With 40 replicates the 2.5% and 97.5% nearest ranks are the 1st and 39th of 40, no longer both
   * extremes, so the sentence may call the brackets 95% intervals; with 10 (above) they are the 1st
   * and 10th, the smallest and largest answer, and the sentence calls them ranges.
   */
  @Test
  void sentence_enoughReplicates_callsThemIntervals() throws Exception {
    String lm = search("lmetric", "judged", 1.6, 1.0, 12, 24, null);
    String sm = search("smetric", "smetric", 1.6, 1.0, 10, 20, null);
    lm = lm.substring(0, lm.length() - 1) + ",\"interval\":{\"low\":11,\"high\":14,\"level\":0.95,\"replicates\":40}}";
    sm = sm.substring(0, sm.length() - 1) + ",\"interval\":{\"low\":10,\"high\":11,\"level\":0.95,\"replicates\":40}}";
    assertTrue(Answers.capacity(replay("NVIDIA H20 96 GB", null, lm, sm)).get("summary").asText()
        .contains("SLO, 95% bootstrap intervals over 40 session-tree resamples)."));
  }

  /** An interval that excludes its point estimate (the sample: 10 with replicates at 11-13) is said so in the sentence. */
  @Test
  void sentence_intervalExcludingPoint_saysSo() throws Exception {
    String lm = search("lmetric", "judged", 1.6, 1.0, 10, 10, null);
    String sm = search("smetric", "smetric", 1.6, 1.0, 10, 10, null);
    lm = lm.substring(0, lm.length() - 1) + ",\"interval\":{\"low\":11,\"high\":12,\"level\":0.95,\"replicates\":10,\"note\":\"n\"}}";
    sm = sm.substring(0, sm.length() - 1) + ",\"interval\":{\"low\":11,\"high\":13,\"level\":0.95,\"replicates\":10,\"note\":\"n\"}}";
    assertEquals("Serving this trace within SLO takes 10 x NVIDIA H20 96 GB with lmetric [11-12], 10 with SMetric [11-13] (1.6x "
        + "global tier, 90.0% of requests within the TTFT and TPOT SLO, ranges of the answers over 10 session-tree "
        + "resamples; the point estimates lie outside them: the resamples replay differently from the trace).",
        Answers.capacity(replay("NVIDIA H20 96 GB", null, lm, sm)).get("summary").asText());
  }

  /** A profile whose hardware line gives no GPU count: instances, and a search without an answer says so. */
  @Test
  void withoutGpus_instances_andNotFound() throws Exception {
    JsonNode r = replay(null, null, search("least-load", "judged", 0.0, 1.0, null, null, null),
        search("smetric", "smetric", 0.0, 1.0, 40, null, null));
    assertEquals("Serving this trace within SLO takes more than the search tried (no count up to 320 instances passed) with "
        + "least-load, 40 instances with SMetric (no global tier, 90.0% of requests within the TTFT and TPOT SLO, point "
        + "estimates).", Answers.capacity(r).get("summary").asText());
  }

  /**
   * The sized point (issue 29 item 3): both routers at the judged router's x1 answer, the
   * preconditions there and SMetric's gain (1,100 / 1,000 - 1 = +10.0%), and the note that the
   * verdict reads other points.
   */
  @Test
  void sizedPoint_rowsWithPreconditionsAndGain() throws Exception {
    JsonNode r = Json.MAPPER.readTree("{\"capacity\":{\"target_attainment\":0.9,\"rule\":\"r\",\"interval\":\"i\","
        + "\"searches\":[" + search("lmetric", "judged", 1.6, 1.0, 10, 10, null) + "," + search("smetric", "smetric", 1.6, 1.0, 10, 10, null)
        + "],\"sized_point\":[{\"global_ratio\":1.6,\"instances\":10,\"judged_router\":\"lmetric\",\"smetric_gain_vs_judged\":0.1,"
        + "\"policies\":{\"smetric\":{\"tps_within_slo\":1100,\"slo_attainment\":0.93,\"requests_per_instance_minute_median\":21,"
        + "\"imbalance_mean\":1.2,\"stickiness\":0.8},\"lmetric\":{\"tps_within_slo\":1000,\"slo_attainment\":0.91,"
        + "\"requests_per_instance_minute_median\":21,\"imbalance_mean\":1.5,\"stickiness\":0.6}}}]}}");
    ObjectNode c = Answers.capacity(r);
    ObjectNode answers = Json.object();
    answers.set("capacity", c);
    Html h = new Html();
    Answers.capacityHtml(h, answers);
    String s = h.toString();
    org.junit.jupiter.api.Assertions.assertTrue(s.contains("<td>smetric</td><td class=\"num\">1100 tok/s</td>")
        || s.contains("1100 tok/s"), s);
    org.junit.jupiter.api.Assertions.assertTrue(s.contains("+10.0%"), s);
    org.junit.jupiter.api.Assertions.assertTrue(s.contains("lmetric (judged)"), s);
    org.junit.jupiter.api.Assertions.assertTrue(s.contains("The verdict does not read it"), s);
  }

  /**
   * The other routers (--capacity-all-routers, x1 only) go into their row's "others" list, not
   * over the judged router, and into a column of their own; the sentence still names the two.
   */
  @Test
  void otherRouters_listedBesideTheTwo() throws Exception {
    JsonNode r = replay("NVIDIA H20 96 GB", null, search("lmetric", "judged", 1.6, 1.0, 10, 10, null),
        search("smetric", "smetric", 1.6, 1.0, 10, 10, null), search("least-load", "other", 1.6, 1.0, 12, 12, null),
        search("round-robin", "other", 1.6, 1.0, null, null, null), search("smetric", "smetric", 1.6, 2.0, 14, 14, null));
    ObjectNode c = Answers.capacity(r);
    JsonNode row = c.get("by_global_ratio").get(0);
    assertEquals("lmetric", row.get("judged").get("router").asText());
    assertEquals(2, row.get("others").size());
    assertEquals("least-load", row.get("others").get(0).get("router").asText());
    assertEquals(12, row.get("others").get(0).get("instances").asInt());
    assertTrue(row.get("others").get(1).get("instances").isNull());
    assertEquals(false, c.get("by_global_ratio").get(1).has("others"));
    assertTrue(c.get("summary").asText().startsWith("Serving this trace within SLO takes 10 x NVIDIA H20 96 GB with lmetric, 10 with SMetric"));
    ObjectNode answers = Json.object();
    answers.set("capacity", c);
    Html h = new Html();
    Answers.capacityHtml(h, answers);
    String s = h.toString();
    assertTrue(s.contains("other routers (x1 only)"), s);
    assertTrue(s.contains("least-load: 12 / 12 GPUs, round-robin: not found"), s);
  }

  /** Which point each criterion reads (audit.json criteria[].operating_point). */
  @Test
  void operatingPoint_perCriterionSource() {
    assertEquals("the trace as recorded (no simulation)", AuditJson.operatingPoint("characterization:ideal_reuse"));
    org.junit.jupiter.api.Assertions.assertTrue(AuditJson.operatingPoint(io.smetric.audit.report.verdict.AuditCriteria.GAIN_WITH_GLOBAL)
        .startsWith("equal load at --instances"));
    org.junit.jupiter.api.Assertions.assertTrue(AuditJson.operatingPoint(io.smetric.audit.report.verdict.AuditCriteria.REGIME_RPM)
        .startsWith("maximum TPS within SLO at --instances"));
    // hot spots and stickiness are read at equal load (AuditCriteria.precondition), so they say so
    for (String m : new String[] {io.smetric.audit.report.verdict.AuditCriteria.REGIME_HOT_SPOTS,
        io.smetric.audit.report.verdict.AuditCriteria.REGIME_STICKINESS}) {
      org.junit.jupiter.api.Assertions.assertTrue(AuditJson.operatingPoint(m).startsWith("equal load at --instances: "
          + "cache-affinity and least-load"), m);
    }
  }

  @Test
  void noSearches_noAnswer() throws Exception {
    assertNull(Answers.capacity(Json.MAPPER.readTree("{\"capacity\":{\"not_applicable\":\"--no-capacity\"}}")));
  }
}
