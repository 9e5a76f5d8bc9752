package io.smetric.audit.hasher;

import io.smetric.audit.contract.Canonical;
import java.util.List;

/**
 * A self-contained conversation of a log (ShareGPT, trajectories, session logs): one request per
 * assistant message, whose prompt is everything before it, built incrementally. The session id is
 * the log's own (hashed) or {@code f{file}-c{k}}; {@code firstTurn} continues a session's turn count
 * across conversations (a session log after compaction). Without log times a conversation's j-th
 * request arrives j * think time after its start (HashJob places the start).
 */
final class Conversation {
  private final FileHasher h;
  final int index;
  final PromptBuilder b;
  private final List<String> tools;
  private final boolean observationsAreTools;
  private final String sessionId;
  private final String firstTrigger;
  private int turn;
  private int assistants;
  private String lastRole;
  private boolean first = true;

  /**
   * @param tools the tool schemas sent with the conversation's requests (rendered before the first message)
   * @param observationsAreTools an agent without a human in the loop: a user message after its first action is the
   *     environment's observation (trigger tool)
   */
  Conversation(FileHasher h, List<String> tools, boolean observationsAreTools) {
    this(h, tools, observationsAreTools, null, 0, null);
  }

  /**
   * @param sessionRaw the log's session id (hashed into the session id), or null for {@code f{file}-c{k}}
   * @param firstTurn the turn number of the conversation's first request
   * @param firstTrigger the trigger of the first request when the log implies one (a sub-agent's), else null
   */
  Conversation(FileHasher h, List<String> tools, boolean observationsAreTools, String sessionRaw, int firstTurn, String firstTrigger) {
    this.h = h;
    FileCounters n = h.counters();
    this.index = (int) n.conversations++;
    n.syntheticUnits = n.conversations;
    this.b = h.newPrompt();
    this.tools = tools;
    this.observationsAreTools = observationsAreTools;
    this.sessionId = sessionRaw == null ? "f" + h.fileIndex() + "-c" + index : "s" + LogFields.hex(h.key().id(sessionRaw));
    this.turn = firstTurn;
    this.firstTrigger = firstTrigger;
  }

  int turn() {
    return turn;
  }

  void message(ChatMessage m) {
    message(m, RequestMeta.NONE);
  }

  /** Appends a message; an assistant message first emits the request that produced it. */
  void message(ChatMessage m, RequestMeta meta) {
    if (m.isAssistant()) {
      if (first && !tools.isEmpty()) b.appendToolsOnly(tools);
      first = false;
      String trigger = lastRole == null ? Canonical.TRIGGER_UNKNOWN : LogFields.roleTrigger(lastRole);
      // an agent without a human in the loop: a user message after the first action is the
      // environment's observation (non-function-calling agents send it as role user)
      if (observationsAreTools && assistants > 0 && ChatMessage.USER.equals(lastRole)) trigger = Canonical.TRIGGER_TOOL;
      if (turn == 0 && firstTrigger != null) trigger = firstTrigger;
      int out = b.completionTokens(m);
      if (meta.outputTokens() != null) out = meta.outputTokens();
      double t;
      boolean synth;
      if (meta.arrivalS() != null) {
        t = h.counters().logTime(meta.arrivalS());
        synth = false;
      } else {
        t = assistants * h.settings().thinkTimeS();
        synth = true;
        h.counters().synthetic++;
      }
      String rid = meta.requestIdRaw() != null ? "r" + LogFields.hex(h.key().id(meta.requestIdRaw()))
          : "f" + h.fileIndex() + "-c" + index + "-t" + assistants;
      h.emit(rid, sessionId, null, turn, trigger, t, synth, index, b, out, meta.cache(), meta.recorded());
      assistants++;
      turn++;
    }
    b.append(m, first ? tools : List.of());
    first = false;
    lastRole = m.role();
  }
}
