package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.testing.TestSpark;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verdict on the generator's three presets (issue 6): the agent workload, built to the
 * paper's statistics, must fit (possibly with conditions); chat and single-shot, where
 * session-first routing should not pay, must not. The shipped samples are those presets
 * (sample-traces/README.md gives their generate commands: 3000 requests, 4 instances).
 */
class PresetVerdictTest {
  @TempDir static Path tmp;

  @BeforeAll
  static void spark() {
    TestSpark.get();
  }

  private static JsonNode audit(String sample, String name, String... extra) throws Exception {
    Path out = tmp.resolve(name);
    List<String> a = new ArrayList<>(List.of("audit", "sample-traces/generated/" + sample, "--instances", "4",
        "--out", out.toString()));
    a.addAll(List.of(extra));
    StringWriter se = new StringWriter();
    int code = Main.run(a.toArray(new String[0]), new PrintWriter(new StringWriter(), true), new PrintWriter(se, true));
    assertEquals(0, code, se.toString());
    return Json.MAPPER.readTree(out.resolve("audit.json").toFile());
  }

  private static String status(JsonNode audit, String id) {
    for (JsonNode c : audit.get("criteria")) if (c.get("id").asText().equals(id)) return c.get("status").asText();
    throw new AssertionError("no criterion " + id);
  }

  @Test
  void agentPreset_fits() throws Exception {
    JsonNode a = audit("agent.smetric.b64.jsonl.gz", "agent");
    String v = a.get("verdict").asText();
    assertTrue(v.equals("fits") || v.equals("fits-with-conditions"), v + ": " + a.get("sentence").asText());
    for (String id : List.of("ideal_reuse", "intra_session_share", "first_turn_fraction", "replay_gain_with_global")) {
      assertEquals("pass", status(a, id), id);
    }
  }

  @Test
  void chatPreset_doesNotFit() throws Exception {
    JsonNode a = audit("chat.smetric.jsonl.gz", "chat");
    assertEquals("does-not-fit", a.get("verdict").asText(), a.get("sentence").asText());
    // short conversations: most requests open a session
    assertEquals("fail", status(a, "first_turn_fraction"));
  }

  @Test
  void singleShotPreset_doesNotFit() throws Exception {
    JsonNode a = audit("single-shot.smetric.jsonl.gz", "single-shot");
    assertEquals("does-not-fit", a.get("verdict").asText(), a.get("sentence").asText());
    // every request is its own session: first-turn fraction exactly 1, nothing intra-session
    assertEquals("fail", status(a, "first_turn_fraction"));
    assertEquals("fail", status(a, "ideal_reuse"));
  }
}
