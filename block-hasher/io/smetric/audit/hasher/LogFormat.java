package io.smetric.audit.hasher;

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
  /**
   * Agent trajectories kept as records with an OpenAI-style message list under some key (tau-bench's
   * {@code traj}): the path given by {@code --messages-path}, else the one list of {role, content}
   * objects the sampled records hold. Several lists are never guessed between: no fit, and the
   * detection error names them.
   */
  MESSAGES("messages", MessagesPathReader::new, "records holding one list of {role, content} messages under any key"
      + " (a trajectory per record; --messages-path KEY.SUBKEY names the list)",
      s -> s.messagePaths().size() == 1),
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

  /**
   * The format a file is read as: {@code requested} unless it is AUTO, else the first format (in
   * detection order) that the file's first records fit; an empty file reads as OPENAI (any reader
   * says it holds nothing). A file that fits no format is bad input naming its first record's keys.
   */
  static LogFormat resolve(LogFormat requested, LogSample sample, String uri) {
    return resolve(requested, sample, uri, null);
  }

  /**
   * As {@link #resolve(LogFormat, LogSample, String)}; a {@code messagesPath} (--messages-path) with
   * AUTO reads the records as MESSAGES. When nothing fits, the error names the message lists the
   * sampled records hold (several: which record holds which), so the user can pick one.
   */
  static LogFormat resolve(LogFormat requested, LogSample sample, String uri, String messagesPath) {
    if (requested == AUTO && messagesPath != null) return MESSAGES;
    if (requested != AUTO) return requested;
    if (sample.isEmpty()) return OPENAI;
    List<LogFormat> fitting = fitting(sample);
    if (fitting.isEmpty()) {
      List<String> paths = sample.messagePaths();
      String why = paths.size() > 1
          ? "cannot detect the log format: the records hold several lists of {role, content} messages ("
              + sample.messagePathsByRecord() + "); name the one to read with --messages-path, e.g. --messages-path "
              + paths.get(0)
          : "cannot detect the log format: the first record's keys " + sample.firstKeys() + " fit none of: " + describeAll()
              + "; no record holds a list of {role, content} messages within " + LogSample.MAX_PATH_DEPTH
              + " keys (a deeper one: --messages-path); use --log-format";
      throw new io.smetric.audit.common.BadInputException(uri, Math.max(1, sample.firstLine), null, why);
    }
    return fitting.get(0);
  }

  /**
   * The raw-log format of a file from a sample of its first records, or null when it fits none of
   * them (e.g. a hashed trace); records with several message lists are MESSAGES (reading them then
   * fails naming the lists). Used by the audit to tell raw logs from traces.
   */
  public static LogFormat sniff(String file, org.apache.hadoop.conf.Configuration conf) throws java.io.IOException {
    LogSample sample = LogSample.read(file, conf);
    List<LogFormat> f = fitting(sample);
    // records holding several message lists are raw logs too: the hasher then names the lists
    if (f.isEmpty() && !sample.messagePaths().isEmpty()) return MESSAGES;
    return f.isEmpty() ? null : f.get(0);
  }

  /** Every detectable format with what its files look like, for the detection error. */
  static String describeAll() {
    StringBuilder b = new StringBuilder();
    for (LogFormat f : values()) {
      if (f == AUTO) continue;
      if (b.length() > 0) b.append("; ");
      b.append(f.cliName).append(" (").append(f.looksLike).append(')');
    }
    return b.toString();
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
