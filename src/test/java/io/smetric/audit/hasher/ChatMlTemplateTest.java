package io.smetric.audit.hasher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChatMlTemplateTest {
  static final ChatMlTemplate T = new ChatMlTemplate();
  static final List<String> TOOLS = List.of("{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}");

  /** Renders to a string, special tokens written as their text. */
  static String render(List<ChatMessage> msgs, List<String> tools, boolean generationPrompt) {
    StringBuilder sb = new StringBuilder();
    ChatTemplate.Sink sink = new ChatTemplate.Sink() {
      @Override
      public void text(String s) {
        sb.append(s);
      }

      @Override
      public void special(String token) {
        sb.append(token);
      }
    };
    for (int i = 0; i < msgs.size(); i++) T.message(msgs.get(i), i == 0 ? tools : List.of(), sink);
    if (generationPrompt) T.generationPrompt(sink);
    return sb.toString();
  }

  static List<ChatMessage> weatherConversation() {
    return List.of(
        ChatMessage.of("system", "Be brief."),
        ChatMessage.of("user", "Weather in Paris?"),
        new ChatMessage("assistant", "Checking.", List.of(new ChatMessage.ToolCall("get_weather", "{\"city\": \"Paris\"}")), null),
        ChatMessage.of("tool", "{\"temp\": 21}"),
        ChatMessage.of("assistant", "21 degrees."),
        ChatMessage.of("user", "Thanks"));
  }

  @Test
  void render_systemToolsCallAndResult_matchesGoldenText() {
    String expected =
        "<|im_start|>system\nBe brief.\n\n# Tools\n\n<tools>\n{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}\n</tools><|im_end|>\n"
            + "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
            + "<|im_start|>assistant\nChecking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n"
            + "<|im_start|>tool\n<tool_response>\n{\"temp\": 21}\n</tool_response><|im_end|>\n"
            + "<|im_start|>assistant\n21 degrees.<|im_end|>\n"
            + "<|im_start|>user\nThanks<|im_end|>\n"
            + "<|im_start|>assistant\n";
    assertEquals(expected, render(weatherConversation(), TOOLS, true));
  }

  @Test
  void render_toolsWithoutSystemMessage_addsASystemMessageWithTheToolsOnly() {
    String expected = "<|im_start|>system\n# Tools\n\n<tools>\n{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}\n</tools><|im_end|>\n"
        + "<|im_start|>user\nHi<|im_end|>\n";
    assertEquals(expected, render(List.of(ChatMessage.of("user", "Hi")), TOOLS, false));
  }

  @Test
  void render_callWithoutContentAndNonJsonArguments_quotesTheArguments() {
    ChatMessage m = new ChatMessage("assistant", "", List.of(new ChatMessage.ToolCall("run", "ls -la \"x\"")), null);
    assertEquals("<|im_start|>assistant\n<tool_call>\n{\"name\": \"run\", \"arguments\": \"ls -la \\\"x\\\"\"}\n</tool_call><|im_end|>\n",
        render(List.of(m), List.of(), false));
  }

  @Test
  void render_rawToolCallString_isRenderedVerbatim() {
    ChatMessage m = new ChatMessage("assistant", "Go.", List.of(), "[{'function': {'name': 'open'}}]");
    assertEquals("<|im_start|>assistant\nGo.\n<tool_call>\n[{'function': {'name': 'open'}}]\n</tool_call><|im_end|>\n",
        render(List.of(m), List.of(), false));
  }

  @Test
  void completion_assistantMessage_isItsBodyAndTheEndMarker() {
    StringBuilder sb = new StringBuilder();
    T.completion(ChatMessage.of("assistant", "21 degrees."), new ChatTemplate.Sink() {
      @Override
      public void text(String s) {
        sb.append(s);
      }

      @Override
      public void special(String token) {
        sb.append(token);
      }
    });
    assertEquals("21 degrees.<|im_end|>", sb.toString());
  }
}
