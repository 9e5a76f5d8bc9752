package io.smetric.audit.hasher;

import java.util.List;

/**
 * The default template, "chatml-tools" version 1: ChatML ({@code <|im_start|>role\n...<|im_end|>\n})
 * with tools in the Qwen2.5 / Hermes style (schemas inside {@code <tools>} in the system message,
 * calls as {@code <tool_call>} JSON in the assistant message, results as a {@code tool} message in
 * {@code <tool_response>}). The exact rendering, with an example, is in docs/block-hasher.md;
 * changing a character here changes every hash, so bump {@link #version()} when you do.
 */
public final class ChatMlTemplate implements ChatTemplate {
  public static final String IM_START = "<|im_start|>";
  public static final String IM_END = "<|im_end|>";
  public static final String NAME = "chatml-tools";
  public static final int VERSION = 1;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int version() {
    return VERSION;
  }

  @Override
  public List<String> specialTokens() {
    return List.of(IM_START, IM_END);
  }

  @Override
  public void message(ChatMessage m, List<String> tools, Sink out) {
    StringBuilder body = new StringBuilder(m.content().length() + 32);
    body.append(m.role()).append('\n');
    if (ChatMessage.SYSTEM.equals(m.role())) {
      body.append(m.content());
      if (!tools.isEmpty()) {
        if (!m.content().isEmpty()) body.append("\n\n");
        appendTools(body, tools);
      }
    } else {
      if (!tools.isEmpty()) toolsOnly(tools, out);
      if (ChatMessage.TOOL.equals(m.role())) {
        body.append("<tool_response>\n").append(m.content()).append("\n</tool_response>");
      } else if (m.isAssistant()) {
        appendAssistantBody(body, m);
      } else {
        body.append(m.content());
      }
    }
    out.special(IM_START);
    out.text(body.toString());
    out.special(IM_END);
    out.text("\n");
  }

  @Override
  public void toolsOnly(List<String> tools, Sink out) {
    StringBuilder body = new StringBuilder("system\n");
    appendTools(body, tools);
    out.special(IM_START);
    out.text(body.toString());
    out.special(IM_END);
    out.text("\n");
  }

  @Override
  public void generationPrompt(Sink out) {
    out.special(IM_START);
    out.text("assistant\n");
  }

  @Override
  public void completion(ChatMessage assistant, Sink out) {
    StringBuilder body = new StringBuilder();
    appendAssistantBody(body, assistant);
    out.text(body.toString());
    out.special(IM_END);
  }

  private static void appendTools(StringBuilder b, List<String> tools) {
    b.append("# Tools\n\n<tools>");
    for (String t : tools) b.append('\n').append(t);
    b.append("\n</tools>");
  }

  private static void appendAssistantBody(StringBuilder b, ChatMessage m) {
    int start = b.length();
    b.append(m.content());
    for (ChatMessage.ToolCall c : m.toolCalls()) {
      if (b.length() > start) b.append('\n');
      b.append("<tool_call>\n{\"name\": ");
      quote(b, c.name());
      b.append(", \"arguments\": ");
      String a = c.arguments().strip();
      // arguments are JSON text produced by the model; anything else is quoted as a string
      if (a.startsWith("{") || a.startsWith("[")) b.append(a);
      else quote(b, c.arguments());
      b.append("}\n</tool_call>");
    }
    if (m.rawToolCalls() != null) {
      if (b.length() > start) b.append('\n');
      b.append("<tool_call>\n").append(m.rawToolCalls()).append("\n</tool_call>");
    }
  }

  /** Minimal JSON string quoting (RFC 8259): quote, backslash and control characters. */
  static void quote(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (ch < 0x20) b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) ch));
          else b.append(ch);
        }
      }
    }
    b.append('"');
  }
}
