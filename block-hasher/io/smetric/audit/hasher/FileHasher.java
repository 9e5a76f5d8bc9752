package io.smetric.audit.hasher;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.model.Canonical;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackInputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.spark.sql.Row;

/**
 * Hashes one log file as a stream of staging rows ({@link StagingRows}); the Spark job runs one
 * per file. Nothing holds the whole file: JSONL is read line by line, a JSON array element by
 * element, and a SWE-agent trajectory message by message (its other fields are skipped token by
 * token), so memory is bounded by one record (one message for trajectories) plus the block
 * hashes of the conversation being built. A record that cannot be used becomes a {@code skip} row
 * whose reason names file, line and field; the file ends with one {@code file} row of counters.
 */
public final class FileHasher implements Iterator<Row>, Closeable {
  private static final JsonFactory JSON = Messages.MAPPER.getFactory();

  private final HashSettings s;
  private final int fileIndex;
  private final String file;
  private final ChatTokenizer tokenizer;
  private final ArrayDeque<Row> ready = new ArrayDeque<>();
  private final Configuration conf;

  private LogFormat format;
  private InputStream in;
  private BufferedReader lines; // JSONL mode
  private JsonParser parser; // array / object-stream mode
  private boolean arrayMode;
  private boolean done;
  private boolean finished;
  private boolean sawHistory;
  private long lineNo;

  // counters for the file row
  private long records, conversations, requests, skipped, outputMissing, synthetic, timestamped;
  private long seqCounter;
  /** Conversations, or OpenAI records without timestamp: the units synthetic arrivals are spaced by. */
  private long syntheticUnits;
  private double minLogTime = Double.POSITIVE_INFINITY;

  // SWE-agent streaming state: inside a trajectory's history array
  private Conversation sweConv;
  private boolean inHistory;
  private int historyIndex;
  private long trajectoryLine;

  // OpenAI: the last prompt of each session, to extend instead of re-tokenising (bounded LRU)
  private final Map<String, CachedPrompt> sessionCache;

