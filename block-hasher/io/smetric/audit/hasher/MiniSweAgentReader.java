package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.TraceRecord.ProviderCache;
import java.util.List;

/**
 * mini-SWE-agent trajectories, formats {@code mini-swe-agent-1} and {@code mini-swe-agent-1.1}
 * (v2: tool-calling models with {@code tool_calls} and {@code tool} messages): one JSON object with
 * {@code info}, {@code messages} and {@code trajectory_format}. Each assistant message is one
 * request whose prompt is the messages before it; its {@code extra} holds the raw provider
 * response ({@code extra.response.usage}: output tokens and the provider's cache accounting) and a
 * Unix {@code extra.timestamp} taken when the message was stored. Observation messages carry their
 * own {@code extra.timestamp}, so a request's arrival is the time of the message before it, which
 * is when the agent sent the request; the first request of a trajectory has no such message (the
 * system and task messages carry no time) and takes the response's {@code created} second, else
 * its own message's time (both counted as approximations). The tool schemas a tool-calling model
 * was given are not in the trajectory, so prompts lack them (counted once per trajectory).
 */
final class MiniSweAgentReader extends TrajectoryLogReader {
  private Conversation conv;
  private Double lastTime;
  private boolean toolCalls;

  MiniSweAgentReader(FileHasher h) {
    super(h, "messages");
  }

  @Override
  void start(long line) {
    conv = new Conversation(h, List.of(), true);
    lastTime = null;
    toolCalls = false;
  }

  @Override
  void message(JsonNode m, long line, int i) {
    ChatMessage msg = Messages.openai(m, h.file(), line, "messages[" + i + "]");
    JsonNode extra = m.path("extra");
    JsonNode ts = extra.get("timestamp");
    Double own = ts != null && ts.isNumber() ? ts.asDouble() : null;
    if (!msg.isAssistant()) {
      conv.message(msg);
      if (own != null) lastTime = own;
      return;
    }
    if (!msg.toolCalls().isEmpty()) toolCalls = true;
    JsonNode response = extra.path("response");
    Double arrival = lastTime;
    if (arrival == null) {
      JsonNode created = response.get("created");
      if (created != null && created.isNumber()) {
        arrival = created.asDouble();
        h.note("arrival_created", "first request of a trajectory: arrival = the response's created second (no earlier message has a time)");
      } else if (own != null) {
        arrival = own;
        h.note("arrival_response", "request with no earlier timed message: arrival = its response message's time (late by the request's latency)");
      } else {
        h.note("arrival", "no timestamp: arrival synthesised (trajectory i at i * session gap, its j-th request j * think time later)");
      }
    }
    JsonNode usage = response.path("usage");
    ProviderCache cache = ProviderUsage.parse(usage, h::providerUsageInconsistent);
    JsonNode ct = usage.get("completion_tokens");
    Integer out = ct != null && ct.canConvertToInt() && ct.asInt() >= 0 ? ct.asInt() : null;
    if (out == null) h.note("output_tokens", "no usage.completion_tokens: output tokens counted with the hasher's tokenizer");
    conv.message(msg, new RequestMeta(arrival, cache, out, null));
    if (own != null) lastTime = own;
  }

  @Override
  void finish() {
    if (toolCalls) {
      h.note("tool_schemas", "tool-calling trajectory: the tool schemas sent with each request are not in the log; prompts lack them");
    }
    conv = null;
  }
}
