package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28 item 4: a trace that records its routing (written by replay --record-trace) is audited
 * with as-recorded as the judged router and the recorded instance count, and the audit carries
 * validate TRACE's comparison: the same numbers as validate on the same trace, all 0 because the
 * recording came from the same profile (RecordAndValidateTraceTest shows why 0 is the exact answer).
 */
class AuditRecordedRoutingTest {
  @TempDir static Path tmp;

  static CliTest.Run run(String... args) {
    return CliTest.run(args);
  }

  @Test
  void audit_ofRecordedTrace_judgesAsRecorded_andReportsValidationsErrors() throws Exception {
    Path gen = tmp.resolve("agent.jsonl");
    assertEquals(ExitCodes.OK, run("generate", "--preset", "agent", "--requests", "300", "--seed", "5", "--out", gen.toString()).code());
    assertEquals(ExitCodes.OK, run("ingest", gen.toString(), "--out", tmp.resolve("ing").toString()).code());
    Path rec = tmp.resolve("rec");
    var r = run("replay", tmp.resolve("ing").toString(), "--instances", "3", "--policies", "lmetric", "--rate-scale", "1",
        "--closed-loop", "--executor", "local", "--out", tmp.resolve("rp").toString(), "--record-trace", rec.toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());

    // no --instances, no --current-router: both come from the recording
    Path audit = tmp.resolve("audit");
    var a = run("audit", rec.resolve("trace").toString(), "--out", audit.toString(), "--bootstrap", "0", "--no-conditions",
        "--policies", "smetric,least-load,as-recorded", "--global-ratio", "0");
    assertEquals(ExitCodes.OK, a.code(), a.err());
    assertTrue(a.err().contains("the trace records its routing (300 of 300 requests name their instance, 3 distinct)"), a.err());
    JsonNode j = Json.MAPPER.readTree(audit.resolve("audit.json").toFile());
    assertEquals("as-recorded", j.path("headline").path("judged_router").asText(), j.path("headline").toString());
    assertEquals(3, j.path("provenance").path("parameters").path("instances").asInt());

    var v = run("validate", rec.toString(), "--out", tmp.resolve("val").toString());
    assertEquals(ExitCodes.OK, v.code(), v.err());
    JsonNode val = Json.MAPPER.readTree(tmp.resolve("val/validation.json").toFile());
    JsonNode own = j.path("own_traffic_validation");
    for (String k : List.of("counted", "ttft", "e2e", "instances")) assertEquals(val.get(k), own.get(k), k);
    assertTrue(own.path("counted").path("ttft_compared").asInt() > 250, own.toString());
    for (String m : List.of("ttft", "e2e")) {
      assertEquals(0.0, own.path(m).path("median_abs_error").asDouble(), 1e-9, m);
      assertEquals(0.0, own.path(m).path("p90_abs_error").asDouble(), 1e-9, m);
    }
    String html = Files.readString(audit.resolve("index.html"));
    assertTrue(html.contains("The replay&#39;s error on your own requests") || html.contains("The replay's error on your own requests"), "section");
    assertTrue(html.indexOf("id=\"own-traffic\"") < html.indexOf("Evidence"), "beside the verdict, before the evidence");

    // fewer instances than the recording names: a clear error
    var few = run("audit", rec.resolve("trace").toString(), "--out", tmp.resolve("few").toString(), "--instances", "2",
        "--bootstrap", "0", "--no-conditions", "--no-replay");
    assertEquals(ExitCodes.USAGE, few.code(), few.err());
    assertTrue(few.err().contains("the trace records 3 distinct serving instances"), few.err());
  }
}
