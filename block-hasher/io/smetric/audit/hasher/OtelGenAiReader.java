package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * OpenTelemetry spans of LLM calls, one request per span that carries its input messages. Spans
 * come as OTLP JSON ({@code resourceSpans[].scopeSpans[].spans[]}, attributes as {key, value}
 * pairs), as span objects one per record (an SDK's JSON export: {@code name},
 * {@code context}/{@code spanContext}, an attribute map, start time), or as a bare attribute map.
 * The input messages are read from whichever convention the exporter used, in this order:
 * <ul>
 *   <li>OpenTelemetry GenAI semantic conventions: {@code gen_ai.input.messages} (JSON text of
 *       {role, parts: [{type: text|tool_call|tool_call_response, ...}]}), with
 *       {@code gen_ai.system_instructions} and {@code gen_ai.tool.definitions}; the deprecated
 *       {@code gen_ai.prompt} JSON text;
 *   <li>OpenLLMetry: {@code gen_ai.prompt.<i>.role / .content / .tool_calls.<j>.name / .arguments};
 *   <li>OpenInference: {@code llm.input_messages.<i>.message.role / .content / .contents.<j>...
 *       / .tool_calls.<j>.tool_call.function.name / .arguments} (flattened, or as a nested list);
 *   <li>Vercel AI SDK: {@code ai.prompt.messages} (JSON text).
 * </ul>
 * Usage: {@code gen_ai.usage.input_tokens} (or {@code prompt_tokens}), {@code llm.token_count.prompt},
 * {@code ai.usage.promptTokens}; output tokens likewise; cache reads from
 * {@code gen_ai.usage.cache_read_input_tokens}, {@code gen_ai.usage.cache_read.input_tokens},
 * {@code llm.token_count.prompt_details.cache_read}; writes from the matching creation/write
 * attributes. The accounting convention follows the provider attribute ({@code gen_ai.provider.name},
 * {@code gen_ai.system}, {@code llm.provider}, {@code llm.system}): anthropic, deepseek, else openai.
 * Session: {@code gen_ai.conversation.id} or {@code session.id}, else the trace id (one agent run
 * per trace, counted as synthesised). Spans without input messages (tool, chain, embedding spans)
 * are counted and ignored.
 */
final class OtelGenAiReader extends RecordLogReader {
  OtelGenAiReader(FileHasher h) {
    super(h);
  }

  /** Detection: a span-like record whose attributes (map or OTLP key list) name gen_ai.* or llm.* keys. */
  static boolean isGenAiSpan(JsonNode r) {
    JsonNode a = r.has("attributes") ? r.get("attributes") : r;
    if (a.isObject()) {
      for (Iterator<String> it = a.fieldNames(); it.hasNext();) if (genAiKey(it.next())) return true;
    } else if (a.isArray()) {
      for (JsonNode k : a) if (k.isTextual() && genAiKey(k.asText())) return true;
    }
    return false;
  }

  private static boolean genAiKey(String k) {
    return k.startsWith("gen_ai.") || k.startsWith("llm.input_messages") || k.startsWith("ai.prompt");
  }

  @Override
  void record(JsonNode r, long line) {
    JsonNode batches = r.has("resourceSpans") ? r.get("resourceSpans") : r.get("resource_spans");
    if (batches != null) {
      for (JsonNode rs : batches) {
        JsonNode scopes = rs.has("scopeSpans") ? rs.get("scopeSpans") : rs.has("scope_spans") ? rs.get("scope_spans") : rs.path("instrumentationLibrarySpans");
        for (JsonNode ss : scopes) for (JsonNode span : ss.path("spans")) span(span, line);
      }
      return;
    }
    if (r.isArray()) {
      for (JsonNode span : r) span(span, line);
      return;
    }
    span(r, line);
  }

