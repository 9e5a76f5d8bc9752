package io.smetric.audit.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.smetric.audit.common.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Detects a file's format from its name and its first non-blank line: Parquet by extension or
 * magic, CSV by extension or a comma-separated header, and among JSONL formats by their
 * distinctive field names (Bailian {@code chat_id}, SMetric {@code request_id}, Mooncake
 * {@code timestamp} with {@code input_length}).
 */
final class FormatDetector {
  private FormatDetector() {}

  /**
   * Result of probing a file: its format (null for a file with no non-blank line), the number of
   * its first non-blank line, and that line's text when it is short (a CSV header; null if over
   * 1 MiB), which tasks reading later byte ranges of the file need.
   */
  record Probe(TraceFormat format, long firstLine, String firstText) {
    Probe(TraceFormat format, long firstLine) {
      this(format, firstLine, null);
    }
  }

  private static final int MAX_HEADER_TEXT = 1 << 20;

  static Probe detect(Path file, Configuration conf, int maxLineBytes) {
    String name = file.getName().toLowerCase(Locale.ROOT);
    if (name.endsWith(".parquet")) return new Probe(TraceFormat.PARQUET, 1);
    try (InputStream in = InputFiles.open(file, conf)) {
      LineReader r = new LineReader(in, maxLineBytes);
      while (r.next()) {
        if (r.blank()) continue;
        String line = new String(r.bytes(), 0, Math.min(r.length(), 65536), StandardCharsets.UTF_8).strip();
        if (line.startsWith("PAR1")) return new Probe(TraceFormat.PARQUET, 1);
        String stem = name.endsWith(".gz") ? name.substring(0, name.length() - 3) : name;
        String text = r.tooLong() || r.length() > MAX_HEADER_TEXT ? null
            : new String(r.bytes(), 0, r.length(), StandardCharsets.UTF_8);
        if (stem.endsWith(".csv")) return new Probe(TraceFormat.CSV, r.lineNumber(), text);
        if (line.startsWith("{")) {
          Set<String> keys = topLevelKeys(line);
          if (keys.contains("chat_id") || keys.contains("parent_chat_id")) return new Probe(TraceFormat.BAILIAN, r.lineNumber(), text);
          if (keys.contains("request_id")) return new Probe(TraceFormat.SMETRIC, r.lineNumber(), text);
          if (keys.contains("timestamp") && (keys.contains("input_length") || keys.contains("hash_ids"))) {
            return new Probe(TraceFormat.MOONCAKE, r.lineNumber(), text);
          }
          throw new BadInputException(file.toString(), r.lineNumber(), null,
              "cannot detect the trace format from the fields " + new java.util.TreeSet<>(keys)
                  + " (expected request_id, chat_id or timestamp+input_length); pass --format");
        }
        if (line.contains(",") && !line.startsWith("[")) return new Probe(TraceFormat.CSV, r.lineNumber(), text);
        throw new BadInputException(file.toString(), r.lineNumber(), null,
            "unknown format: the first line is neither a JSON object nor a CSV header; pass --format");
      }
      if (r.streamError() != null) {
        throw new BadInputException(file.toString(), r.lineNumber() + 1, null, r.streamError());
      }
      return new Probe(null, 0);
    } catch (IOException e) {
      throw new BadInputException(file.toString(), "cannot read: " + e.getMessage());
    }
  }

  private static Set<String> topLevelKeys(String line) {
    Set<String> keys = new HashSet<>();
    try (JsonParser p = new JsonFactory().createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) return keys;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        keys.add(p.currentName());
        p.nextToken();
        p.skipChildren();
      }
    } catch (IOException e) {
      // a malformed first line: judge by the keys read so far
    }
    return keys;
  }
}
