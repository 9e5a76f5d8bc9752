package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate TRACE --shadow smetric} from the command line, checked against an independent
 * fact: on a trace recorded under SMetric itself (open loop, which the as-recorded replay
 * reproduces exactly: RecordAndValidateTraceTest), every shadow decision sees the view the recorded
 * decision saw, so the shadow must agree on every request and its migrations equal the recorded ones.
 */
class ShadowCommandTest {
  @TempDir static Path tmp;

  @Test
  void shadowOfATraceRecordedUnderSmetric_agreesOnEveryRequest() throws Exception {
    Path gen = tmp.resolve("agent.jsonl");
    CliTest.Run g = CliTest.run("generate", "--preset", "agent", "--requests", "400",
        "--seed", "5", "--out", gen.toString());
    assertEquals(ExitCodes.OK, g.code(), g.err());
    CliTest.Run i = CliTest.run("ingest", gen.toString(), "--out", tmp.resolve("ing").toString());
    assertEquals(ExitCodes.OK, i.code(), i.err());
    Path rec = tmp.resolve("rec");
    CliTest.Run r = CliTest.run("replay", tmp.resolve("ing").toString(), "--instances", "3",
        "--policies", "smetric", "--rate-scale", "1", "--executor", "local", "--out", tmp.resolve("rp").toString(),
        "--record-trace", rec.toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());
    Path out = tmp.resolve("shadow");
    CliTest.Run v = CliTest.run("validate", rec.toString(), "--shadow", "smetric", "--out", out.toString());
    assertEquals(ExitCodes.OK, v.code(), v.err());
    JsonNode j = Json.MAPPER.readTree(out.resolve("shadow.json").toFile());
    assertEquals(400, j.get("agreement").get("requests_with_recorded_instance").asInt());
    assertEquals(400, j.get("agreement").get("agreed").asInt(), v.out());
    JsonNode m = j.get("migrations");
    assertEquals(m.get("recorded").asInt(), m.get("shadow").asInt());
    int classes = 0;
    for (JsonNode c : j.get("by_decision_class")) classes += c.get("requests").asInt();
    assertEquals(400, classes);
    assertTrue(v.out().contains("agreement with the recorded instance: 400 of 400 (100.0%)"), v.out());
    // the check can fail: SMetric with a stricter overload guard than the recording's disagrees somewhere
    CliTest.Run strict = CliTest.run("validate", rec.toString(), "--shadow", "smetric",
        "--overload", "0.5");
    assertEquals(ExitCodes.OK, strict.code(), strict.err());
    assertTrue(!strict.out().contains("400 of 400 (100.0%)"), strict.out());
  }
}