  private void span(JsonNode span, long line) {
    ObjectNode a = attributes(span);
    List<ChatMessage> msgs = inputMessages(a, line);
    if (msgs == null) {
      h.note("not_llm_spans", "spans without input messages (tools, chains, embeddings): ignored");
      return;
    }
    if (msgs.isEmpty()) throw new BadInputException(h.file(), line, "gen_ai.input.messages", "empty list");
    List<String> tools = tools(a, line);
    PromptBuilder b = h.newPrompt();
    int assistants = 0;
    for (int i = 0; i < msgs.size(); i++) {
      b.append(msgs.get(i), i == 0 ? tools : List.of());
      if (msgs.get(i).isAssistant()) assistants++;
    }
    Integer out = intAttr(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion",
        "ai.usage.completionTokens");
    int output = out != null ? out : 0;
    if (out == null) h.outputTokensMissing();
    String traceId = LogFields.text(context(span), "trace_id", "traceId");
    String spanId = LogFields.text(context(span), "span_id", "spanId");
    String session = text(a, "gen_ai.conversation.id", "session.id", "traceloop.association.properties.session_id");
    if (session == null && traceId != null) {
      session = "trace:" + traceId;
      h.note("session_from_trace", "no conversation or session id: the trace id is the session (one agent run per trace)");
    }
    Double arrival = startTime(span, line);
    if (arrival == null) h.note("arrival", "span without start time: arrival synthesised (the i-th such span at i * session gap)");
    ProviderCache cache = cache(a);
    String trigger = LogFields.roleTrigger(msgs.get(msgs.size() - 1).role());
    String rid = spanId != null ? "r" + LogFields.hex(h.key().id(spanId)) : "f" + h.fileIndex() + "-l" + line + "-s" + (spans++);
    h.emitRecord(rid, session == null ? null : "s" + LogFields.hex(h.key().id(session)), null, assistants, trigger,
        new RequestMeta(arrival, cache, output, null, Recording.span(a, arrival, endTime(span, line), statusCode(span), h)), b, output);
  }

  private int spans;

  private static JsonNode context(JsonNode span) {
    if (span.has("context")) return span.get("context");
    if (span.has("spanContext")) return span.get("spanContext");
    return span;
  }

  /** Attributes as a flat map, from an attribute map, an OTLP {key, value} list, or a bare map. */
  private ObjectNode attributes(JsonNode span) {
    JsonNode a = span.get("attributes");
    if (a == null) return span.isObject() ? (ObjectNode) span : Messages.MAPPER.createObjectNode();
    if (a.isObject()) return (ObjectNode) a;
    ObjectNode o = Messages.MAPPER.createObjectNode();
    if (a.isArray()) for (JsonNode kv : a) o.set(kv.path("key").asText(), anyValue(kv.path("value")));
    return o;
  }

  /** An OTLP AnyValue as plain JSON. */
  private static JsonNode anyValue(JsonNode v) {
    if (v.has("stringValue")) return v.get("stringValue");
    if (v.has("intValue")) return Messages.MAPPER.getNodeFactory().numberNode(v.get("intValue").asLong());
    if (v.has("doubleValue")) return v.get("doubleValue");
    if (v.has("boolValue")) return v.get("boolValue");
    if (v.has("arrayValue")) {
      ArrayNode arr = Messages.MAPPER.createArrayNode();
      for (JsonNode x : v.path("arrayValue").path("values")) arr.add(anyValue(x));
      return arr;
    }
    return v;
  }

  /** The span's end (epoch seconds), read like its start; null when it has none. */
  private Double endTime(JsonNode span, long line) {
    JsonNode t = LogFields.first(span, "endTimeUnixNano", "end_time_unix_nano");
    if (t != null) return t.asDouble() / 1e9;
    t = LogFields.first(span, "end_time", "endTime");
    if (t == null) return null;
    return timeOf(t, line, "end_time");
  }

  /** OTLP {@code status.code} (2 or STATUS_CODE_ERROR = error) or an SDK export's {@code status.status_code}; null when absent. */
  private static String statusCode(JsonNode span) {
    JsonNode st = span.path("status");
    String c = LogFields.text(st, "code", "status_code", "statusCode");
    return c == null || c.equals("0") || c.equalsIgnoreCase("STATUS_CODE_UNSET") || c.equalsIgnoreCase("UNSET") ? null : c;
  }