  public FileHasher(HashSettings settings, int fileIndex, String uri, Configuration conf) {
    this.s = settings;
    this.fileIndex = fileIndex;
    this.file = uri;
    this.tokenizer = settings.tokenizer().open(HashSettings.TEMPLATE);
    this.conf = conf;
    int cap = Math.max(1, settings.sessionCacheSize());
    this.sessionCache = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, CachedPrompt> e) {
        return size() > cap;
      }
    };
    try {
      Path p = new Path(uri);
      InputStream raw = p.getFileSystem(conf).open(p);
      CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(p);
      this.in = codec == null ? raw : codec.createInputStream(raw);
      open();
    } catch (java.io.FileNotFoundException e) {
      throw new BadInputException(uri, "file not found");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + uri + ": " + e.getMessage(), e);
    }
  }

  private void open() throws IOException {
    PushbackInputStream pb = new PushbackInputStream(in, 1);
    in = pb;
    int c;
    do {
      c = pb.read();
    } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF);
    if (c < 0) {
      done = true;
      format = s.format() == LogFormat.AUTO ? LogFormat.OPENAI : s.format();
      finish();
      return;
    }
    pb.unread(c);
    arrayMode = c == '[';
    format = s.format();
    if (format == LogFormat.AUTO) format = detect();
    if (format == LogFormat.SWE_AGENT || arrayMode) {
      parser = JSON.createParser(in);
      if (arrayMode) parser.nextToken(); // START_ARRAY
    } else {
      lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
    }
  }

  /** Auto-detection: reads the first record's field names (skipping values) on a second stream. */
  private LogFormat detect() throws IOException {
    LogFormat f = sniff(file, conf);
    if (f == null) {
      throw new BadInputException(file, 1, null, "cannot detect the log format: the first record has none of the keys"
          + " history (swe-agent), conversations (sharegpt), messages/request/body (openai); use --log-format");
    }
    return f;
  }

  /**
   * The raw-log format of a file from its first JSON record's keys, or null when the record has
   * none of them (e.g. a hashed trace): history (swe-agent), conversations (sharegpt),
   * messages/request/body (openai). Used by the audit to tell raw logs from traces.
   */
  public static LogFormat sniff(String file, Configuration conf) throws IOException {
    Path p = new Path(file);
    try (InputStream raw = p.getFileSystem(conf).open(p)) {
      CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(p);
      try (JsonParser jp = JSON.createParser(codec == null ? raw : codec.createInputStream(raw))) {
        JsonToken t = jp.nextToken();
        if (t == JsonToken.START_ARRAY) t = jp.nextToken();
        if (t != JsonToken.START_OBJECT) throw new BadInputException(file, jp.currentLocation().getLineNr(), null, "the first record is not a JSON object");
        while ((t = jp.nextToken()) == JsonToken.FIELD_NAME) {
          switch (jp.currentName()) {
            case "history": return LogFormat.SWE_AGENT;
            case "conversations": return LogFormat.SHAREGPT;
            case "messages", "request", "body": return LogFormat.OPENAI;
            default:
              jp.nextToken();
              jp.skipChildren();
          }
        }
        return null;
      } catch (JsonParseException e) {
        throw new BadInputException(file, e.getLocation() == null ? -1 : e.getLocation().getLineNr(), null, "malformed JSON");
      }
    }
  }

  public LogFormat format() {
    return format;
  }

  @Override
  public boolean hasNext() {
    while (ready.isEmpty() && !done) advance();
    return !ready.isEmpty();
  }

  @Override
  public Row next() {
    if (!hasNext()) throw new NoSuchElementException();
    return ready.poll();
  }

  /** Processes one unit of input (a line, an array element, or one trajectory message). */
  private void advance() {
    try {
      if (lines != null) {
        String line = lines.readLine();
        if (line == null) {
          finish();
          return;
        }
        lineNo++;
        if (line.isBlank()) return;
        JsonNode node;
        try {
          node = Messages.MAPPER.readTree(line);
        } catch (JsonParseException e) {
          skip(new BadInputException(file, lineNo, null, "malformed JSON at column " + e.getLocation().getColumnNr()));
          return;
        }
        record(node, lineNo);
      } else if (inHistory) {
        historyStep();
      } else {
        JsonToken t = parser.nextToken();
        if (t == null || t == JsonToken.END_ARRAY) {
          finish();
          return;
        }
        long line = parser.currentLocation().getLineNr();
        if (format == LogFormat.SWE_AGENT) {
          if (t != JsonToken.START_OBJECT) throw new BadInputException(file, line, null, "a trajectory is not a JSON object");
          trajectoryFields(line);
        } else {
          if (t != JsonToken.START_OBJECT) {
            parser.skipChildren();
            skip(new BadInputException(file, line, null, "record is not a JSON object"));
            return;
          }
          JsonNode node = parser.readValueAsTree();
          record(node, line);
        }
      }
    } catch (JsonParseException e) {
      // a broken JSON document cannot be resynchronised: stop here, loudly, with the place
      throw new BadInputException(file, e.getLocation() == null ? -1 : e.getLocation().getLineNr(), null, "malformed JSON");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private void record(JsonNode node, long line) {
    records++;
    try {
      if (!node.isObject()) throw new BadInputException(file, line, null, "record is not a JSON object");
      switch (format) {
        case OPENAI -> openaiRecord((ObjectNode) node, line);
        case SHAREGPT -> sharegptRecord(node, line);
        default -> throw new IllegalStateException(format.name());
      }
    } catch (BadInputException e) {
      skip(e);
    }
  }

  // ---------------------------------------------------------------- OpenAI request logs

  private void openaiRecord(ObjectNode r, long line) {
    JsonNode req = r.has("messages") ? r : r.has("request") ? r.get("request") : r.has("body") ? r.get("body") : r;
    JsonNode msgs = req.get("messages");
    if (msgs == null || !msgs.isArray()) throw new BadInputException(file, line, "messages", "missing or not a list");
    if (msgs.isEmpty()) throw new BadInputException(file, line, "messages", "empty list");
    List<String> tools = Messages.tools(req.has("tools") ? req.get("tools") : req.get("functions"), file, line, "tools");
    int n = msgs.size();
    ChatMessage[] m = new ChatMessage[n];
    long[] fp = new long[n + 1];
    fp[0] = s.key().fingerprint(String.join("\u0000", tools).getBytes(StandardCharsets.UTF_8));
    int assistants = 0;
    for (int i = 0; i < n; i++) {
      m[i] = Messages.openai(msgs.get(i), file, line, "messages[" + i + "]");
      if (m[i].isAssistant()) assistants++;
      fp[i + 1] = fingerprint(m[i]);
    }
    JsonNode meta = r.path("metadata");
    String sessionRaw = text(r, "session_id", "conversation_id", "thread_id");
    if (sessionRaw == null) sessionRaw = text(meta, "session_id", "conversation_id", "thread_id");
    if (sessionRaw == null && req != r) sessionRaw = text(req.path("metadata"), "session_id", "conversation_id");
    String requestRaw = text(r, "request_id", "id");
    if (requestRaw == null) requestRaw = text(meta, "request_id");
    String parentRaw = text(r, "parent_request_id");
    if (parentRaw == null) parentRaw = text(meta, "parent_request_id");

    // prompt: extend the session's previous prompt when its messages are a prefix of these
    PromptBuilder b = null;
    CachedPrompt cached = sessionRaw == null ? null : sessionCache.get(sessionRaw);
    int from = 0;
    if (cached != null && cached.fp.length <= fp.length && prefix(cached.fp, fp)) {
      b = cached.builder.copy();
      from = cached.fp.length - 1;
    }
    if (b == null) b = new PromptBuilder(HashSettings.TEMPLATE, tokenizer, s.key(), s.blockSize());
    for (int i = from; i < n; i++) b.append(m[i], i == 0 ? tools : List.of());
    if (sessionRaw != null) sessionCache.put(sessionRaw, new CachedPrompt(fp, b));

    int out = outputTokens(r, b, line);
    String trigger = text(r, "trigger");
    if (trigger == null) trigger = text(meta, "trigger");
    if (trigger == null) {
      trigger = r.path("subagent").asBoolean(false) || meta.path("subagent").asBoolean(false)
          ? Canonical.TRIGGER_SUBAGENT : roleTrigger(m[n - 1].role());
    }
    double t;
    boolean synth;
    long synthIndex = -1;
    JsonNode ts = first(r, "timestamp", "created", "time", "request_time", "start_time");
    if (ts == null) ts = first(meta, "timestamp");
    if (ts != null) {
      t = seconds(ts, line);
      synth = false;
      timestamped++;
      minLogTime = Math.min(minLogTime, t);
    } else {
      t = 0; // placed by HashJob: (untimestamped records before this file + index) * session gap
      synth = true;
      synthIndex = syntheticUnits++;
      synthetic++;
    }
    String requestId = requestRaw != null ? "r" + hex(s.key().id(requestRaw)) : "f" + fileIndex + "-l" + line;
    String sessionId = sessionRaw != null ? "s" + hex(s.key().id(sessionRaw)) : null;
    String parent = parentRaw != null ? "r" + hex(s.key().id(parentRaw)) : null;
    if (sessionRaw == null) conversationsNoSession++;
    emit(requestId, sessionId, parent, assistants, trigger, t, synth, synthIndex, b, out);
  }

  private long conversationsNoSession;

  private int outputTokens(JsonNode r, PromptBuilder b, long line) {
    JsonNode u = r.path("usage");
    if (u.isMissingNode()) u = r.path("response").path("usage");
    JsonNode ct = u.has("completion_tokens") ? u.get("completion_tokens") : u.has("output_tokens") ? u.get("output_tokens") : r.get("output_tokens");
    if (ct != null && !ct.isNull()) {
      if (!ct.canConvertToInt() || ct.asInt() < 0) throw new BadInputException(file, line, "usage.completion_tokens", "not a non-negative integer");
      return ct.asInt();
    }
    JsonNode choices = r.has("choices") ? r.get("choices") : r.path("response").path("choices");
    if (choices.isArray() && !choices.isEmpty() && choices.get(0).has("message")) {
      ChatMessage reply = Messages.openai(choices.get(0).get("message"), file, line, "choices[0].message");
      return b.completionTokens(reply);
    }
    outputMissing++;
    return 0;
  }

  private long fingerprint(ChatMessage m) {
    StringBuilder sb = new StringBuilder(m.content().length() + 64);
    HashSettings.TEMPLATE.message(m, List.of(), new ChatTemplate.Sink() {
      @Override
      public void text(String x) {
        sb.append(x);
      }

      @Override
      public void special(String token) {
        sb.append('\u0000').append(token).append('\u0000');
      }
    });
    return s.key().fingerprint(sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static boolean prefix(long[] a, long[] b) {
    for (int i = 0; i < a.length; i++) if (a[i] != b[i]) return false;
    return true;
  }

  private record CachedPrompt(long[] fp, PromptBuilder builder) {}

  // ---------------------------------------------------------------- ShareGPT conversations

  private void sharegptRecord(JsonNode r, long line) {
    JsonNode turns = r.get("conversations");
    if (turns == null || !turns.isArray()) throw new BadInputException(file, line, "conversations", "missing or not a list");
    List<String> tools = Messages.tools(r.get("tools"), file, line, "tools");
    // validate the whole conversation first: a bad turn skips the conversation, not half of it
    ChatMessage[] m = new ChatMessage[turns.size() + 1];
    int k = 0;
    JsonNode sys = r.get("system");
    if (sys != null && sys.isTextual() && !sys.asText().isEmpty()) m[k++] = ChatMessage.of(ChatMessage.SYSTEM, sys.asText());
    for (int i = 0; i < turns.size(); i++) m[k++] = Messages.sharegpt(turns.get(i), file, line, "conversations[" + i + "]");
    Conversation c = new Conversation(tools, false);
    for (int i = 0; i < k; i++) c.message(m[i]);
  }

  // ---------------------------------------------------------------- SWE-agent trajectories

  /** Scans a trajectory object's fields until its history array (or the object's end). */
  private void trajectoryFields(long line) throws IOException {
    records++;
    trajectoryLine = line;
    sawHistory = false;
    scanToHistory();
  }

  private void scanToHistory() throws IOException {
    JsonToken t;
    while ((t = parser.nextToken()) == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      JsonToken v = parser.nextToken();
      if (name.equals("history")) {
        if (v != JsonToken.START_ARRAY) {
          parser.skipChildren();
          skip(new BadInputException(file, parser.currentLocation().getLineNr(), "history", "not a list"));
          continue;
        }
        inHistory = true;
        sawHistory = true;
        historyIndex = 0;
        sweConv = new Conversation(List.of(), true);
        return;
      }
      parser.skipChildren();
    }
    if (t != JsonToken.END_OBJECT) throw new BadInputException(file, parser.currentLocation().getLineNr(), null, "malformed trajectory");
    if (!sawHistory) skip(new BadInputException(file, trajectoryLine, "history", "missing: the trajectory has no message list"));
  }

  private void historyStep() throws IOException {
    JsonToken t = parser.nextToken();
    if (t == JsonToken.END_ARRAY) {
      inHistory = false;
      sweConv = null;
      scanToHistory(); // the rest of the object (a second history key would be odd but is handled)
      return;
    }
    long line = parser.currentLocation().getLineNr();
    JsonNode msg = parser.readValueAsTree();
    int i = historyIndex++;
    if (sweConv == null) return; // conversation abandoned after a bad message
    try {
      sweConv.message(Messages.openai(msg, file, line, "history[" + i + "]"));
    } catch (BadInputException e) {
      skip(new BadInputException(file, line, e.field(), e.getMessage() + "; the rest of this trajectory is skipped"));
      sweConv = null;
    }
  }

  // ---------------------------------------------------------------- shared conversation logic

  /** A self-contained conversation (ShareGPT, trajectory): one request per assistant message. */
  private final class Conversation {
    final int index;
    final PromptBuilder b = new PromptBuilder(HashSettings.TEMPLATE, tokenizer, s.key(), s.blockSize());
    final List<String> tools;
    final boolean observationsAreTools;
    int assistants;
    String lastRole;
    boolean first = true;

    Conversation(List<String> tools, boolean observationsAreTools) {
      this.index = (int) conversations++;
      syntheticUnits = conversations;
      this.tools = tools;
      this.observationsAreTools = observationsAreTools;
    }

    void message(ChatMessage m) {
      if (m.isAssistant()) {
        if (first && !tools.isEmpty()) b.appendToolsOnly(tools);
        first = false;
        String trigger = lastRole == null ? Canonical.TRIGGER_UNKNOWN : roleTrigger(lastRole);
        // SWE-agent has no human in the loop: a user message after the first action is the
        // environment's observation (the non-function-calling agents send it as role user)
        if (observationsAreTools && assistants > 0 && ChatMessage.USER.equals(lastRole)) trigger = Canonical.TRIGGER_TOOL;
        synthetic++;
        emit("f" + fileIndex + "-c" + index + "-t" + assistants, "f" + fileIndex + "-c" + index, null, assistants,
            trigger, assistants * s.thinkTimeS(), true, index, b, b.completionTokens(m));
        assistants++;
      }
      b.append(m, first ? tools : List.of());
      first = false;
      lastRole = m.role();
    }
  }

  private static String roleTrigger(String role) {
    return switch (role) {
      case ChatMessage.TOOL -> Canonical.TRIGGER_TOOL;
      case ChatMessage.USER -> Canonical.TRIGGER_USER;
      default -> Canonical.TRIGGER_UNKNOWN;
    };
  }

  private void emit(String requestId, String sessionId, String parent, int turn, String trigger, double t,
      boolean synth, long synthIndex, PromptBuilder b, int outputTokens) {
    requests++;
    ready.add(StagingRows.request(requestId, sessionId, parent, turn, trigger, t, synth, synthIndex, b.promptTokens(),
        outputTokens, s.blockSize(), b.promptBlocks(), Canonical.seq(fileIndex, seqCounter++), fileIndex, null));
  }

  private void skip(BadInputException e) {
    skipped++;
    ready.add(StagingRows.skip(Canonical.seq(fileIndex, seqCounter++), fileIndex, e.oneLine()));
  }

  private void finish() {
    if (finished) return;
    finished = true;
    done = true;
    String counters = String.format(Locale.ROOT,
        "{\"file\":%s,\"format\":\"%s\",\"records\":%d,\"conversations\":%d,\"requests\":%d,\"skipped\":%d,"
            + "\"output_tokens_missing\":%d,\"synthetic_arrivals\":%d,\"log_timestamps\":%d,\"requests_without_session\":%d,"
            + "\"synthetic_units\":%d,\"min_log_time_s\":%s}",
        quote(file), format.cliName, records, conversations, requests,
        skipped, outputMissing, synthetic, timestamped, conversationsNoSession, syntheticUnits,
        timestamped == 0 ? "null" : BigDecimal.valueOf(minLogTime).toPlainString());
    ready.add(StagingRows.file(fileIndex, counters));
    close();
  }

  private static String quote(String x) {
    StringBuilder b = new StringBuilder();
    ChatMlTemplate.quote(b, x);
    return b.toString();
  }

  @Override
  public void close() {
    try {
      if (parser != null) parser.close();
      if (lines != null) lines.close();
      if (in != null) in.close();
    } catch (IOException ignored) {
      // closing a read-only stream: nothing to recover
    }
  }

  // ---------------------------------------------------------------- small helpers

  private static String text(JsonNode n, String... keys) {
    for (String k : keys) {
      JsonNode v = n.get(k);
      if (v != null && !v.isNull() && (v.isTextual() || v.isNumber())) return v.asText();
    }
    return null;
  }

  private static JsonNode first(JsonNode n, String... keys) {
    for (String k : keys) {
      JsonNode v = n.get(k);
      if (v != null && !v.isNull()) return v;
    }
    return null;
  }

  /** Epoch seconds from a number (in --timestamp-unit) or an ISO-8601 text (no zone = UTC). */
  private double seconds(JsonNode ts, long line) {
    if (ts.isNumber()) return ts.asDouble() * s.timestampUnitS();
    if (ts.isTextual()) {
      String x = ts.asText().strip();
      try {
        Instant i;
        try {
          i = OffsetDateTime.parse(x).toInstant();
        } catch (DateTimeParseException e) {
          i = LocalDateTime.parse(x.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
        }
        return i.getEpochSecond() + i.getNano() / 1e9;
      } catch (DateTimeParseException e) {
        try {
          return Double.parseDouble(x) * s.timestampUnitS();
        } catch (NumberFormatException e2) {
          throw new BadInputException(file, line, "timestamp", "neither a number nor an ISO-8601 time");
        }
      }
    }
    throw new BadInputException(file, line, "timestamp", "neither a number nor an ISO-8601 time");
  }

  static String hex(long v) {
    return HexFormat.of().toHexDigits(v);
  }
}
