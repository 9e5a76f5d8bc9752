package io.smetric.audit.generate;

import static io.smetric.audit.generate.GeneratedTraces.commonPrefix;
import static io.smetric.audit.generate.GeneratedTraces.ids;
import static io.smetric.audit.generate.GeneratedTraces.lines;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structural properties of generated traces: determinism, block counts, prefix extension of
 * follow-ups, compaction, forks, id numbering and agreement between the three formats. One agent
 * trace of 3000 requests per format is generated once for the class.
 */
class WorkloadGeneratorTest {
  static final int N = 3000;
  static final int B = 16;
  /** The agent preset with a 30-minute warm-up (enough sessions in flight; the 8 h default is for steady-state statistics). */
  static final GeneratorConfig AGENT = Preset.AGENT.config().with(Param.WARMUP_S, 1800);

  @TempDir static Path dir;
  static Path smetric;
  static List<JsonNode> recs;
  static List<JsonNode> truth;
  static int[] sysTokens;

  @BeforeAll
  static void generate() {
    smetric = GeneratedTraces.write(dir, "agent.jsonl", AGENT, 7, N, OutputFormat.SMETRIC, B);
    recs = lines(smetric);
    truth = lines(TraceGeneration.truthPathFor(smetric));
    sysTokens = GeneratedTraces.generator(AGENT, 7, B).systemPromptTokens();
  }

  @Test
  void sameSeed_writesIdenticalBytes() throws IOException {
    Path again = GeneratedTraces.write(dir, "again.jsonl", AGENT, 7, N, OutputFormat.SMETRIC, B);
    assertArrayEquals(Files.readAllBytes(smetric), Files.readAllBytes(again));
    assertArrayEquals(Files.readAllBytes(TraceGeneration.truthPathFor(smetric)),
        Files.readAllBytes(TraceGeneration.truthPathFor(again)));
  }

  @Test
  void sameSeed_gzipOutput_identicalBytes() throws IOException {
    Path a = GeneratedTraces.write(dir, "g1.jsonl.gz", Preset.CHAT, 3, 500, OutputFormat.BAILIAN, B);
    Path b = GeneratedTraces.write(dir, "g2.jsonl.gz", Preset.CHAT, 3, 500, OutputFormat.BAILIAN, B);
    assertArrayEquals(Files.readAllBytes(a), Files.readAllBytes(b));
    assertEquals(500, lines(a).size());
    assertEquals(dir.resolve("g1.jsonl.truth.jsonl.gz"), TraceGeneration.truthPathFor(a));
    assertEquals(500, lines(TraceGeneration.truthPathFor(a)).size());
  }

  @Test
  void differentSeed_writesDifferentBytes() throws IOException {
    Path other = GeneratedTraces.write(dir, "other.jsonl", AGENT, 8, N, OutputFormat.SMETRIC, B);
    assertFalse(java.util.Arrays.equals(Files.readAllBytes(smetric), Files.readAllBytes(other)));
  }

  @Test
  void everyRecord_hasCeilInputOverBlockSizeIds() {
    assertEquals(N, recs.size());
    for (JsonNode r : recs) {
      int in = r.get("input_tokens").asInt();
      assertEquals(B, r.get("block_size").asInt());
      assertEquals((in + B - 1) / B, r.get("hash_ids").size(), r.get("request_id").asText());
    }
  }

  @Test
  void records_areInArrivalOrder_startingAtZero() {
    double prev = 0;
    for (JsonNode r : recs) {
      double a = r.get("arrival_s").asDouble();
      assertTrue(a >= prev, r.get("request_id").asText());
      prev = a;
    }
  }

  @Test
  void followUp_keepsParentsFullBlocks_andRenewsItsPartialBlock() {
    Map<String, JsonNode> byId = index();
    int checked = 0, partial = 0;
    for (int i = 0; i < recs.size(); i++) {
      JsonNode r = recs.get(i);
      if (r.get("turn").asInt() == 0 || r.get("parent_id").isNull() || truth.get(i).get("compacted").asBoolean()) continue;
      JsonNode p = byId.get(r.get("parent_id").asText());
      long[] c = ids(r), q = ids(p);
      int pin = p.get("input_tokens").asInt();
      int full = pin / B;
      // the follow-up = parent prompt + parent output + new text, so it is strictly longer
      assertTrue(r.get("input_tokens").asInt() >= pin + p.get("output_tokens").asInt() + 1);
      assertEquals(full, commonPrefix(c, q), r.get("request_id").asText());
      if (pin % B != 0) {
        // the parent's trailing partial block now holds more tokens: new content, new id
        assertNotEquals(q[full], c[full]);
        partial++;
      }
      checked++;
    }
    assertTrue(checked > 500, "follow-ups checked: " + checked);
    assertTrue(partial > checked / 2, "partial trailing blocks: " + partial);
  }

  @Test
  void compactedFollowUp_sharesOnlyTheSystemPromptsFullBlocks() {
    Map<String, JsonNode> byId = index();
    int checked = 0;
    for (int i = 0; i < recs.size(); i++) {
      JsonNode t = truth.get(i);
      if (!t.get("compacted").asBoolean()) continue;
      JsonNode r = recs.get(i);
      assertTrue(r.get("turn").asInt() > 0);
      if (r.get("parent_id").isNull()) continue;
      JsonNode p = byId.get(r.get("parent_id").asText());
      int sysBlocks = sysTokens[t.get("framework").asInt()] / B;
      assertEquals(sysBlocks, commonPrefix(ids(r), ids(p)), r.get("request_id").asText());
      assertTrue(p.get("input_tokens").asInt() / B > sysBlocks, "the parent had history beyond the system prompt");
      checked++;
    }
    assertTrue(checked > 10, "compactions checked: " + checked);
  }

