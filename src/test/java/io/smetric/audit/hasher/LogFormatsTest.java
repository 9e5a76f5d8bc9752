package io.smetric.audit.hasher;

import static io.smetric.audit.hasher.FileHasherTest.KEY;
import static io.smetric.audit.hasher.FileHasherTest.f;
import static io.smetric.audit.hasher.FileHasherTest.kind;
import static io.smetric.audit.hasher.FileHasherTest.rid;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.Canonical;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The formats added for issue 16, each on its shipped real sample (sample-traces/raw-logs/*,
 * PROVENANCE.md there): request count, turns, sessions, token counts, provider accounting and
 * arrival times. Expected values were counted from the files independently of the hasher (a
 * reading of the JSON, not of our readers: assistant messages / distinct response ids / token
 * counts with a new running total), except the prompt token counts, which are checked against an
 * independent whole-prompt tokenisation (PromptBuilderTest.wholePromptTokens).
 */
class LogFormatsTest {
  static final Path RAW = FileHasherTest.REPO.resolve("sample-traces/raw-logs");

  static List<Row> requests(Path file, LogFormat f) {
    return kind(FileHasherTest.run(file, f), StagingRows.KIND_REQUEST);
  }

  static JsonNode counters(Path file, LogFormat f) throws Exception {
    Row r = kind(FileHasherTest.run(file, f), StagingRows.KIND_FILE).get(0);
    return Messages.MAPPER.readTree(r.getString(r.fieldIndex(StagingRows.DETAIL)));
  }

  static long sum(List<Row> rows, String field) {
    long s = 0;
    for (Row r : rows) s += ((Number) f(r, field)).longValue();
    return s;
  }

  static double epoch(String iso) {
    Instant i = Instant.parse(iso);
    return i.getEpochSecond() + i.getNano() / 1e9;
  }

  // ------------------------------------------------------------------ mini-SWE-agent

  @Test
  void miniSweAgent_realDeepSeekTrajectory() throws Exception {
    Path p = RAW.resolve("mini-swe-agent/django__django-14752.traj.json.gz");
    assertEquals(LogFormat.MINI_SWE_AGENT, new FileHasher(FileHasherTest.settings(LogFormat.AUTO), 0, p.toString(), new Configuration()).format());
    List<Row> req = requests(p, LogFormat.AUTO);
    assertEquals(31, req.size()); // 31 assistant messages in 64
    for (int t = 0; t < 31; t++) {
      Row r = req.get(t);
      assertEquals("f0-c0-t" + t, f(r, StagingRows.REQUEST_ID));
      assertEquals(t, f(r, StagingRows.TURN));
      assertEquals("f0-c0", f(r, StagingRows.SESSION_ID));
      assertEquals(t == 0 ? Canonical.TRIGGER_USER : Canonical.TRIGGER_TOOL, f(r, StagingRows.TRIGGER));
      assertEquals(Canonical.CACHE_DEEPSEEK, f(r, StagingRows.PROVIDER_CACHE));
      assertEquals(false, f(r, StagingRows.SYNTHETIC));
    }
    // the provider's numbers, summed from the file's usage objects
    assertEquals(294301, sum(req, StagingRows.PROVIDER_INPUT_TOKENS));
    assertEquals(284672, sum(req, StagingRows.PROVIDER_CACHED_TOKENS));
    assertEquals(7074, sum(req, StagingRows.OUTPUT_TOKENS)); // usage.completion_tokens
    assertEquals(1995, f(req.get(0), StagingRows.PROVIDER_INPUT_TOKENS));
    assertEquals(320, f(req.get(0), StagingRows.PROVIDER_CACHED_TOKENS));
    // arrivals: the response's created second for the first request, then the previous message's time
    assertEquals(1775812896.0, (double) f(req.get(0), StagingRows.TIME_S));
    assertEquals(1775812897.5195434, (double) f(req.get(1), StagingRows.TIME_S), 1e-6);
    assertEquals(1775813094.476903, (double) f(req.get(30), StagingRows.TIME_S), 1e-6);
    // the first prompt: system + task message, as one independent whole-prompt tokenisation
    JsonNode traj;
    try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
      traj = Messages.MAPPER.readTree(in);
    }
    List<ChatMessage> first = List.of(Messages.openai(traj.get("messages").get(0), "t", 1, "m0"),
        Messages.openai(traj.get("messages").get(1), "t", 1, "m1"));
    int[] tokens = PromptBuilderTest.wholePromptTokens(ChatMlTemplateTest.render(first, List.of(), true));
    assertEquals(tokens.length, f(req.get(0), StagingRows.INPUT_TOKENS));
    JsonNode c = counters(p, LogFormat.AUTO);
    assertEquals(1, c.get("records").asLong());
    assertEquals(1, c.at("/synthesised/arrival_created/count").asLong());
    assertEquals(1, c.at("/synthesised/tool_schemas/count").asLong());
    assertEquals(31, c.get("provider_cache_requests").asLong());
    assertEquals(0, c.get("skipped").asLong());
  }

  // ------------------------------------------------------------------ Claude Code

  @Test
  void claudeCode_oneResponseWrittenAsFiveLines_isOneRequest() throws Exception {
    Path p = RAW.resolve("claude-code/short.jsonl");
    assertEquals(LogFormat.CLAUDE_CODE, new FileHasher(FileHasherTest.settings(LogFormat.AUTO), 0, p.toString(), new Configuration()).format());
    List<Row> req = requests(p, LogFormat.AUTO);
    assertEquals(1, req.size());
    Row r = req.get(0);
    assertEquals(rid("req_011CY15QS2LGwAeBxdfa6e1V"), f(r, StagingRows.REQUEST_ID));
    assertEquals("s" + LogFields.hex(KEY.id("55604662-cf2a-4331-851a-ec234028f8ca")), f(r, StagingRows.SESSION_ID));
    assertEquals(0, f(r, StagingRows.TURN));
    assertEquals(Canonical.TRIGGER_USER, f(r, StagingRows.TRIGGER));
    assertEquals(epoch("2026-02-10T21:11:56.846Z"), (double) f(r, StagingRows.TIME_S), 1e-6);
    // Anthropic: input = 3 uncached + 11515 read + 13835 written
    assertEquals(Canonical.CACHE_ANTHROPIC, f(r, StagingRows.PROVIDER_CACHE));
    assertEquals(3 + 11515 + 13835, f(r, StagingRows.PROVIDER_INPUT_TOKENS));
    assertEquals(11515, f(r, StagingRows.PROVIDER_CACHED_TOKENS));
    assertEquals(13835, f(r, StagingRows.PROVIDER_CACHE_WRITE_TOKENS));
    assertTrue((int) f(r, StagingRows.OUTPUT_TOKENS) > 13, "the logged 13 is the stream's first chunk; the content is longer");
    JsonNode c = counters(p, LogFormat.AUTO);
    assertEquals(1, c.at("/synthesised/system_prompt/count").asLong());
    assertEquals(1, c.at("/synthesised/thinking/count").asLong());
  }

  @Test
  void claudeCode_subagentFile_isItsOwnSessionTriggeredBySubagent() {
    List<Row> req = requests(RAW.resolve("claude-code/agent-a881341.jsonl.gz"), LogFormat.CLAUDE_CODE);
    assertEquals(3, req.size()); // 5 assistant lines, 3 response ids
    String session = "s" + LogFields.hex(KEY.id("258c7280-ae70-4798-800f-63464d01a85d/agent/a881341"));
    assertEquals(List.of(session, session, session), req.stream().map(r -> f(r, StagingRows.SESSION_ID)).toList());
    assertEquals(List.of(Canonical.TRIGGER_SUBAGENT, Canonical.TRIGGER_TOOL, Canonical.TRIGGER_TOOL),
        req.stream().map(r -> f(r, StagingRows.TRIGGER)).toList());
    assertEquals(List.of(0, 12118, 22041), req.stream().map(r -> f(r, StagingRows.PROVIDER_CACHED_TOKENS)).toList());
    assertEquals(List.of(3 + 12118, 6 + 12118 + 9923, 6 + 22041 + 20135),
        req.stream().map(r -> f(r, StagingRows.PROVIDER_INPUT_TOKENS)).toList());
    assertEquals(1770845059.366, (double) f(req.get(0), StagingRows.TIME_S), 1e-6);
    assertEquals(1770845068.697, (double) f(req.get(2), StagingRows.TIME_S), 1e-6);
    // each prompt extends the previous one (a session log is one growing conversation)
    long[] b0 = FileHasherTest.blocks(req.get(0));
    long[] b2 = FileHasherTest.blocks(req.get(2));
    int full0 = (int) f(req.get(0), StagingRows.INPUT_TOKENS) / 16 - 1;
    assertArrayEquals(java.util.Arrays.copyOf(b0, full0), java.util.Arrays.copyOf(b2, full0));
  }

  // ------------------------------------------------------------------ Codex CLI

  @Test
  void codex_threeModelCalls_withTheirTokenCounts() throws Exception {
    Path p = RAW.resolve("codex/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl");
    assertEquals(LogFormat.CODEX, new FileHasher(FileHasherTest.settings(LogFormat.AUTO), 0, p.toString(), new Configuration()).format());
    List<Row> req = requests(p, LogFormat.AUTO);
    assertEquals(3, req.size()); // 6 token counts, 3 with a new running total
    String session = "s" + LogFields.hex(KEY.id("019b7f94-51b4-7593-922e-ba12b5b73b52"));
    for (int t = 0; t < 3; t++) {
      assertEquals(session, f(req.get(t), StagingRows.SESSION_ID));
      assertEquals(t, f(req.get(t), StagingRows.TURN));
      assertEquals(Canonical.CACHE_OPENAI, f(req.get(t), StagingRows.PROVIDER_CACHE));
    }
    assertEquals(List.of(7266, 7546, 7662), req.stream().map(r -> f(r, StagingRows.PROVIDER_INPUT_TOKENS)).toList());
    assertEquals(List.of(0, 7296, 7552), req.stream().map(r -> f(r, StagingRows.PROVIDER_CACHED_TOKENS)).toList());
    assertEquals(List.of(115, 60, 125), req.stream().map(r -> f(r, StagingRows.OUTPUT_TOKENS)).toList());
    assertEquals(List.of(Canonical.TRIGGER_USER, Canonical.TRIGGER_TOOL, Canonical.TRIGGER_TOOL),
        req.stream().map(r -> f(r, StagingRows.TRIGGER)).toList());
    // the last input item before each call: the task message, then the two tool outputs
    assertEquals(epoch("2026-01-02T16:39:45.350Z"), (double) f(req.get(0), StagingRows.TIME_S), 1e-6);
    assertEquals(epoch("2026-01-02T16:39:49.777Z"), (double) f(req.get(1), StagingRows.TIME_S), 1e-6);
    assertEquals(epoch("2026-01-02T16:39:54.153Z"), (double) f(req.get(2), StagingRows.TIME_S), 1e-6);
    JsonNode c = counters(p, LogFormat.AUTO);
    assertEquals(1, c.at("/synthesised/system_prompt/count").asLong()); // no base instructions in this file
    assertEquals(3, c.at("/synthesised/reasoning/count").asLong());
  }

  // ------------------------------------------------------------------ OpenTelemetry GenAI spans

  @Test
  void otel_threeConventionsOfOneSpan_giveTheSamePrompt() {
    Row semconv = requests(RAW.resolve("otel-genai/otel_genai_client_span_tool_calls.json"), LogFormat.AUTO).get(0);
    Row deprecated = requests(RAW.resolve("otel-genai/otel_genai_deprecated_client_span_tool_calls.json"), LogFormat.AUTO).get(0);
    Row openInference = requests(RAW.resolve("otel-genai/openinference_client_span_tool_calls.json"), LogFormat.AUTO).get(0);
    List<ChatMessage> expected = List.of(ChatMessage.of(ChatMessage.USER, "Weather in Paris?"),
        new ChatMessage(ChatMessage.ASSISTANT, "Absolutely! Let me check the weather for you.",
            List.of(new ChatMessage.ToolCall("get_weather", "{\"location\":\"Paris\"}")), null),
        ChatMessage.of(ChatMessage.TOOL, "rainy, 57°F"));
    int[] tokens = PromptBuilderTest.wholePromptTokens(ChatMlTemplateTest.render(expected, List.of(), true));
    for (Row r : List.of(semconv, deprecated, openInference)) {
      assertEquals(tokens.length, f(r, StagingRows.INPUT_TOKENS));
      assertArrayEquals(FileHasherTest.blocks(semconv), FileHasherTest.blocks(r));
      assertEquals(52, f(r, StagingRows.OUTPUT_TOKENS));
      assertEquals(1, f(r, StagingRows.TURN)); // one assistant message in the input
      assertEquals(Canonical.TRIGGER_TOOL, f(r, StagingRows.TRIGGER));
      assertEquals(true, f(r, StagingRows.SYNTHETIC)); // no start time in these attribute maps
      assertNull(f(r, StagingRows.PROVIDER_CACHE));
    }
  }

  @Test
  void otel_exportedVercelSpans_takeStartTimeAndTraceAsSession() {
    List<Row> req = requests(RAW.resolve("otel-genai/vercel-ai-generateText-doGenerate.json"), LogFormat.AUTO);
    assertEquals(2, req.size());
    assertEquals(1770131992.242, (double) f(req.get(0), StagingRows.TIME_S), 1e-6);
    assertEquals("s" + LogFields.hex(KEY.id("trace:b3e700af9eab81e19f72f964d62a35af")), f(req.get(0), StagingRows.SESSION_ID));
    assertEquals(rid("39d6e9b3ddec9996"), f(req.get(0), StagingRows.REQUEST_ID));
    assertEquals(20, f(req.get(0), StagingRows.OUTPUT_TOKENS));
    assertEquals(9, f(req.get(1), StagingRows.OUTPUT_TOKENS));
    assertEquals(1, f(req.get(1), StagingRows.TURN)); // system, user, assistant, user
  }

  // ------------------------------------------------------------------ gateway logs (LiteLLM)

  @Test
  void litellmPayload_isAnOpenAiRecordWithItsStartTimeAndUsage() {
    List<Row> req = requests(RAW.resolve("openai-gateway/litellm_standard_logging_payload.json"), LogFormat.AUTO);
    assertEquals(1, req.size());
    Row r = req.get(0);
    assertEquals(rid("chatcmpl-2299b6a2-82a3-465a-b47c-04e685a2227f"), f(r, StagingRows.REQUEST_ID));
    assertEquals(epoch("2025-01-24T09:20:46.847371Z"), (double) f(r, StagingRows.TIME_S), 1e-6);
    assertEquals(20, f(r, StagingRows.OUTPUT_TOKENS)); // response.usage.completion_tokens
    assertNull(f(r, StagingRows.PROVIDER_CACHE)); // prompt_tokens_details is null: no accounting
    int[] tokens = PromptBuilderTest.wholePromptTokens(
        ChatMlTemplateTest.render(List.of(ChatMessage.of(ChatMessage.USER, "Hello, world!")), List.of(), true));
    assertEquals(tokens.length, f(r, StagingRows.INPUT_TOKENS));
  }

  // ------------------------------------------------------------------ provider usage conventions

  @Test
  void providerUsage_conventionsByTheirFields(@TempDir Path dir) throws Exception {
    List<String> lines = new ArrayList<>();
    String base = "{\"id\":\"%s\",\"timestamp\":1767225600,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"usage\":%s}";
    lines.add(String.format(base, "ds", "{\"prompt_tokens\":1714,\"completion_tokens\":84,\"prompt_tokens_details\":{\"cached_tokens\":320},"
        + "\"prompt_cache_hit_tokens\":320,\"prompt_cache_miss_tokens\":1394}"));
    lines.add(String.format(base, "an-native", "{\"input_tokens\":3,\"cache_read_input_tokens\":11515,\"cache_creation_input_tokens\":13835,\"output_tokens\":9}"));
    lines.add(String.format(base, "an-litellm", "{\"prompt_tokens\":25353,\"completion_tokens\":9,\"prompt_tokens_details\":{\"cached_tokens\":11515},"
        + "\"cache_read_input_tokens\":11515,\"cache_creation_input_tokens\":13835}"));
    lines.add(String.format(base, "oa", "{\"prompt_tokens\":1300,\"completion_tokens\":5,\"prompt_tokens_details\":{\"cached_tokens\":1152}}"));
    lines.add(String.format(base, "oa-resp", "{\"input_tokens\":1300,\"output_tokens\":5,\"input_tokens_details\":{\"cached_tokens\":1280}}"));
    lines.add(String.format(base, "none", "{\"prompt_tokens\":10,\"completion_tokens\":5}"));
    lines.add(String.format(base, "bad", "{\"prompt_tokens\":10,\"completion_tokens\":5,\"prompt_tokens_details\":{\"cached_tokens\":64}}"));
    Path p = dir.resolve("usage.jsonl");
    Files.write(p, lines);
    var byId = FileHasherTest.byId(FileHasherTest.run(p, LogFormat.OPENAI));
    record Want(String kind, Integer in, Integer cached, Integer written) {}
    var want = new java.util.LinkedHashMap<String, Want>();
    want.put("ds", new Want("deepseek", 1714, 320, null));
    want.put("an-native", new Want("anthropic", 3 + 11515 + 13835, 11515, 13835));
    want.put("an-litellm", new Want("anthropic", 25353, 11515, 13835));
    want.put("oa", new Want("openai", 1300, 1152, null));
    want.put("oa-resp", new Want("openai", 1300, 1280, null));
    want.put("none", new Want(null, null, null, null));
    want.put("bad", new Want(null, null, null, null)); // cached above input: no measurement
    for (var e : want.entrySet()) {
      Row r = byId.get(rid(e.getKey()));
      assertEquals(e.getValue().kind(), f(r, StagingRows.PROVIDER_CACHE), e.getKey());
      assertEquals(e.getValue().in(), f(r, StagingRows.PROVIDER_INPUT_TOKENS), e.getKey());
      assertEquals(e.getValue().cached(), f(r, StagingRows.PROVIDER_CACHED_TOKENS), e.getKey());
      assertEquals(e.getValue().written(), f(r, StagingRows.PROVIDER_CACHE_WRITE_TOKENS), e.getKey());
    }
    assertEquals(1, counters(p, LogFormat.OPENAI).get("provider_usage_inconsistent").asLong());
  }
}
