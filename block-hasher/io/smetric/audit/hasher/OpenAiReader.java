package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * OpenAI chat-completions request logs: one request per record, its prompt the whole
 * {@code messages} list (top level, or under {@code request} / {@code body} as batch files and
 * gateways write them), with optional {@code tools}, metadata, the response and its {@code usage}.
 * Also reads LiteLLM's logging payloads ({@code startTime}, {@code response.usage},
 * {@code completion_tokens}) with their recorded routing ({@link Recording#litellm}). With {@code --messages-path} the list is read where it says (the
 * record's metadata still from its top level). The last prompt state of up to {@code --session-cache} sessions is
 * kept, so that a request whose messages extend its session's previous request is tokenised only
 * for the new messages.
 */
final class OpenAiReader extends RecordLogReader {
  private final Map<String, CachedPrompt> sessionCache;
  /** --messages-path as keys, or null: messages at the top level or under request / body. */
  private final String[] path;

  OpenAiReader(FileHasher h) {
    super(h);
    this.path = h.messagesPath() == null ? null : MessagesPath.parse(h.messagesPath());
    int cap = Math.max(1, h.settings().sessionCacheSize());
    this.sessionCache = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, CachedPrompt> e) {
        return size() > cap;
      }
    };
  }

  private record CachedPrompt(long[] fp, PromptBuilder builder) {}

  @Override
  void record(JsonNode r, long line) {
    String file = h.file();
    JsonNode req;
    JsonNode msgs;
    String field;
    if (path != null) { // --messages-path: the list where the user says; tools beside it
      req = MessagesPath.parent(r, path);
      msgs = MessagesPath.resolve(r, path);
      field = h.messagesPath();
    } else {
      req = r.has("messages") ? r : r.has("request") ? r.get("request") : r.has("body") ? r.get("body") : r;
      msgs = req.get("messages");
      field = "messages";
    }
    if (msgs != null && msgs.isTextual()) throw new BadInputException(file, line, field, "a text, not a list (the gateway did not store the messages)");
    if (msgs == null || !msgs.isArray()) throw new BadInputException(file, line, field, "missing or not a list" + MessagesPath.hint(r));
    if (msgs.isEmpty()) throw new BadInputException(file, line, field, "empty list");
    List<String> tools = Messages.tools(req.has("tools") ? req.get("tools") : req.get("functions"), file, line, "tools");
    int n = msgs.size();
    ChatMessage[] m = new ChatMessage[n];
    long[] fp = new long[n + 1];
    fp[0] = h.key().fingerprint(String.join("\u0000", tools).getBytes(StandardCharsets.UTF_8));
    int assistants = 0;
    for (int i = 0; i < n; i++) {
      m[i] = Messages.openai(msgs.get(i), file, line, field + "[" + i + "]");
      if (m[i].isAssistant()) assistants++;
      fp[i + 1] = fingerprint(m[i]);
    }
    JsonNode meta = r.path("metadata");
    String sessionRaw = LogFields.text(r, "session_id", "conversation_id", "thread_id", "litellm_session_id");
    if (sessionRaw == null) sessionRaw = LogFields.text(meta, "session_id", "conversation_id", "thread_id");
    if (sessionRaw == null && req != r) sessionRaw = LogFields.text(req.path("metadata"), "session_id", "conversation_id");
    String requestRaw = LogFields.text(r, "request_id", "id");
    if (requestRaw == null) requestRaw = LogFields.text(meta, "request_id");
    String parentRaw = LogFields.text(r, "parent_request_id");
    if (parentRaw == null) parentRaw = LogFields.text(meta, "parent_request_id");

    // prompt: extend the session's previous prompt when its messages are a prefix of these
    PromptBuilder b = null;
    CachedPrompt cached = sessionRaw == null ? null : sessionCache.get(sessionRaw);
    int from = 0;
    if (cached != null && cached.fp.length <= fp.length && prefix(cached.fp, fp)) {
      b = cached.builder.copy();
      from = cached.fp.length - 1;
    }
    if (b == null) b = h.newPrompt();
    for (int i = from; i < n; i++) b.append(m[i], i == 0 ? tools : List.of());
    if (sessionRaw != null) sessionCache.put(sessionRaw, new CachedPrompt(fp, b));

    int out = outputTokens(r, b, line);
    String trigger = LogFields.text(r, "trigger");
    if (trigger == null) trigger = LogFields.text(meta, "trigger");
    if (trigger == null) {
      trigger = r.path("subagent").asBoolean(false) || meta.path("subagent").asBoolean(false)
          ? Canonical.TRIGGER_SUBAGENT : LogFields.roleTrigger(m[n - 1].role());
    }
    JsonNode ts = LogFields.first(r, "timestamp", "created", "time", "request_time", "start_time", "startTime");
    if (ts == null) ts = LogFields.first(meta, "timestamp");
    Double arrival = ts == null ? null : h.seconds(ts, line, "timestamp");
    if (arrival == null) h.note("arrival", "no timestamp in the record: arrival synthesised (the i-th such record at i * session gap)");
    JsonNode usage = r.has("usage") ? r.get("usage") : r.path("response").path("usage");
    ProviderCache cache = ProviderUsage.parse(usage, h::providerUsageInconsistent);
    String requestId = requestRaw != null ? "r" + LogFields.hex(h.key().id(requestRaw)) : "f" + h.fileIndex() + "-l" + line;
    String sessionId = sessionRaw != null ? "s" + LogFields.hex(h.key().id(sessionRaw)) : null;
    String parent = parentRaw != null ? "r" + LogFields.hex(h.key().id(parentRaw)) : null;
    // LiteLLM payloads: durations from their own startTime (the arrival may come from another field)
    JsonNode st = LogFields.first(r, "startTime");
    Double start = st == null ? arrival : (Double) h.seconds(st, line, "startTime");
    TraceRecord.Recorded rec = Recording.litellm(r, start, h, line);
    h.emitRecord(requestId, sessionId, parent, assistants, trigger, new RequestMeta(arrival, cache, out, null, rec), b, out);
  }

  private int outputTokens(JsonNode r, PromptBuilder b, long line) {
    JsonNode u = r.path("usage");
    if (u.isMissingNode()) u = r.path("response").path("usage");
    JsonNode ct = u.has("completion_tokens") ? u.get("completion_tokens") : u.has("output_tokens") ? u.get("output_tokens")
        : r.has("output_tokens") ? r.get("output_tokens") : r.get("completion_tokens");
    if (ct != null && !ct.isNull()) {
      if (!ct.canConvertToInt() || ct.asInt() < 0) throw new BadInputException(h.file(), line, "usage.completion_tokens", "not a non-negative integer");
      return ct.asInt();
    }
    JsonNode choices = r.has("choices") ? r.get("choices") : r.path("response").path("choices");
    if (choices.isArray() && !choices.isEmpty() && choices.get(0).has("message")) {
      ChatMessage reply = Messages.openai(choices.get(0).get("message"), h.file(), line, "choices[0].message");
      return b.completionTokens(reply);
    }
    h.outputTokensMissing();
    return 0;
  }

  private long fingerprint(ChatMessage m) {
    StringBuilder sb = new StringBuilder(m.content().length() + 64);
    HashSettings.TEMPLATE.message(m, List.of(), new ChatTemplate.Sink() {
      @Override
      public void text(String x) {
        sb.append(x);
      }

      @Override
      public void special(String token) {
        sb.append('\u0000').append(token).append('\u0000');
      }
    });
    return h.key().fingerprint(sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static boolean prefix(long[] a, long[] b) {
    for (int i = 0; i < a.length; i++) if (a[i] != b[i]) return false;
    return true;
  }
}