  @Test
  void fork_namesSpawningRequestOfAnotherSession_withTriggerSubagent_andExtendsItsPrefix() {
    Map<String, JsonNode> byId = index();
    int checked = 0;
    for (int i = 0; i < recs.size(); i++) {
      JsonNode r = recs.get(i);
      JsonNode t = truth.get(i);
      boolean forkTurn0 = t.get("fork").asBoolean() && r.get("turn").asInt() == 0;
      assertEquals(forkTurn0, "subagent".equals(r.get("trigger").asText()), r.get("request_id").asText());
      if (!forkTurn0 || r.get("parent_id").isNull()) continue;
      JsonNode p = byId.get(r.get("parent_id").asText());
      assertNotEquals(p.get("session_id").asText(), r.get("session_id").asText());
      assertTrue(p.get("arrival_s").asDouble() < r.get("arrival_s").asDouble());
      int shared = commonPrefix(ids(r), ids(p));
      int sysBlocks = sysTokens[t.get("framework").asInt()] / B;
      assertTrue(shared >= sysBlocks, "a sub-agent inherits at least the system prompt");
      assertTrue(shared <= p.get("input_tokens").asInt() / B, "and at most the parent's full blocks");
      checked++;
    }
    assertTrue(checked > 50, "forks checked: " + checked);
  }

  @Test
  void rootTurn0_sameFramework_sharesExactlyTheSystemPromptsFullBlocks() {
    Map<Integer, long[]> first = new HashMap<>();
    int checked = 0;
    for (int i = 0; i < recs.size(); i++) {
      JsonNode r = recs.get(i);
      JsonNode t = truth.get(i);
      if (r.get("turn").asInt() != 0 || t.get("fork").asBoolean()) continue;
      long[] c = ids(r);
      int fw = t.get("framework").asInt();
      boolean aux = t.get("aux").asBoolean();
      // auxiliary calls start with the framework's short auxiliary prompt instead
      int sysBlocks = (aux ? Preset.AGENT.config().getInt(Param.AUX_SYSTEM_PROMPT_TOKENS) : sysTokens[fw]) / B;
      long[] prev = first.putIfAbsent(aux ? -1 - fw : fw, c);
      if (prev == null) continue;
      // the block straddling the end of the system prompt carries the session's own text
      assertEquals(sysBlocks, commonPrefix(c, prev), r.get("request_id").asText());
      checked++;
    }
    assertTrue(checked > 100, "root turn-0 pairs checked: " + checked);
  }

  @Test
  void windowStartsInSteadyState_inFlightSessionsHaveNoParentInTheTrace() {
    long continued = 0;
    for (JsonNode r : recs) {
      if (r.get("turn").asInt() > 0 && r.get("parent_id").isNull()) continued++;
    }
    // warm-up: sessions already running when the window opens show up at turn > 0 without a parent
    assertTrue(continued > 0);
    Map<String, JsonNode> byId = index();
    for (JsonNode r : recs) {
      if (!r.get("parent_id").isNull()) assertTrue(byId.containsKey(r.get("parent_id").asText()));
    }
  }

  @Test
  void ids_areNumberedByFirstAppearance() {
    long next = 0;
    for (JsonNode r : recs) {
      for (long id : ids(r)) {
        assertTrue(id <= next, "id " + id + " skips ahead of " + next);
        if (id == next) next++;
      }
    }
  }

  @Test
  void bailianAndMooncake_describeTheSameWorkload() {
    Path bai = GeneratedTraces.write(dir, "agent.bailian.jsonl", AGENT, 7, N, OutputFormat.BAILIAN, B);
    Path moon = GeneratedTraces.write(dir, "agent.mooncake.jsonl", AGENT, 7, N, OutputFormat.MOONCAKE, 512);
    List<JsonNode> b = lines(bai), m = lines(moon);
    List<JsonNode> mt = lines(TraceGeneration.truthPathFor(moon));
    assertEquals(truth, lines(TraceGeneration.truthPathFor(bai)));
    assertEquals(truth, mt, "the truth does not depend on format or block size");
    for (int i = 0; i < N; i++) {
      JsonNode s = recs.get(i), bi = b.get(i), mi = m.get(i);
      assertEquals(i, bi.get("chat_id").asLong());
      long parent = s.get("parent_id").isNull() ? -1 : Long.parseLong(s.get("parent_id").asText().substring(1));
      assertEquals(parent, bi.get("parent_chat_id").asLong());
      assertEquals(s.get("turn").asInt() + 1, bi.get("turn").asInt());
      assertEquals(s.get("arrival_s").asDouble(), bi.get("timestamp").asDouble());
      assertEquals(Math.round(s.get("arrival_s").asDouble() * 1000), mi.get("timestamp").asLong(), 1);
      assertEquals(s.get("input_tokens").asInt(), mi.get("input_length").asInt());
      assertEquals(s.get("output_tokens").asInt(), bi.get("output_length").asInt());
      assertArrayEquals(ids(s), ids(bi));
      assertEquals((s.get("input_tokens").asInt() + 511) / 512, mi.get("hash_ids").size());
      assertTrue(List.of("text", "search", "image", "file").contains(bi.get("type").asText()));
      assertEquals(4, mi.size(), "mooncake has timestamp, input_length, output_length, hash_ids only");
    }
  }

  private static Map<String, JsonNode> index() {
    Map<String, JsonNode> m = new HashMap<>();
    for (JsonNode r : recs) m.put(r.get("request_id").asText(), r);
    return m;
  }
}
