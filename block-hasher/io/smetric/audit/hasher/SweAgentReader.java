package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * SWE-agent trajectories ({@code .traj}): an object whose {@code history} is an OpenAI-style
 * message list; one request per assistant message, its prompt the history before it. A user
 * message after the first action is the environment's observation (trigger {@code tool}). No
 * timestamps: arrivals are synthesised.
 */
final class SweAgentReader extends TrajectoryLogReader {
  private Conversation conv;

  SweAgentReader(FileHasher h) {
    super(h, "history");
  }

  @Override
  void start(long line) {
    conv = new Conversation(h, List.of(), true);
  }

  @Override
  void message(JsonNode m, long line, int i) {
    ChatMessage msg = Messages.openai(m, h.file(), line, "history[" + i + "]");
    if (msg.isAssistant()) {
      h.note("arrival", "SWE-agent trajectories have no timestamps: arrivals synthesised (trajectory i at i * session gap,"
          + " its j-th request j * think time later)");
    }
    conv.message(msg);
  }

  @Override
  void finish() {
    conv = null;
  }
}
