package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Claude Code session logs ({@code ~/.claude/projects/<project>/<session>.jsonl}, sub-agents in
 * {@code <session>/subagents/agent-<id>.jsonl}): one JSON line per event. {@code user} lines carry
 * the user's text or tool results, {@code assistant} lines one content block each of an API
 * response (text, thinking, tool_use), all lines of one response sharing {@code message.id} and the
 * same {@code message.usage}. Every response is one request whose prompt is the session's
 * messages before it, in file order; its arrival is the time of the last user line before it (the
 * tool result or prompt that made the agent call the model), else its own first line.
 *
 * <p>What the log lacks: Claude Code's system prompt and tool schemas are not written (prompts
 * here start at the first user message, so they are shorter than what the provider counted, by the
 * same amount in every request of a session); earlier thinking blocks are left out of later prompts
 * (the API drops them). Lines of other types ({@code summary}, {@code progress}, snapshots) are
 * read and ignored. A {@code compact_boundary} system line starts a new conversation in the same
 * session: after compaction the history is the summary, not the old messages. A sidechain
 * ({@code isSidechain}, a sub-agent) is its own session, keyed by session and agent id, whose first
 * request is triggered by {@code subagent}.
 */
final class ClaudeCodeReader extends RecordLogReader {
  static final Set<String> MESSAGE_TYPES = Set.of("user", "assistant", "system");

  /** Conversations by session key (session id, plus agent id for a sidechain). */
  private final Map<String, Session> sessions = new HashMap<>();

  private final class Session {
    final String key;
    final boolean sidechain;
    Conversation conv;
    Double lastInputTime;
    // the response being assembled from its lines
    String pendingId;
    String pendingRequestId;
    Double pendingTime;
    StringBuilder text;
    List<ChatMessage.ToolCall> calls;
    ProviderCache cache;
    Integer outputTokens;

    Session(String key, boolean sidechain) {
      this.key = key;
      this.sidechain = sidechain;
      this.conv = newConversation(0);
    }

    Conversation newConversation(int turn) {
      return new Conversation(h, List.of(), false, key, turn, sidechain ? Canonical.TRIGGER_SUBAGENT : null);
    }

    void flush() {
      if (pendingId == null) return;
      ChatMessage m = new ChatMessage(ChatMessage.ASSISTANT, text.toString(), calls, null);
      Double arrival = lastInputTime != null ? lastInputTime : pendingTime;
      if (lastInputTime == null) h.note("arrival_response", "response with no user line before it since the last response: arrival = its first line's time");
      conv.message(m, new RequestMeta(arrival, cache, outputTokens(m), pendingRequestId));
      lastInputTime = null;
      pendingId = null;
    }

    private Integer outputTokens(ChatMessage m) {
      // Claude Code stores the usage of the stream's first event on every line of a response:
      // output_tokens is then the first chunk's count. Take the larger of it and the content's count.
      int ours = conv.b.completionTokens(m);
      return outputTokens == null ? ours : Math.max(ours, outputTokens);
    }
  }

  ClaudeCodeReader(FileHasher h) {
    super(h);
  }

  @Override
  void record(JsonNode r, long line) {
    String type = r.path("type").asText("");
    if (!MESSAGE_TYPES.contains(type)) return; // summaries, progress, snapshots: not part of any prompt
    String sessionId = LogFields.text(r, "sessionId");
    if (sessionId == null) throw new BadInputException(h.file(), line, "sessionId", "missing");
    boolean sidechain = r.path("isSidechain").asBoolean(false);
    String agent = LogFields.text(r, "agentId");
    String key = sidechain ? sessionId + "/agent/" + (agent == null ? "?" : agent) : sessionId;
    Session s = sessions.computeIfAbsent(key, k -> new Session(k, sidechain));
    Double time = r.has("timestamp") ? h.seconds(r.get("timestamp"), line, "timestamp") : null;
    if (time == null) h.note("arrival", "line without timestamp: its request's arrival is synthesised");
    if (type.equals("system")) {
      if ("compact_boundary".equals(r.path("subtype").asText())) {
        s.flush();
        s.conv = s.newConversation(s.conv.turn());
        h.note("compaction", "compaction: the conversation restarts from the summary (same session)");
      }
      return;
    }
    JsonNode msg = r.path("message");
    if (!msg.isObject()) throw new BadInputException(h.file(), line, "message", "missing or not an object");
    if (type.equals("assistant")) {
      assistantLine(s, msg, r, time, line);
    } else {
      s.flush();
      userLine(s, msg, line);
      if (time != null) s.lastInputTime = time;
    }
  }