  private Double timeOf(JsonNode t, long line, String field) {
    if (t.isArray() && t.size() == 2) return t.get(0).asDouble() + t.get(1).asDouble() / 1e9; // [seconds, nanos]
    if (t.isNumber()) {
      double x = t.asDouble();
      return x > 1e17 ? x / 1e9 : x > 1e14 ? x / 1e6 : x > 1e11 ? x / 1e3 : x; // ns, us, ms or s since the epoch
    }
    return h.seconds(t, line, field);
  }

  private Double startTime(JsonNode span, long line) {
    JsonNode t = LogFields.first(span, "startTimeUnixNano", "start_time_unix_nano");
    if (t != null) return t.asDouble() / 1e9;
    t = LogFields.first(span, "start_time", "startTime", "timestamp");
    if (t == null) return null;
    if (t.isArray() && t.size() == 2) return t.get(0).asDouble() + t.get(1).asDouble() / 1e9; // [seconds, nanos]
    if (t.isNumber()) {
      double x = t.asDouble();
      return x > 1e17 ? x / 1e9 : x > 1e14 ? x / 1e6 : x > 1e11 ? x / 1e3 : x; // ns, us, ms or s since the epoch
    }
    return h.seconds(t, line, "start_time");
  }

  // ---------------------------------------------------------------- messages

  /** The input messages, or null when the span has none (not an LLM call). */
  private List<ChatMessage> inputMessages(ObjectNode a, long line) {
    List<ChatMessage> out = new ArrayList<>();
    String sys = text(a, "gen_ai.system_instructions");
    if (sys != null) {
      JsonNode parsed = Messages.tryParse(sys);
      out.add(ChatMessage.of(ChatMessage.SYSTEM, parsed != null ? partsText(parsed, line, "gen_ai.system_instructions") : sys));
    }
    String json = text(a, "gen_ai.input.messages", "gen_ai.prompt", "ai.prompt.messages");
    if (json != null) {
      JsonNode list = Messages.tryParse(json);
      if (list == null || !list.isArray()) throw new BadInputException(h.file(), line, "gen_ai.input.messages", "not a JSON list of messages");
      for (int i = 0; i < list.size(); i++) addStructured(out, list.get(i), line, "gen_ai.input.messages[" + i + "]");
      return out;
    }
    JsonNode nested = a.get("llm.input_messages");
    if (nested != null && nested.isArray()) {
      for (int i = 0; i < nested.size(); i++) out.add(openInference(nested.get(i), line, "llm.input_messages[" + i + "]"));
      return out;
    }
    Map<Integer, ObjectNode> flat = indexed(a, "gen_ai.prompt.");
    if (flat.isEmpty()) flat = indexed(a, "llm.input_messages.");
    if (flat.isEmpty()) return out.isEmpty() ? null : out;
    for (Map.Entry<Integer, ObjectNode> e : flat.entrySet()) {
      ObjectNode m = e.getValue();
      out.add(m.has("message") ? openInference(m, line, "llm.input_messages." + e.getKey()) : openLlmetry(m, line, "gen_ai.prompt." + e.getKey()));
    }
    return out;
  }

