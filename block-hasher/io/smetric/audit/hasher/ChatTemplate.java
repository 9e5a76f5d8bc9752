package io.smetric.audit.hasher;

import java.util.List;

/**
 * A chat template renders messages into a stream of text runs and special tokens. Rendering is
 * per message (plus a tools preamble and the generation prompt), so that a conversation's prompt
 * can be built incrementally; a template must make every message start with a special token, so
 * that tokenising message by message equals tokenising the whole prompt (see docs/block-hasher.md).
 */
public interface ChatTemplate {
  /** Receives the rendering: text runs and special tokens, in order. */
  interface Sink {
    void text(String s);

    void special(String token);
  }

  String name();

  int version();

  /** The special tokens this template emits (the tokenizer must map each to one id). */
  List<String> specialTokens();

  /**
   * Renders one message; {@code tools} is non-empty only with the conversation's first message
   * (the tool schemas, each a compact JSON text), which is then where the tools section goes.
   */
  void message(ChatMessage m, List<String> tools, Sink out);

  /** Renders the tools section alone, for a conversation that has tools but no system message. */
  void toolsOnly(List<String> tools, Sink out);

  /** The text that ends every prompt and makes the model answer as the assistant. */
  void generationPrompt(Sink out);

  /** What the model generates for an assistant message after the generation prompt. */
  void completion(ChatMessage assistant, Sink out);
}
