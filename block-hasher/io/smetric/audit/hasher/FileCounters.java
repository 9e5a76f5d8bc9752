package io.smetric.audit.hasher;

import io.smetric.audit.common.BadInputException;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What one log file contributed, counted while it is hashed: records read, conversations,
 * requests, skipped records by kind of reason, what the log lacked and was synthesised, arrivals
 * from the log against synthesised ones. At the end of the file it becomes the JSON of the file's
 * {@code file} row, which HashJob sums into hash-summary.json (docs/block-hasher.md).
 */
final class FileCounters {
  /** Distinct skip reasons counted per file; further ones count under "other reasons". */
  private static final int MAX_REASON_KINDS = 20;
  private static final Pattern DIGITS = Pattern.compile("\\d+");
  private static final Pattern INDEX = Pattern.compile("\\[\\d+]");

  long records;
  long conversations;
  long requests;
  long skipped;
  long outputMissing;
  long synthetic;
  long timestamped;
  long noSession;
  /** Conversations, or records without timestamp: the units synthetic arrivals are spaced by. */
  long syntheticUnits;
  long providerCacheRequests;
  long providerUsageInconsistent;
  /** Requests with recorded routing or latency (trace-model v1.3); in the JSON only when non-zero. */
  long recordedRequests;
  /** Where the records keep their message list (messages format, --messages-path), and who said so; else null. */
  String messagesPath;
  String messagesPathSource;
  private double minLogTime = Double.POSITIVE_INFINITY;
  private final Map<String, Long> reasons = new LinkedHashMap<>();
  /** What was synthesised because the log lacks it: key -> count, and its description. */
  private final Map<String, long[]> notes = new LinkedHashMap<>();
  private final Map<String, String> noteText = new LinkedHashMap<>();

  /** Counts a skipped record under the kind of its reason. */
  void skip(BadInputException e) {
    skipped++;
    String kind = reasonKind(e);
    if (reasons.containsKey(kind) || reasons.size() < MAX_REASON_KINDS) reasons.merge(kind, 1L, Long::sum);
    else reasons.merge("other reasons", 1L, Long::sum);
  }

  /** A skip reason without its place and numbers: what the per-file top-reasons table counts. */
  static String reasonKind(BadInputException e) {
    String field = e.field() == null ? "" : "field '" + INDEX.matcher(e.field()).replaceAll("[]") + "': ";
    return field + DIGITS.matcher(e.getMessage()).replaceAll("N");
  }

  /** Something the log lacks, once per kind with a count; the first description of a kind is kept. */
  void note(String key, String what) {
    notes.computeIfAbsent(key, k -> new long[1])[0]++;
    noteText.putIfAbsent(key, what);
  }

  /** An arrival read from the log (epoch seconds): counted, and the file's earliest kept. */
  double logTime(double t) {
    timestamped++;
    minLogTime = Math.min(minLogTime, t);
    return t;
  }

  /** The file row's JSON: the counters, the skip reasons most frequent first, the formats the file's sample fits. */
  String json(String file, LogFormat format, List<LogFormat> fitting) {
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
    return String.format(Locale.ROOT,
        "{\"file\":%s,\"format\":\"%s\",\"records\":%d,\"conversations\":%d,\"requests\":%d,\"skipped\":%d,"
            + "\"skip_reasons\":%s,\"formats_that_fit\":%s,\"synthesised\":%s,"
            + "\"output_tokens_missing\":%d,\"synthetic_arrivals\":%d,\"log_timestamps\":%d,\"requests_without_session\":%d,"
            + "\"provider_cache_requests\":%d,\"provider_usage_inconsistent\":%d,"
            + "\"synthetic_units\":%d,\"min_log_time_s\":%s%s}",
        quote(file), format.cliName, records, conversations, requests, skipped, reasonJson, fits, noteJson,
        outputMissing, synthetic, timestamped, noSession, providerCacheRequests, providerUsageInconsistent, syntheticUnits,
        timestamped == 0 ? "null" : BigDecimal.valueOf(minLogTime).toPlainString(),
        (messagesPath == null ? "" : ",\"messages_path\":" + quote(messagesPath) + ",\"messages_path_source\":" + quote(messagesPathSource))
            + (recordedRequests == 0 ? "" : ",\"recorded_requests\":" + recordedRequests));
  }

  static String quote(String x) {
    StringBuilder b = new StringBuilder();
    ChatMlTemplate.quote(b, x);
    return b.toString();
  }
}
