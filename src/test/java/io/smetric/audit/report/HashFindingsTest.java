package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The block-hasher's warnings and what the logs lacked become findings of the audit report. */
class HashFindingsTest {
  @Test
  void warningsAndSynthesisedInputs_areFindings() throws Exception {
    JsonNode h = Json.MAPPER.readTree("{\"records_read\":5,\"requests\":2,\"sessions\":1,"
        + "\"warnings\":[\"file:/x/a.jsonl: 3 of 4 record(s) skipped (read as openai; top reasons: malformed JSON at column N (3))\"],"
        + "\"per_file\":["
        + "{\"file\":\"a\",\"synthesised\":{\"arrival\":{\"count\":2,\"what\":\"no timestamp in the record: arrival synthesised\"}}},"
        + "{\"file\":\"b\",\"synthesised\":{\"arrival\":{\"count\":1,\"what\":\"no timestamp in the record: arrival synthesised\"},"
        + "\"tool_schemas\":{\"count\":1,\"what\":\"the tool schemas are not in the log\"}}}]}");
    List<String> f = AuditJson.hashFindings(h);
    assertTrue(f.contains("Mostly skipped: file:/x/a.jsonl: 3 of 4 record(s) skipped (read as openai; top reasons: malformed JSON at column N (3))."), f.toString());
    assertTrue(f.contains("Synthesised or missing in 2 file(s), 3 time(s): no timestamp in the record: arrival synthesised."), f.toString());
    assertTrue(f.contains("Synthesised or missing in 1 file(s), 1 time(s): the tool schemas are not in the log."), f.toString());
    assertEquals(1, f.stream().filter(x -> x.startsWith("Mostly skipped")).count());
  }
}
