package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.UsageException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Where a record keeps its OpenAI-style message list ({@code --messages-path}): a dotted path of
 * object keys from the record, e.g. {@code traj} (tau-bench's published trajectories) or
 * {@code request.body.messages}. Also finds the message lists of a record, so that an error can say
 * where the messages are when a path is missing. A key holding a dot cannot be named (none of the
 * logs we know has one).
 */
final class MessagesPath {
  private MessagesPath() {}

  /** The keys of a path; a usage error (exit 2) when it is empty or has an empty key. */
  static String[] parse(String path) {
    if (path == null || path.isBlank()) throw new UsageException("--messages-path must name a key, e.g. traj or request.body.messages");
    String[] keys = path.strip().split("\\.", -1);
    for (String k : keys) {
      if (k.isEmpty()) throw new UsageException("--messages-path '" + path + "': empty key between dots");
    }
    return keys;
  }

  /** The value at {@code keys} under {@code record}, or null when a key is missing or a step is not an object. */
  static JsonNode resolve(JsonNode record, String[] keys) {
    JsonNode n = record;
    for (String k : keys) {
      if (n == null || !n.isObject()) return null;
      n = n.get(k);
    }
    return n;
  }

  /** Why {@code keys} resolve to nothing: "missing", or which step is not an object (a path through a list). */
  static String whyMissing(JsonNode record, String[] keys) {
    JsonNode n = record;
    StringBuilder at = new StringBuilder();
    for (String k : keys) {
      if (n == null) return "missing";
      if (!n.isObject()) return "missing: '" + at + "' is " + (n.isArray() ? "a list" : "not an object") + ", it has no keys";
      n = n.get(k);
      if (at.length() > 0) at.append('.');
      at.append(k);
    }
    return "missing";
  }

  /** The object holding the list at {@code keys} (its siblings: {@code tools}), or the record for a top-level key. */
  static JsonNode parent(JsonNode record, String[] keys) {
    JsonNode n = record;
    for (int i = 0; i + 1 < keys.length && n != null; i++) n = n.get(keys[i]);
    return n == null ? record : n;
  }

  /**
   * Whether {@code n} is a list of OpenAI-style messages: non-empty, every element an object with
   * a text {@code role} and a {@code content} or {@code tool_calls} (the test LogSample applies).
   */
  static boolean isMessageList(JsonNode n) {
    if (n == null || !n.isArray() || n.isEmpty()) return false;
    for (JsonNode m : n) {
      if (!m.isObject() || !m.path("role").isTextual() || !(m.has("content") || m.has("tool_calls"))) return false;
    }
    return true;
  }

  /** The dotted paths of a record's message lists (objects only, up to LogSample.MAX_PATH_DEPTH keys), in document order. */
  static List<String> find(JsonNode record) {
    List<String> out = new ArrayList<>();
    find(record, "", 0, out);
    return out;
  }

  private static void find(JsonNode n, String path, int depth, List<String> out) {
    if (depth >= LogSample.MAX_PATH_DEPTH || !n.isObject()) return;
    Iterator<Map.Entry<String, JsonNode>> it = n.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String at = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
      if (isMessageList(e.getValue())) out.add(at);
      else if (e.getValue().isObject()) find(e.getValue(), at, depth + 1, out);
    }
  }

  /** The hint a skip reason ends with when the messages are not where it looked. */
  static String hint(JsonNode record) {
    List<String> found = find(record);
    if (found.isEmpty()) return "; the record holds no list of {role, content} messages within " + LogSample.MAX_PATH_DEPTH + " keys";
    return "; the record's list of {role, content} messages is at " + String.join(", ", found) + " (--messages-path "
        + found.get(0) + ")";
  }
}
