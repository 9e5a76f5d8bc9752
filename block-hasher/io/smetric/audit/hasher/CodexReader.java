package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * OpenAI Codex CLI session rollouts ({@code ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl}): JSON
 * lines {@code {timestamp, type, payload}}. {@code session_meta} names the session and may hold the
 * base instructions (the system prompt); {@code response_item} lines are the Responses API items
 * in order: input items (user / developer messages, tool outputs) and the model's output items
 * (reasoning, assistant messages, function and custom tool calls). Consecutive output items are one
 * model response, hence one request whose prompt is every item before them; the
 * {@code event_msg} {@code token_count} that follows a response carries its usage
 * ({@code last_token_usage}: input, cached input, output tokens). Codex repeats a token_count
 * unchanged after tool outputs; a count whose running total did not change is that repeat.
 *
 * <p>What the log lacks: reasoning items are stored encrypted and enter the next prompts with a
 * size we cannot see (rendered empty); the tool schemas are not stored; when {@code session_meta}
 * has no instructions the system prompt is missing too. Each is counted per file.
 */
final class CodexReader extends RecordLogReader {
  static final Set<String> LINE_TYPES = Set.of("session_meta", "response_item", "event_msg", "turn_context", "compacted");

  private Conversation conv;
  private String sessionRaw;
  private Double lastInputTime;
  private long lastTotal = -1;
  // the response being assembled
  private boolean open;
  private Double openTime;
  private StringBuilder text;
  private List<ChatMessage.ToolCall> calls;

  CodexReader(FileHasher h) {
    super(h);
  }

  @Override
  void record(JsonNode r, long line) {
    String type = r.path("type").asText("");
    JsonNode p = r.path("payload");
    Double time = r.has("timestamp") ? h.seconds(r.get("timestamp"), line, "timestamp") : null;
    switch (type) {
      case "session_meta" -> sessionMeta(p);
      case "response_item" -> item(p, time, line);
      case "event_msg" -> {
        if ("token_count".equals(p.path("type").asText())) tokenCount(p.path("info"));
      }
      case "compacted" -> {
        close(null);
        conversation().message(ChatMessage.of(ChatMessage.USER, p.path("message").asText("")));
        h.note("compaction", "compaction: the history is replaced by the compacted summary");
      }
      default -> {
        // turn_context and other events are not part of any prompt
      }
    }
  }

  private Conversation conversation() {
    if (conv == null) {
      conv = new Conversation(h, List.of(), false, sessionRaw, 0, null);
      h.note("tool_schemas", "Codex does not log its tool schemas: prompts lack them");
    }
    return conv;
  }

  private void sessionMeta(JsonNode p) {
    close(null);
    sessionRaw = LogFields.text(p, "id");
    conv = null;
    // base_instructions is the system prompt Codex sends (newer versions log it); the older
    // "instructions" field holds the user instructions (AGENTS.md, skills), which the log also
    // has as the first user message: not a system prompt
    String instructions = LogFields.text(p, "base_instructions");
    JsonNode bi = p.get("base_instructions");
    if (instructions == null && bi != null && bi.isObject()) instructions = LogFields.text(bi, "text");
    if (instructions != null && !instructions.isEmpty()) {
      conversation().message(ChatMessage.of(ChatMessage.SYSTEM, instructions));
    } else {
      h.note("system_prompt", "session_meta without base instructions: prompts lack the system prompt");
    }
  }

  private void item(JsonNode p, Double time, long line) {
    String t = p.path("type").asText("");
    switch (t) {
      case "message" -> {
        String role = ChatMessage.normaliseRole(p.path("role").asText("user"));
        String content = Messages.content(p.get("content"), h.file(), line, "payload.content");
        if (ChatMessage.ASSISTANT.equals(role)) {
          openResponse(time);
          if (text.length() > 0 && !content.isEmpty()) text.append('\n');
          text.append(content);
        } else {
          input(ChatMessage.of(role, content), time);
        }
      }
      case "reasoning" -> {
        openResponse(time);
        h.note("reasoning", "reasoning items are encrypted in the log: rendered empty in later prompts");
      }
      case "function_call", "custom_tool_call", "local_shell_call", "web_search_call" -> {
        openResponse(time);
        String name = LogFields.text(p, "name");
        if (name == null) name = t;
        JsonNode args = LogFields.first(p, "arguments", "input", "action");
        calls.add(new ChatMessage.ToolCall(name, args == null ? "{}" : args.isTextual() ? args.asText() : Messages.compact(args)));
      }
      case "function_call_output", "custom_tool_call_output", "local_shell_call_output" -> {
        JsonNode out = p.get("output");
        String o = out == null || out.isNull() ? "" : out.isTextual() ? out.asText()
            : out.isObject() && out.has("content") ? Messages.content(out.get("content"), h.file(), line, "payload.output.content")
            : Messages.compact(out);
        input(ChatMessage.of(ChatMessage.TOOL, o), time);
      }
      default -> {
        // ghost snapshots and other bookkeeping items are not sent to the model
      }
    }
  }

  private void openResponse(Double time) {
    if (open) return;
    open = true;
    openTime = time;
    text = new StringBuilder();
    calls = new ArrayList<>();
  }

  private void input(ChatMessage m, Double time) {
    close(null);
    conversation().message(m);
    if (time != null) lastInputTime = time;
  }

  private void tokenCount(JsonNode info) {
    if (!info.isObject()) return;
    long total = info.path("total_token_usage").path("total_tokens").asLong(-1);
    if (total >= 0 && total == lastTotal) return; // the unchanged repeat after tool outputs
    lastTotal = total;
    JsonNode last = info.path("last_token_usage");
    ProviderCache cache = ProviderUsage.parse(last, h::providerUsageInconsistent);
    JsonNode ot = last.get("output_tokens");
    Integer out = ot != null && ot.canConvertToInt() ? ot.asInt() : null;
    if (open) close(new Object[] {cache, out});
    else h.note("usage_without_items", "token count with no logged response items: the request is not in the trace");
  }

  /** Ends the response being assembled: one request. {@code usage} = {cache, output tokens} or null. */
  private void close(Object[] usage) {
    if (!open) return;
    open = false;
    ChatMessage m = new ChatMessage(ChatMessage.ASSISTANT, text.toString(), calls, null);
    Double arrival = lastInputTime != null ? lastInputTime : openTime;
    if (lastInputTime == null) h.note("arrival_response", "response with no input item before it: arrival = its first output item's time");
    if (usage == null) h.note("usage", "response without a token count: no provider accounting; output tokens counted with the hasher's tokenizer");
    ProviderCache cache = usage == null ? null : (ProviderCache) usage[0];
    Integer out = usage == null ? null : (Integer) usage[1];
    conversation().message(m, new RequestMeta(arrival, cache, out, null));
    lastInputTime = null;
  }

  @Override
  void end() {
    close(null);
    if (h.records() > 0 && sessionRaw == null) h.note("session", "no session_meta: the session id is the file's");
  }
}
