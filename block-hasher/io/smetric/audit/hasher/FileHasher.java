package io.smetric.audit.hasher;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.model.Canonical;
import io.smetric.audit.model.TraceRecord;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
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
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.spark.sql.Row;

/**
 * Hashes one log file as a stream of staging rows ({@link StagingRows}); the Spark job runs one
 * per file. The file's format (given, or detected from a sample of its first records) picks a
 * {@link LogReader}, which streams the file and reports requests, skipped records and what it had
 * to synthesise back here. This class holds what every format shares: the conversation logic (one
 * request per assistant message, prompts built incrementally), request emission, arrival times,
 * skip accounting and the per-file counters. A record that cannot be used becomes a {@code skip}
 * row whose reason names file, line and field; the file ends with one {@code file} row of counters.
 */
public final class FileHasher implements Iterator<Row>, Closeable {
  /** Distinct skip reasons counted per file; further ones count under "other reasons". */
  private static final int MAX_REASON_KINDS = 20;
  private static final Pattern DIGITS = Pattern.compile("\\d+");
  private static final Pattern INDEX = Pattern.compile("\\[\\d+]");

  final HashSettings s;
  private final int fileIndex;
  private final String file;
  final ChatTokenizer tokenizer;
  private final ArrayDeque<Row> ready = new ArrayDeque<>();
  private final List<LogFormat> fitting;

  private final LogFormat format;
  private InputStream in;
  private boolean startsWithArray;
  private LogReader reader;
  private boolean done;
  private boolean finished;

  // counters for the file row
  private long records, conversations, requests, skipped, outputMissing, synthetic, timestamped, noSession;
  private long seqCounter;
  /** Conversations, or records without timestamp: the units synthetic arrivals are spaced by. */
  private long syntheticUnits;
  private double minLogTime = Double.POSITIVE_INFINITY;
  private final Map<String, Long> reasons = new LinkedHashMap<>();
  /** What was synthesised because the log lacks it: key -> (description, count). */
  private final Map<String, long[]> notes = new LinkedHashMap<>();
  private final Map<String, String> noteText = new LinkedHashMap<>();
  private long providerCacheRequests;
  private long providerUsageInconsistent;

