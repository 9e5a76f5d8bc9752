package io.smetric.audit.hasher;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smetric.audit.common.BadInputException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the JSON of a log's messages into {@link ChatMessage}s. Errors name the file, line and
 * field but never quote the log's text (a reason must not leak a prompt).
 */
final class Messages {
  private Messages() {}

  static final ObjectMapper MAPPER = new ObjectMapper();

  /** An OpenAI chat-completions message (also SWE-agent history entries). */
  static ChatMessage openai(JsonNode m, String file, long line, String where) {
    if (m == null || !m.isObject()) throw new BadInputException(file, line, where, "not a message object");
    JsonNode role = m.get("role");
    if (role == null || !role.isTextual()) throw new BadInputException(file, line, where + ".role", "missing or not a string");
    String r = ChatMessage.normaliseRole(role.asText());
    String content = content(m.get("content"), file, line, where + ".content");
    List<ChatMessage.ToolCall> calls = new ArrayList<>();
    String raw = null;
    JsonNode tc = m.get("tool_calls");
    if (tc != null && !tc.isNull()) {
      if (tc.isArray()) {
        for (int i = 0; i < tc.size(); i++) calls.add(toolCall(tc.get(i), file, line, where + ".tool_calls[" + i + "]"));
      } else if (tc.isTextual()) {
        String s = tc.asText();
        JsonNode parsed = tryParse(s);
        if (parsed != null && parsed.isArray()) {
          for (int i = 0; i < parsed.size(); i++) calls.add(toolCall(parsed.get(i), file, line, where + ".tool_calls[" + i + "]"));
        } else if (!s.isBlank() && !s.equals("[]")) {
          raw = s; // e.g. a Python repr: rendered verbatim
        }
      } else {
        throw new BadInputException(file, line, where + ".tool_calls", "neither a list nor a string");
      }
    }
    JsonNode fc = m.get("function_call"); // legacy single call
    if (fc != null && fc.isObject()) calls.add(function(fc, file, line, where + ".function_call"));
    return new ChatMessage(r, content, calls, raw);
  }

  /** A ShareGPT turn: {@code from} human/gpt/function_call/observation/system, {@code value}. */
  static ChatMessage sharegpt(JsonNode m, String file, long line, String where) {
    if (m == null || !m.isObject()) throw new BadInputException(file, line, where, "not a turn object");
    JsonNode from = m.get("from");
    if (from == null || !from.isTextual()) throw new BadInputException(file, line, where + ".from", "missing or not a string");
    String value = content(m.get("value"), file, line, where + ".value");
    String f = from.asText();
    if (f.equals("function_call")) {
      JsonNode call = tryParse(value);
      if (call != null && call.isObject() && call.hasNonNull("name")) {
        return new ChatMessage(ChatMessage.ASSISTANT, "", List.of(function(call, file, line, where + ".value")), null);
      }
      return new ChatMessage(ChatMessage.ASSISTANT, "", List.of(), value);
    }
    return ChatMessage.of(ChatMessage.normaliseRole(f), value);
  }

  /** String content, or the text parts of a content list; images/audio become one placeholder word. */
  static String content(JsonNode c, String file, long line, String where) {
    if (c == null || c.isNull()) return "";
    if (c.isTextual()) return c.asText();
    if (c.isArray()) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < c.size(); i++) {
        JsonNode p = c.get(i);
        if (p.isTextual()) {
          b.append(p.asText());
          continue;
        }
        String type = p.path("type").asText("text");
        if (p.has("text")) b.append(p.get("text").asText());
        else if (type.startsWith("image")) b.append("<image>");
        else if (type.contains("audio")) b.append("<audio>");
        else if (type.contains("file")) b.append("<file>");
        else throw new BadInputException(file, line, where + "[" + i + "]", "content part of unknown type");
      }
      return b.toString();
    }
    if (c.isNumber() || c.isBoolean()) return c.asText();
    throw new BadInputException(file, line, where, "neither a string nor a list of parts");
  }

  static ChatMessage.ToolCall toolCall(JsonNode c, String file, long line, String where) {
    if (c == null || !c.isObject()) throw new BadInputException(file, line, where, "not a tool call object");
    JsonNode fn = c.has("function") ? c.get("function") : c;
    return function(fn, file, line, where + ".function");
  }

  static ChatMessage.ToolCall function(JsonNode fn, String file, long line, String where) {
    JsonNode name = fn.get("name");
    if (name == null || !name.isTextual()) throw new BadInputException(file, line, where + ".name", "missing or not a string");
    JsonNode args = fn.get("arguments");
    String a;
    if (args == null || args.isNull()) a = "{}";
    else if (args.isTextual()) a = args.asText();
    else a = compact(args);
    return new ChatMessage.ToolCall(name.asText(), a);
  }

  /** Tool schemas: a JSON list (or a string holding one); each rendered as compact JSON. */
  static List<String> tools(JsonNode t, String file, long line, String where) {
    if (t == null || t.isNull()) return List.of();
    JsonNode arr = t;
    if (t.isTextual()) {
      String s = t.asText();
      if (s.isBlank()) return List.of();
      arr = tryParse(s);
      if (arr == null) return List.of(s); // what the model saw, verbatim
    }
    if (!arr.isArray()) throw new BadInputException(file, line, where, "not a list of tool schemas");
    List<String> out = new ArrayList<>(arr.size());
    for (JsonNode n : arr) out.add(n.isTextual() ? n.asText() : compact(n));
    return out;
  }

  static String compact(JsonNode n) {
    try {
      return MAPPER.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static JsonNode tryParse(String s) {
    String t = s.strip();
    if (t.isEmpty() || (t.charAt(0) != '{' && t.charAt(0) != '[')) return null;
    try {
      return MAPPER.readTree(t);
    } catch (JsonProcessingException e) {
      return null;
    }
  }
}
