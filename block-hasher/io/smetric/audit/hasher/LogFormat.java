package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.UsageException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * The raw log formats the block-hasher reads ({@code --log-format}): each constant names the
 * reader class that reads it and how auto-detection recognises it from a sample of the file's
 * first records ({@link LogSample}). Adding a format = one reader class and one constant here.
 * The constants are listed in detection order: the first whose test fits a file wins, so that
 * formats with more specific keys come before the ones they share keys with.
 */
public enum LogFormat {
  /** mini-SWE-agent trajectories (1.x): {@code messages} plus {@code trajectory_format} or {@code info.mini_version}. */
  MINI_SWE_AGENT("mini-swe-agent", MiniSweAgentReader::new, "a JSON object with messages and trajectory_format mini-swe-agent-*",
      s -> s.first(r -> r.path("messages").isArray()
          && (r.path("trajectory_format").asText("").startsWith("mini-swe-agent") || r.path("info").has("mini_version")))),
  /** SWE-agent trajectories: an object whose {@code history} is an OpenAI-style message list. */
  SWE_AGENT("swe-agent", SweAgentReader::new, "a JSON object with history (SWE-agent .traj)",
      s -> s.first(r -> r.has("history"))),
  /** ShareGPT conversations: {@code conversations[{from, value}]}, optional {@code system}, {@code tools}. */
  SHAREGPT("sharegpt", ShareGptReader::new, "records with conversations",
      s -> s.first(r -> r.has("conversations"))),
  /** OpenAI Codex CLI session rollouts: JSONL of {timestamp, type, payload}. */
  CODEX("codex", CodexReader::new, "JSONL lines {timestamp, type: session_meta|response_item|event_msg|turn_context, payload}",
      s -> s.any(r -> r.path("payload").isObject() && CodexReader.LINE_TYPES.contains(r.path("type").asText("")))),
  /** Claude Code session logs: JSONL of {type, sessionId, uuid, message, timestamp}. */
  CLAUDE_CODE("claude-code", ClaudeCodeReader::new, "JSONL lines {type: user|assistant, sessionId, message, timestamp}",
      s -> s.any(r -> r.has("sessionId") && r.path("message").isObject()
          && ClaudeCodeReader.MESSAGE_TYPES.contains(r.path("type").asText("")))),
  /** OpenTelemetry GenAI spans (OTLP JSON, or one span per record) with input messages. */
  OTEL_GENAI("otel-genai", OtelGenAiReader::new, "OTLP JSON (resourceSpans) or spans whose attributes are gen_ai.* / llm.*",
      s -> s.any(r -> r.has("resourceSpans") || r.has("resource_spans") || OtelGenAiReader.isGenAiSpan(r))),
  /** One chat-completions request per record: {@code messages}, {@code tools}, metadata (request logs, LiteLLM payloads). */
  OPENAI("openai", OpenAiReader::new, "records with messages (or request/body holding them)",
      s -> s.first(r -> r.path("messages").isArray() || r.path("request").isObject() || r.path("body").isObject())),
  /** Decide per file: the first format above whose test fits the file's first records. */
  AUTO("auto", null, "", s -> false);

  /** Creates a format's reader for one file. */
  @FunctionalInterface
  interface ReaderFactory {
    LogReader open(FileHasher file);
  }

  public final String cliName;
  final ReaderFactory factory;
  /** What a file of this format looks like, for error messages. */
  public final String looksLike;
  private final Predicate<LogSample> fits;

  LogFormat(String cliName, ReaderFactory factory, String looksLike, Predicate<LogSample> fits) {
    this.cliName = cliName;
    this.factory = factory;
    this.looksLike = looksLike;
    this.fits = fits;
  }

  /** Whether a file whose first records are {@code sample} looks like this format. */
  public boolean fits(LogSample sample) {
    return this != AUTO && fits.test(sample);
  }

  /** The formats (in detection order) that a sample fits; empty when none does. */
  public static List<LogFormat> fitting(LogSample sample) {
    List<LogFormat> out = new ArrayList<>();
    for (LogFormat f : values()) if (f.fits(sample)) out.add(f);
    return out;
  }

  /** Every format a user can name, for help and errors. */
  public static String names() {
    return String.join(", ", Arrays.stream(values()).map(f -> f.cliName).toList());
  }

  public static LogFormat parse(String s) {
    for (LogFormat f : values()) if (f.cliName.equals(s)) return f;
    throw new UsageException("unknown --log-format '" + s + "': use one of " + names());
  }
}
