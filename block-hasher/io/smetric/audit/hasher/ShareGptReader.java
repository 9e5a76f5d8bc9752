package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import java.util.List;

/**
 * ShareGPT conversations ({@code conversations: [{from, value}]}, optional {@code system} and
 * {@code tools}), as a JSON array or JSONL: one request per {@code gpt} / {@code function_call}
 * turn, its prompt the history before it. The whole conversation is validated first, so a bad turn
 * skips the conversation rather than half of it. No timestamps: arrivals are synthesised.
 */
final class ShareGptReader extends RecordLogReader {
  ShareGptReader(FileHasher h) {
    super(h);
  }

  @Override
  void record(JsonNode r, long line) {
    String file = h.file();
    JsonNode turns = r.get("conversations");
    if (turns == null || !turns.isArray()) throw new BadInputException(file, line, "conversations", "missing or not a list");
    List<String> tools = Messages.tools(r.get("tools"), file, line, "tools");
    ChatMessage[] m = new ChatMessage[turns.size() + 1];
    int k = 0;
    JsonNode sys = r.get("system");
    if (sys != null && sys.isTextual() && !sys.asText().isEmpty()) m[k++] = ChatMessage.of(ChatMessage.SYSTEM, sys.asText());
    for (int i = 0; i < turns.size(); i++) m[k++] = Messages.sharegpt(turns.get(i), file, line, "conversations[" + i + "]");
    Conversation c = new Conversation(h, tools, false);
    for (int i = 0; i < k; i++) c.message(m[i]);
    h.note("arrival", "ShareGPT has no timestamps: arrivals synthesised (conversation i at i * session gap, its j-th request j * think time later)");
  }
}