  /** {role, parts: [...]} (semantic conventions) or {role, content} (Vercel AI SDK, deprecated gen_ai.prompt). */
  private void addStructured(List<ChatMessage> out, JsonNode m, long line, String where) {
    String role = ChatMessage.normaliseRole(m.path("role").asText("user"));
    JsonNode parts = m.has("parts") ? m.get("parts") : m.get("content");
    if (parts == null || parts.isTextual() || parts.isNull()) {
      out.add(ChatMessage.of(role, parts == null || parts.isNull() ? "" : parts.asText()));
      return;
    }
    StringBuilder text = new StringBuilder();
    List<ChatMessage.ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      JsonNode p = parts.get(i);
      switch (p.path("type").asText("text")) {
        case "text", "reasoning" -> append(text, p.has("content") ? p.path("content").asText("") : p.path("text").asText(""));
        case "tool_call", "tool-call" -> calls.add(new ChatMessage.ToolCall(p.path("name").asText(p.path("toolName").asText("")),
            argText(LogFields.first(p, "arguments", "args", "input"))));
        case "tool_call_response", "tool-result" -> {
          JsonNode r = LogFields.first(p, "response", "result", "output");
          out.add(ChatMessage.of(ChatMessage.TOOL, r == null ? "" : r.isTextual() ? r.asText() : Messages.compact(r)));
        }
        default -> append(text, "<" + p.path("type").asText("part") + ">");
      }
    }
    if (text.length() > 0 || !calls.isEmpty() || !ChatMessage.TOOL.equals(role)) {
      if (!(ChatMessage.TOOL.equals(role) && text.length() == 0)) out.add(new ChatMessage(role, text.toString(), calls, null));
    }
  }

  private static String argText(JsonNode a) {
    if (a == null || a.isNull()) return "{}";
    return a.isTextual() ? a.asText() : Messages.compact(a);
  }

  private static String partsText(JsonNode parts, long line, String where) {
    if (!parts.isArray()) return parts.asText();
    StringBuilder b = new StringBuilder();
    for (JsonNode p : parts) append(b, p.has("content") ? p.path("content").asText("") : p.path("text").asText(""));
    return b.toString();
  }

  /** An OpenInference message: {message: {role, content | contents[], tool_calls[], tool_call_id}}. */
  private ChatMessage openInference(JsonNode m, long line, String where) {
    JsonNode msg = m.has("message") ? m.get("message") : m;
    String role = ChatMessage.normaliseRole(msg.path("role").asText("user"));
    StringBuilder text = new StringBuilder();
    if (msg.has("content")) text.append(msg.path("content").asText(""));
    for (JsonNode c : listOrIndexed(msg.get("contents"))) {
      JsonNode mc = c.has("message_content") ? c.get("message_content") : c;
      append(text, mc.has("text") ? mc.path("text").asText("") : "<" + mc.path("type").asText("part") + ">");
    }
    List<ChatMessage.ToolCall> calls = new ArrayList<>();
    for (JsonNode c : listOrIndexed(msg.get("tool_calls"))) {
      JsonNode fn = c.path("tool_call").path("function");
      calls.add(new ChatMessage.ToolCall(fn.path("name").asText(""), argText(fn.get("arguments"))));
    }
    return new ChatMessage(role, text.toString(), calls, null);
  }

  /** An OpenLLMetry message: {role, content, tool_calls: {j: {name, arguments}}}. */
  private ChatMessage openLlmetry(JsonNode m, long line, String where) {
    String role = ChatMessage.normaliseRole(m.path("role").asText("user"));
    List<ChatMessage.ToolCall> calls = new ArrayList<>();
    for (JsonNode c : listOrIndexed(m.get("tool_calls"))) calls.add(new ChatMessage.ToolCall(c.path("name").asText(""), argText(c.get("arguments"))));
    JsonNode content = m.get("content");
    String text = content == null ? "" : content.isTextual() ? content.asText() : Messages.content(content, h.file(), line, where + ".content");
    JsonNode parsed = content != null && content.isTextual() ? Messages.tryParse(text) : null;
    if (parsed != null && parsed.isArray() && parsed.size() > 0 && parsed.get(0).has("type")) {
      text = Messages.content(parsed, h.file(), line, where + ".content"); // content parts stored as JSON text
    }
    return new ChatMessage(role, text, calls, null);
  }

  private static List<JsonNode> listOrIndexed(JsonNode n) {
    List<JsonNode> out = new ArrayList<>();
    if (n == null) return out;
    if (n.isArray()) {
      n.forEach(out::add);
    } else if (n.isObject()) {
      TreeMap<Integer, JsonNode> byIndex = new TreeMap<>();
      n.fields().forEachRemaining(e -> {
        try {
          byIndex.put(Integer.parseInt(e.getKey()), e.getValue());
        } catch (NumberFormatException ignored) {
          // not an index
        }
      });
      out.addAll(byIndex.values());
    }
    return out;
  }

  /**
   * Flattened attributes {@code prefix<i>.<path>} as objects by index, with the dotted path
   * rebuilt into nested objects ({@code gen_ai.prompt.0.tool_calls.1.name} -> {0: {tool_calls: {1: {name}}}}).
   */
  private static Map<Integer, ObjectNode> indexed(ObjectNode a, String prefix) {
    TreeMap<Integer, ObjectNode> out = new TreeMap<>();
    a.fields().forEachRemaining(e -> {
      String k = e.getKey();
      if (!k.startsWith(prefix)) return;
      String rest = k.substring(prefix.length());
      int dot = rest.indexOf('.');
      if (dot <= 0) return;
      int i;
      try {
        i = Integer.parseInt(rest.substring(0, dot));
      } catch (NumberFormatException ex) {
        return;
      }
      ObjectNode node = out.computeIfAbsent(i, x -> Messages.MAPPER.createObjectNode());
      String[] path = rest.substring(dot + 1).split("\\.");
      for (int p = 0; p < path.length - 1; p++) {
        JsonNode next = node.get(path[p]);
        node = next instanceof ObjectNode o ? o : node.putObject(path[p]);
      }
      node.set(path[path.length - 1], e.getValue());
    });
    return out;
  }

  private List<String> tools(ObjectNode a, long line) {
    String defs = text(a, "gen_ai.tool.definitions");
    if (defs != null) return Messages.tools(Messages.MAPPER.getNodeFactory().textNode(defs), h.file(), line, "gen_ai.tool.definitions");
    List<String> out = new ArrayList<>();
    for (ObjectNode t : indexed(a, "llm.tools.").values()) {
      JsonNode schema = t.path("tool").get("json_schema");
      if (schema != null) out.add(schema.isTextual() ? schema.asText() : Messages.compact(schema));
    }
    for (ObjectNode t : indexed(a, "llm.request.functions.").values()) out.add(Messages.compact(t));
    return out;
  }

  // ---------------------------------------------------------------- usage

  private ProviderCache cache(ObjectNode a) {
    Integer read = intAttr(a, "gen_ai.usage.cache_read_input_tokens", "gen_ai.usage.cache_read.input_tokens",
        "llm.token_count.prompt_details.cache_read", "ai.usage.cachedInputTokens");
    Integer write = intAttr(a, "gen_ai.usage.cache_creation_input_tokens", "gen_ai.usage.cache_creation.input_tokens",
        "llm.token_count.prompt_details.cache_write");
    if (read == null && write == null) return null;
    Integer in = intAttr(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt", "ai.usage.promptTokens");
    if (in == null) {
      h.providerUsageInconsistent();
      return null;
    }
    String provider = text(a, "gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system");
    String p = provider == null ? "" : provider.toLowerCase(java.util.Locale.ROOT);
    String kind = p.contains("anthropic") ? Canonical.CACHE_ANTHROPIC : p.contains("deepseek") ? Canonical.CACHE_DEEPSEEK : Canonical.CACHE_OPENAI;
    int r = read == null ? 0 : read;
    int w = write == null ? 0 : write;
    long total = in;
    // Anthropic's own input_tokens excludes cached and written tokens; instrumentations that copy it
    // unchanged leave a total below the cache counts: add them back
    if (Canonical.CACHE_ANTHROPIC.equals(kind) && total < (long) r + w) total = (long) in + r + w;
    if (r > total || (long) r + w > total || total > Integer.MAX_VALUE) {
      h.providerUsageInconsistent();
      return null;
    }
    return new ProviderCache(kind, (int) total, r, Canonical.CACHE_ANTHROPIC.equals(kind) ? w : null);
  }

  private static Integer intAttr(ObjectNode a, String... keys) {
    for (String k : keys) {
      JsonNode v = a.get(k);
      if (v != null && (v.isNumber() || v.isTextual()) && !v.asText().isEmpty()) {
        try {
          long x = v.isNumber() ? v.asLong() : Long.parseLong(v.asText().strip());
          if (x >= 0 && x <= Integer.MAX_VALUE) return (int) x;
        } catch (NumberFormatException ignored) {
          // not a count
        }
      }
    }
    return null;
  }

  private static String text(ObjectNode a, String... keys) {
    return LogFields.text(a, keys);
  }

  private static void append(StringBuilder b, String s) {
    if (s.isEmpty()) return;
    if (b.length() > 0) b.append('\n');
    b.append(s);
  }
}