  public FileHasher(HashSettings settings, int fileIndex, String uri, Configuration conf) {
    this.s = settings;
    this.fileIndex = fileIndex;
    this.file = uri;
    this.tokenizer = settings.tokenizer().open(HashSettings.TEMPLATE);
    try {
      LogSample sample;
      try {
        sample = LogSample.read(uri, conf);
      } catch (BadInputException e) {
        if (settings.format() == LogFormat.AUTO) throw e;
        sample = LogSample.EMPTY; // the named format's reader reports the broken records itself
      }
      this.fitting = LogFormat.fitting(sample);
      LogFormat f = settings.format();
      if (f == LogFormat.AUTO) {
        if (sample.isEmpty()) {
          f = LogFormat.OPENAI; // an empty file: nothing to read, any reader says so
        } else if (fitting.isEmpty()) {
          throw new BadInputException(uri, Math.max(1, sample.firstLine), null, "cannot detect the log format: the first record's keys "
              + sample.firstKeys() + " fit none of: " + describeFormats() + "; use --log-format");
        } else {
          f = fitting.get(0);
        }
      }
      this.format = f;
      Path p = new Path(uri);
      InputStream raw = p.getFileSystem(conf).open(p);
      CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(p);
      PushbackInputStream pb = new PushbackInputStream(codec == null ? raw : codec.createInputStream(raw), 1);
      this.in = pb;
      int c;
      do {
        c = pb.read();
      } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF);
      if (c < 0) {
        finish();
        return;
      }
      pb.unread(c);
      startsWithArray = c == '[';
      this.reader = format.factory.open(this);
    } catch (java.io.FileNotFoundException e) {
      throw new BadInputException(uri, "file not found");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + uri + ": " + e.getMessage(), e);
    }
  }

  private static String describeFormats() {
    StringBuilder b = new StringBuilder();
    for (LogFormat f : LogFormat.values()) {
      if (f == LogFormat.AUTO) continue;
      if (b.length() > 0) b.append("; ");
      b.append(f.cliName).append(" (").append(f.looksLike).append(')');
    }
    return b.toString();
  }

  /**
   * The raw-log format of a file from a sample of its first records, or null when it fits none of
   * them (e.g. a hashed trace). Used by the audit to tell raw logs from traces.
   */
  public static LogFormat sniff(String file, Configuration conf) throws IOException {
    List<LogFormat> f = LogFormat.fitting(LogSample.read(file, conf));
    return f.isEmpty() ? null : f.get(0);
  }

  public LogFormat format() {
    return format;
  }

  // ---------------------------------------------------------------- what readers use

  String file() {
    return file;
  }

  int fileIndex() {
    return fileIndex;
  }

  InputStream input() {
    return in;
  }

  boolean startsWithArray() {
    return startsWithArray;
  }

  HashKey key() {
    return s.key();
  }

  long records() {
    return records;
  }

  long skipped() {
    return skipped;
  }

  void countRecord() {
    records++;
  }

  /** A record (or the rest of a conversation) that cannot be used, with its reason. */
  void skip(BadInputException e) {
    skipped++;
    String kind = reasonKind(e);
    if (reasons.containsKey(kind) || reasons.size() < MAX_REASON_KINDS) reasons.merge(kind, 1L, Long::sum);
    else reasons.merge("other reasons", 1L, Long::sum);
    ready.add(StagingRows.skip(Canonical.seq(fileIndex, seqCounter++), fileIndex, e.oneLine()));
  }

  /** A skip reason without its place and numbers: what the per-file top-reasons table counts. */
  static String reasonKind(BadInputException e) {
    String field = e.field() == null ? "" : "field '" + INDEX.matcher(e.field()).replaceAll("[]") + "': ";
    return field + DIGITS.matcher(e.getMessage()).replaceAll("N");
  }

  /**
   * Records that the log lacks something the format needs and what was put in its place, once per
   * kind with a count (summary per file, and the console).
   */
  void note(String key, String what) {
    notes.computeIfAbsent(key, k -> new long[1])[0]++;
    noteText.putIfAbsent(key, what);
  }

  void providerUsageInconsistent() {
    providerUsageInconsistent++;
  }

  PromptBuilder newPrompt() {
    return new PromptBuilder(HashSettings.TEMPLATE, tokenizer, s.key(), s.blockSize());
  }

  /** When a request arrived: a log time (epoch seconds), or null to synthesise one. */
  record RequestMeta(Double arrivalS, TraceRecord.ProviderCache cache, Integer outputTokens, String requestIdRaw) {
    static final RequestMeta NONE = new RequestMeta(null, null, null, null);
  }

  /**
   * Emits a self-contained record's request (OpenAI requests, spans): {@code b} holds its whole
   * prompt. A null arrival is synthesised: the i-th such record of the run arrives at i * gap.
   */
  void emitRecord(String requestId, String sessionId, String parent, int turn, String trigger, RequestMeta meta,
      PromptBuilder b, int outputTokens) {
    double t;
    boolean synth;
    long synthIndex = -1;
    if (meta.arrivalS() != null) {
      t = logTime(meta.arrivalS());
      synth = false;
    } else {
      t = 0; // placed by HashJob: (untimestamped records before this file + index) * session gap
      synth = true;
      synthIndex = syntheticUnits++;
      synthetic++;
    }
    if (sessionId == null) noSession++;
    emit(requestId, sessionId, parent, turn, trigger, t, synth, synthIndex, b, outputTokens, meta.cache());
  }

  private double logTime(double t) {
    timestamped++;
    minLogTime = Math.min(minLogTime, t);
    return t;
  }

  private void emit(String requestId, String sessionId, String parent, int turn, String trigger, double t,
      boolean synth, long synthIndex, PromptBuilder b, int outputTokens, TraceRecord.ProviderCache cache) {
    requests++;
    if (cache != null) providerCacheRequests++;
    ready.add(StagingRows.request(requestId, sessionId, parent, turn, trigger, t, synth, synthIndex, b.promptTokens(),
        outputTokens, s.blockSize(), b.promptBlocks(), Canonical.seq(fileIndex, seqCounter++), fileIndex, cache));
  }

  void outputTokensMissing() {
    outputMissing++;
  }

  void conversationWithoutSession() {
    noSession++;
  }

  /**
   * A self-contained conversation (ShareGPT, trajectories, session logs): one request per assistant
   * message, whose prompt is everything before it. {@code sessionRaw} is the log's session id
   * (hashed into the session id) or null for {@code f{file}-c{k}}; {@code firstTurn} continues a
   * session's turn count across conversations (a session log after compaction).
   */
  final class Conversation {
    final int index;
    final PromptBuilder b = newPrompt();
    private final List<String> tools;
    private final boolean observationsAreTools;
    private final String sessionId;
    private final String firstTrigger;
    private int turn;
    private int assistants;
    private String lastRole;
    private boolean first = true;

    Conversation(List<String> tools, boolean observationsAreTools) {
      this(tools, observationsAreTools, null, 0, null);
    }

    Conversation(List<String> tools, boolean observationsAreTools, String sessionRaw, int firstTurn, String firstTrigger) {
      this.index = (int) conversations++;
      syntheticUnits = conversations;
      this.tools = tools;
      this.observationsAreTools = observationsAreTools;
      this.sessionId = sessionRaw == null ? "f" + fileIndex + "-c" + index : "s" + hex(s.key().id(sessionRaw));
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
        String trigger = lastRole == null ? Canonical.TRIGGER_UNKNOWN : roleTrigger(lastRole);
        // an agent without a human in the loop: a user message after the first action is the
        // environment's observation (non-function-calling agents send it as role user)
        if (observationsAreTools && assistants > 0 && ChatMessage.USER.equals(lastRole)) trigger = Canonical.TRIGGER_TOOL;
        if (turn == 0 && firstTrigger != null) trigger = firstTrigger;
        int out = b.completionTokens(m);
        if (meta.outputTokens() != null) out = meta.outputTokens();
        double t;
        boolean synth;
        if (meta.arrivalS() != null) {
          t = logTime(meta.arrivalS());
          synth = false;
        } else {
          t = assistants * s.thinkTimeS();
          synth = true;
          synthetic++;
        }
        String rid = meta.requestIdRaw() != null ? "r" + hex(s.key().id(meta.requestIdRaw()))
            : "f" + fileIndex + "-c" + index + "-t" + assistants;
        emit(rid, sessionId, null, turn, trigger, t, synth, index, b, out, meta.cache());
        assistants++;
        turn++;
      }
      b.append(m, first ? tools : List.of());
      first = false;
      lastRole = m.role();
    }
  }

  static String roleTrigger(String role) {
    return switch (role) {
      case ChatMessage.TOOL -> Canonical.TRIGGER_TOOL;
      case ChatMessage.USER -> Canonical.TRIGGER_USER;
      default -> Canonical.TRIGGER_UNKNOWN;
    };
  }

  // ---------------------------------------------------------------- the row stream

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

  private void advance() {
    try {
      if (!reader.step()) {
        reader.end();
        finish();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private void finish() {
    if (finished) return;
    finished = true;
    done = true;
    StringBuilder reasonJson = new StringBuilder("{");
    reasons.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).forEach(e -> {
      if (reasonJson.length() > 1) reasonJson.append(',');
      reasonJson.append(quote(e.getKey())).append(':').append(e.getValue());
    });
    reasonJson.append('}');
    StringBuilder noteJson = new StringBuilder("{");
    for (Map.Entry<String, long[]> e : notes.entrySet()) {
      if (noteJson.length() > 1) noteJson.append(',');
      noteJson.append(quote(e.getKey())).append(":{\"count\":").append(e.getValue()[0]).append(",\"what\":")
          .append(quote(noteText.get(e.getKey()))).append('}');
    }
    noteJson.append('}');
    StringBuilder fits = new StringBuilder("[");
    for (LogFormat f : fitting) {
      if (fits.length() > 1) fits.append(',');
      fits.append(quote(f.cliName));
    }
    fits.append(']');
    String counters = String.format(Locale.ROOT,
        "{\"file\":%s,\"format\":\"%s\",\"records\":%d,\"conversations\":%d,\"requests\":%d,\"skipped\":%d,"
            + "\"skip_reasons\":%s,\"formats_that_fit\":%s,\"synthesised\":%s,"
            + "\"output_tokens_missing\":%d,\"synthetic_arrivals\":%d,\"log_timestamps\":%d,\"requests_without_session\":%d,"
            + "\"provider_cache_requests\":%d,\"provider_usage_inconsistent\":%d,"
            + "\"synthetic_units\":%d,\"min_log_time_s\":%s}",
        quote(file), format.cliName, records, conversations, requests, skipped, reasonJson, fits, noteJson,
        outputMissing, synthetic, timestamped, noSession, providerCacheRequests, providerUsageInconsistent, syntheticUnits,
        timestamped == 0 ? "null" : BigDecimal.valueOf(minLogTime).toPlainString());
    ready.add(StagingRows.file(fileIndex, counters));
    close();
  }

  static String quote(String x) {
    StringBuilder b = new StringBuilder();
    ChatMlTemplate.quote(b, x);
    return b.toString();
  }

  @Override
  public void close() {
    try {
      if (reader != null) reader.close();
      if (in != null) in.close();
    } catch (IOException ignored) {
      // closing a read-only stream: nothing to recover
    }
  }

  // ---------------------------------------------------------------- small helpers for readers

  static String text(com.fasterxml.jackson.databind.JsonNode n, String... keys) {
    for (String k : keys) {
      com.fasterxml.jackson.databind.JsonNode v = n.get(k);
      if (v != null && !v.isNull() && (v.isTextual() || v.isNumber())) return v.asText();
    }
    return null;
  }

  static com.fasterxml.jackson.databind.JsonNode first(com.fasterxml.jackson.databind.JsonNode n, String... keys) {
    for (String k : keys) {
      com.fasterxml.jackson.databind.JsonNode v = n.get(k);
      if (v != null && !v.isNull()) return v;
    }
    return null;
  }

  /** Epoch seconds from a number (in --timestamp-unit) or an ISO-8601 text (no zone = UTC). */
  double seconds(com.fasterxml.jackson.databind.JsonNode ts, long line, String field) {
    if (ts.isNumber()) return ts.asDouble() * s.timestampUnitS();
    if (ts.isTextual()) {
      Double d = isoSeconds(ts.asText());
      if (d != null) return d;
      try {
        return Double.parseDouble(ts.asText().strip()) * s.timestampUnitS();
      } catch (NumberFormatException e2) {
        throw new BadInputException(file, line, field, "neither a number nor an ISO-8601 time");
      }
    }
    throw new BadInputException(file, line, field, "neither a number nor an ISO-8601 time");
  }

  /** Epoch seconds of an ISO-8601 time (with or without zone; none = UTC), or null. */
  static Double isoSeconds(String text) {
    String x = text.strip();
    try {
      Instant i;
      try {
        i = OffsetDateTime.parse(x).toInstant();
      } catch (DateTimeParseException e) {
        i = LocalDateTime.parse(x.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
      }
      return i.getEpochSecond() + i.getNano() / 1e9;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  static String hex(long v) {
    return HexFormat.of().toHexDigits(v);
  }
}
