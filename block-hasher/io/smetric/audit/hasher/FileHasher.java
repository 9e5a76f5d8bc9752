package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;

/**
 * Hashes one log file as a stream of staging rows ({@link StagingRows}); the Spark job runs one
 * per file. The file's format (given, or detected from a sample of its first records:
 * {@link LogFormat#resolve}) picks a {@link LogReader}, one class per format, which streams the
 * file ({@link LogInput}) and reports requests, skipped records and what it had to synthesise back
 * here. This class emits the request rows and places arrivals; a self-contained conversation is
 * built by {@link Conversation}, the per-file accounting is {@link FileCounters}, field readings
 * shared by the readers are {@link LogFields}. A record that cannot be used becomes a {@code skip}
 * row whose reason names file, line and field; the file ends with one {@code file} row of counters.
 */
public final class FileHasher implements Iterator<Row>, Closeable {
  private final HashSettings s;
  private final int fileIndex;
  private final String file;
  private final ChatTokenizer tokenizer;
  private final ArrayDeque<Row> ready = new ArrayDeque<>();
  private final List<LogFormat> fitting;
  private final FileCounters n = new FileCounters();

  private final LogFormat format;
  /** Where the records keep their message list (MESSAGES, or OPENAI with --messages-path); else null. */
  private final String messagesPath;
  private LogInput in;
  private LogReader reader;
  private boolean done;
  private boolean finished;
  private long seqCounter;

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
      this.format = LogFormat.resolve(settings.format(), sample, uri, settings.messagesPath());
      this.messagesPath = messagesPath(settings, format, sample, uri);
      if (messagesPath != null) {
        n.messagesPath = messagesPath;
        n.messagesPathSource = settings.messagesPath() != null ? "--messages-path" : "detected";
      }
      this.in = LogInput.open(uri, conf);
      if (in.empty()) {
        finish();
        return;
      }
      this.reader = format.factory.open(this);
    } catch (java.io.FileNotFoundException e) {
      throw new BadInputException(uri, "file not found");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + uri + ": " + e.getMessage(), e);
    }
  }

  /**
   * The message list's path: --messages-path when given, else (MESSAGES) the one list the sampled
   * records hold; none or several is bad input naming them, as the detection error does.
   */
  private static String messagesPath(HashSettings s, LogFormat format, LogSample sample, String uri) {
    if (s.messagesPath() != null) {
      if (format != LogFormat.MESSAGES && format != LogFormat.OPENAI) {
        throw new io.smetric.audit.common.UsageException("--messages-path works with --log-format auto, messages or openai, not "
            + format.cliName);
      }
      return s.messagesPath().strip();
    }
    if (format != LogFormat.MESSAGES || sample.isEmpty()) return null;
    List<String> paths = sample.messagePaths();
    if (paths.size() == 1) return paths.get(0);
    throw new BadInputException(uri, Math.max(1, sample.firstLine), null, paths.isEmpty()
        ? "no record holds a list of {role, content} messages within " + LogSample.MAX_PATH_DEPTH + " keys: name it with --messages-path"
        : "the records hold several lists of {role, content} messages (" + sample.messagePathsByRecord()
            + "); name the one to read with --messages-path, e.g. --messages-path " + paths.get(0));
  }

  /** The format this file is read as. */
  public LogFormat format() {
    return format;
  }

  /** Where this file's records keep their message list, or null (formats with their own keys). */
  String messagesPath() {
    return messagesPath;
  }

  // ---------------------------------------------------------------- what readers use

  String file() {
    return file;
  }

  int fileIndex() {
    return fileIndex;
  }

  HashSettings settings() {
    return s;
  }

  InputStream input() {
    return in.stream();
  }

  boolean startsWithArray() {
    return in.startsWithArray();
  }

  HashKey key() {
    return s.key();
  }

  FileCounters counters() {
    return n;
  }

  long records() {
    return n.records;
  }

  long skipped() {
    return n.skipped;
  }

  void countRecord() {
    n.records++;
  }

  /** A record (or the rest of a conversation) that cannot be used, with its reason. */
  void skip(BadInputException e) {
    n.skip(e);
    ready.add(StagingRows.skip(Canonical.seq(fileIndex, seqCounter++), fileIndex, e.oneLine()));
  }

  /**
   * Records that the log lacks something the format needs and what was put in its place, once per
   * kind with a count (summary per file, and the console).
   */
  void note(String key, String what) {
    n.note(key, what);
  }

  void providerUsageInconsistent() {
    n.providerUsageInconsistent++;
  }

  void outputTokensMissing() {
    n.outputMissing++;
  }

  void conversationWithoutSession() {
    n.noSession++;
  }

  PromptBuilder newPrompt() {
    return new PromptBuilder(HashSettings.TEMPLATE, tokenizer, s.key(), s.blockSize());
  }

  /** Epoch seconds from a log time: a number in --timestamp-unit or ISO-8601 text (no zone = UTC). */
  double seconds(JsonNode ts, long line, String field) {
    return LogFields.seconds(ts, s.timestampUnitS(), file, line, field);
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
      t = n.logTime(meta.arrivalS());
      synth = false;
    } else {
      t = 0; // placed by HashJob: (untimestamped records before this file + index) * session gap
      synth = true;
      synthIndex = n.syntheticUnits++;
      n.synthetic++;
    }
    if (sessionId == null) n.noSession++;
    emit(requestId, sessionId, parent, turn, trigger, t, synth, synthIndex, b, outputTokens, meta.cache(), meta.recorded());
  }

  /** One request row (a conversation's, or a record's through {@link #emitRecord}). */
  void emit(String requestId, String sessionId, String parent, int turn, String trigger, double t,
      boolean synth, long synthIndex, PromptBuilder b, int outputTokens, TraceRecord.ProviderCache cache,
      TraceRecord.Recorded recorded) {
    n.requests++;
    if (cache != null) n.providerCacheRequests++;
    if (recorded != null) n.recordedRequests++;
    ready.add(StagingRows.request(requestId, sessionId, parent, turn, trigger, t, synth, synthIndex, b.promptTokens(),
        outputTokens, s.blockSize(), b.promptBlocks(), Canonical.seq(fileIndex, seqCounter++), fileIndex, cache, recorded));
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
    ready.add(StagingRows.file(fileIndex, n.json(file, format, fitting)));
    close();
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
}
