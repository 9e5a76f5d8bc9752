package io.smetric.audit.hasher;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.HashSummary;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
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
    Map<String, Long> byCount = new LinkedHashMap<>();
    reasons.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> byCount.put(e.getKey(), e.getValue()));
    Map<String, HashSummary.Note> synthesised = new LinkedHashMap<>();
    for (Map.Entry<String, long[]> e : notes.entrySet()) {
      synthesised.put(e.getKey(), new HashSummary.Note(e.getValue()[0], noteText.get(e.getKey())));
    }
    HashSummary.FileEntry f = new HashSummary.FileEntry(file, format.cliName, records, conversations, requests, skipped,
        byCount, fitting.stream().map(x -> x.cliName).toList(), synthesised, outputMissing, synthetic, timestamped, noSession,
        providerCacheRequests, providerUsageInconsistent, syntheticUnits, timestamped == 0 ? null : minLogTime,
        messagesPath, messagesPath == null ? null : messagesPathSource, recordedRequests == 0 ? null : recordedRequests);
    try {
      return Json.MAPPER.writeValueAsString(f);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