  private void assistantLine(Session s, JsonNode msg, JsonNode r, Double time, long line) {
    String id = LogFields.text(msg, "id");
    if (id == null) id = LogFields.text(r, "uuid");
    if (s.pendingId != null && !s.pendingId.equals(id)) s.flush();
    if (s.pendingId == null) {
      s.pendingId = id;
      s.pendingRequestId = LogFields.text(r, "requestId");
      if (s.pendingRequestId == null) s.pendingRequestId = id;
      s.pendingTime = time;
      s.text = new StringBuilder();
      s.calls = new ArrayList<>();
      s.cache = null;
      s.outputTokens = null;
    }
    JsonNode usage = msg.path("usage");
    ProviderCache c = ProviderUsage.parse(usage, h::providerUsageInconsistent);
    if (c != null) s.cache = c;
    JsonNode ot = usage.get("output_tokens");
    if (ot != null && ot.canConvertToInt()) s.outputTokens = Math.max(s.outputTokens == null ? 0 : s.outputTokens, ot.asInt());
    JsonNode content = msg.get("content");
    if (content != null && content.isTextual()) {
      append(s.text, content.asText());
      return;
    }
    if (content == null || !content.isArray()) return;
    for (int i = 0; i < content.size(); i++) {
      JsonNode b = content.get(i);
      switch (b.path("type").asText("")) {
        case "text" -> append(s.text, b.path("text").asText(""));
        case "tool_use" -> s.calls.add(new ChatMessage.ToolCall(b.path("name").asText(""),
            b.has("input") ? Messages.compact(b.get("input")) : "{}"));
        case "thinking", "redacted_thinking" -> h.note("thinking", "thinking blocks: counted as output, left out of later prompts (the API drops them)");
        default -> throw new BadInputException(h.file(), line, "message.content[" + i + "].type", "unknown block type");
      }
    }
  }

  private void userLine(Session s, JsonNode msg, long line) {
    JsonNode content = msg.get("content");
    if (content == null || content.isNull()) return;
    if (content.isTextual()) {
      s.conv.message(ChatMessage.of(ChatMessage.USER, content.asText()));
      return;
    }
    if (!content.isArray()) throw new BadInputException(h.file(), line, "message.content", "neither a string nor a list of blocks");
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < content.size(); i++) {
      JsonNode b = content.get(i);
      String type = b.path("type").asText("");
      if (type.equals("tool_result")) {
        String result = Messages.content(b.get("content"), h.file(), line, "message.content[" + i + "].content");
        s.conv.message(ChatMessage.of(ChatMessage.TOOL, result));
      } else if (type.equals("text")) {
        append(text, b.path("text").asText(""));
      } else if (type.startsWith("image") || type.equals("document")) {
        append(text, type.startsWith("image") ? "<image>" : "<file>");
      } else {
        throw new BadInputException(h.file(), line, "message.content[" + i + "].type", "unknown block type");
      }
    }
    if (text.length() > 0) s.conv.message(ChatMessage.of(ChatMessage.USER, text.toString()));
  }

  private static void append(StringBuilder b, String s) {
    if (s.isEmpty()) return;
    if (b.length() > 0) b.append('\n');
    b.append(s);
  }

  @Override
  void end() {
    for (Session s : sessions.values()) {
      s.flush();
      h.note("system_prompt", "Claude Code logs neither its system prompt nor its tool schemas: prompts start at the first user message (per session)");
    }
  }
}
