package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Agent trajectories kept as records (a JSON array of them, JSONL, or one object) with an
 * OpenAI-style message list at a key path: tau-bench's published results ({@code task_id},
 * {@code reward}, {@code info}, {@code traj}, {@code trial}), or any log whose list sits under a key
 * of its own ({@code --messages-path}, else the one list the file's first records hold:
 * {@link LogSample}). A record is one agent session; each assistant message is one request whose
 * prompt is every message before it, as an agent replays its history. Messages are read by the
 * OpenAI message reading ({@link Messages#openai}: {@code tool_calls}, role {@code tool}, content
 * as text or parts); the whole record is validated first, so a bad message skips its record.
 *
 * <p>Arrivals: a request arrives at the time of the last timed message before it (message keys
 * {@code timestamp}, {@code created_at}, {@code time}), else at its own message's time (late by
 * its latency), else at the record's start time ({@code timestamp}, {@code start_time},
 * {@code started_at}, {@code created_at}, {@code time}) plus j * think time for its j-th request,
 * else synthesised as for every conversation without times. Session: the record's id
 * ({@link #ID_KEYS}, with {@code trial} when present: tau-bench runs each task several times),
 * hashed; else {@code f{file}-c{k}}. Each choice is a note in the file's summary.
 */
final class MessagesPathReader extends RecordLogReader {
  /** Record keys that identify a session, first found wins. */
  static final String[] ID_KEYS = {"session_id", "conversation_id", "thread_id", "trajectory_id", "instance_id", "task_id", "id"};
  private static final String[] MESSAGE_TIME_KEYS = {"timestamp", "created_at", "time"};
  private static final String[] RECORD_TIME_KEYS = {"timestamp", "start_time", "started_at", "created_at", "time"};

  private final String pathText;
  private final String[] path;
  /** Session ids seen in this file: a repeated one is made distinct by its record index. */
  private final Set<String> sessions = new HashSet<>();
  private long recordIndex;

  MessagesPathReader(FileHasher h) {
    super(h);
    this.pathText = h.messagesPath();
    this.path = MessagesPath.parse(pathText);
  }

  @Override
  void record(JsonNode r, long line) {
    String file = h.file();
    long k = ++recordIndex;
    JsonNode list = MessagesPath.resolve(r, path);
    if (list == null || !list.isArray()) {
      throw new BadInputException(file, line, pathText, "record " + k + ": " + (list == null ? MessagesPath.whyMissing(r, path) : "not a list")
          + MessagesPath.hint(r));
    }
    if (list.isEmpty()) throw new BadInputException(file, line, pathText, "record " + k + ": empty list");
    int n = list.size();
    ChatMessage[] m = new ChatMessage[n];
    Double[] times = new Double[n];
    int lastAssistant = -1;
    boolean toolCalls = false;
    for (int i = 0; i < n; i++) {
      JsonNode msg = list.get(i);
      m[i] = Messages.openai(msg, file, line, pathText + "[" + i + "]");
      JsonNode ts = msg.isObject() ? LogFields.first(msg, MESSAGE_TIME_KEYS) : null;
      times[i] = ts == null ? null : h.seconds(ts, line, pathText + "[" + i + "].timestamp");
      if (m[i].isAssistant()) {
        lastAssistant = i;
        toolCalls |= !m[i].toolCalls().isEmpty() || m[i].rawToolCalls() != null;
      }
    }
    if (lastAssistant < 0) throw new BadInputException(file, line, pathText, "record " + k + ": no assistant message, so no request");
    JsonNode holder = MessagesPath.parent(r, path);
    JsonNode toolsNode = LogFields.first(holder, "tools", "functions");
    if (toolsNode == null && holder != r) toolsNode = LogFields.first(r, "tools", "functions");
    List<String> tools = Messages.tools(toolsNode, file, line, "tools");
    JsonNode recordTs = LogFields.first(r, RECORD_TIME_KEYS);
    Double recordTime = recordTs == null ? null : h.seconds(recordTs, line, "timestamp");

    Conversation c = new Conversation(h, tools, false, session(r, k), 0, null);
    Double lastTime = null;
    int j = 0;
    for (int i = 0; i < n; i++) {
      if (!m[i].isAssistant()) {
        c.message(m[i]);
      } else {
        c.message(m[i], new RequestMeta(arrival(lastTime, times[i], recordTime, j), null, null, null));
        j++;
      }
      if (times[i] != null) lastTime = times[i];
    }
    if (lastAssistant < n - 1) {
      h.note("trailing", "messages after a record's last assistant message: no request answers them (a record that is one"
          + " request, its prompt the whole list, is read with --log-format openai)");
    }
    if (toolCalls && tools.isEmpty()) {
      h.note("tool_schemas", "tool-calling trajectory: the tool schemas sent with each request are not in the record; prompts lack them");
    }
    h.note("output_tokens", "output tokens = the assistant message's tokens with the hasher's tokenizer (no usage in the record)");
  }

  /** A request's arrival by the rule of the class comment, noting which rule gave it; null = synthesise. */
  private Double arrival(Double lastTime, Double own, Double recordTime, int j) {
    if (lastTime != null) return lastTime;
    if (own != null) {
      h.note("arrival_response", "request with no earlier timed message: arrival = its assistant message's time (late by the request's latency)");
      return own;
    }
    if (recordTime != null) {
      h.note("arrival_record", "messages without times: arrival = the record's start time + j * think time for its j-th request");
      return recordTime + j * h.settings().thinkTimeS();
    }
    h.note("arrival", "no timestamps in the record: arrivals synthesised (record i at i * session gap, its j-th request j * think time later)");
    return null;
  }

  /** The record's session id (raw, hashed by Conversation) or null for f{file}-c{k}; the choice is noted. */
  private String session(JsonNode r, long k) {
    String key = null;
    String id = null;
    for (String c : ID_KEYS) {
      id = LogFields.text(r, c);
      if (id != null) {
        key = c;
        break;
      }
    }
    if (id == null) {
      h.note("session_index", "no id in the record (" + String.join(", ", ID_KEYS) + "): session id = f{file}-c{k},"
          + " k counting the file's records read");
      return null;
    }
    String trial = LogFields.text(r, "trial");
    String raw = key + "=" + id + (trial == null ? "" : "/trial=" + trial);
    String which = trial == null ? key : key + " + trial";
    h.note("session:" + which, "session id = the record's " + which + " (hashed)");
    if (!sessions.add(raw)) {
      h.note("session_duplicate", "records of one file share a session id: each repeat made distinct by its record index");
      raw = raw + "/record=" + k;
    }
    return raw;
  }
}
