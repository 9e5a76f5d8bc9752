package io.smetric.audit.hasher;

import java.util.List;

/**
 * One message of a chat log after format-specific parsing: a normalised role
 * (system/user/assistant/tool, other roles verbatim), its text, and the tool calls of an
 * assistant message. {@code rawToolCalls} keeps tool calls a log stored as an unparseable string
 * (SWE-agent writes some as a Python repr): they are rendered verbatim, as the model saw them.
 */
public record ChatMessage(String role, String content, List<ToolCall> toolCalls, String rawToolCalls) {
  public static final String SYSTEM = "system";
  public static final String USER = "user";
  public static final String ASSISTANT = "assistant";
  public static final String TOOL = "tool";

  /** A function call: the name and the arguments text exactly as the model produced them. */
  public record ToolCall(String name, String arguments) {}

  public ChatMessage {
    if (content == null) content = "";
    if (toolCalls == null) toolCalls = List.of();
  }

  public static ChatMessage of(String role, String content) {
    return new ChatMessage(role, content, List.of(), null);
  }

  public boolean isAssistant() {
    return ASSISTANT.equals(role);
  }

  /** Maps the role spellings seen in logs onto the template's roles. */
  public static String normaliseRole(String role) {
    return switch (role) {
      case "developer" -> SYSTEM;
      case "function", "ipython", "observation", "tool_result" -> TOOL;
      case "human" -> USER;
      case "gpt", "model", "bot" -> ASSISTANT;
      default -> role;
    };
  }
}
