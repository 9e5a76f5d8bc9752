package io.smetric.audit.ingest;

import io.smetric.audit.common.CsvLine;
import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * CSV with a header line, in one of two layouts chosen by the header: the Azure LLM inference
 * trace ({@code TIMESTAMP,ContextTokens,GeneratedTokens}: arrivals and lengths only, wall-clock
 * timestamps re-based later to the first request) or the canonical columns by name, with
 * {@code blocks} (or {@code hash_ids}) as space-separated integer ids. RFC 4180 quoting within a
 * line is supported; records spanning lines are not (no trace format needs them).
 */
final class CsvRecordParser implements RecordParser {
  static final List<String> AZURE = List.of("TIMESTAMP", "ContextTokens", "GeneratedTokens");
  private static final List<String> CANONICAL_REQUIRED =
      List.of(Canonical.REQUEST_ID, Canonical.ARRIVAL_S, Canonical.INPUT_TOKENS, Canonical.OUTPUT_TOKENS);

  private static final DateTimeFormatter AZURE_TS =
      new DateTimeFormatterBuilder()
          .appendPattern("yyyy-MM-dd HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .toFormatter(Locale.ROOT);

  private final Integer blockSizeOverride;
  private final String idPrefix;
  private final long originUs;
  private Map<String, Integer> col;
  private boolean azure;
  private int columns;

  CsvRecordParser(TraceFormat.ParseContext c) {
    this.blockSizeOverride = c.blockSizeOverride();
    this.idPrefix = c.idPrefix();
    this.originUs = c.originUs();
  }

  /** Epoch microseconds of an Azure TIMESTAMP value, or null if it does not parse. */
  static Long azureMicros(String ts) {
    try {
      LocalDateTime t = LocalDateTime.parse(ts.strip(), AZURE_TS);
      return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  @Override
  public boolean hasHeader() {
    return true;
  }

  @Override
  public String header(String line) {
    List<String> h = split(line.strip());
    if (h == null) return "header line has an unclosed quote";
    col = new HashMap<>();
    for (int i = 0; i < h.size(); i++) col.put(h.get(i).strip(), i);
    columns = h.size();
    azure = col.keySet().containsAll(AZURE);
    if (azure) return null;
    for (String r : CANONICAL_REQUIRED) {
      if (!col.containsKey(r)) {
        return "CSV header has neither the Azure columns " + AZURE + " nor the canonical column '" + r + "'";
      }
    }
    return null;
  }

  boolean isAzure() {
    return azure;
  }

  @Override
  public void parse(byte[] line, int len, long index, Staged s) {
    List<String> f = split(new String(line, 0, len, StandardCharsets.UTF_8));
    if (f == null) {
      s.fail(Reasons.MALFORMED_CSV, null, "unclosed quote");
      return;
    }
    if (f.size() != columns) {
      s.fail(Reasons.MALFORMED_CSV, null, "expected " + columns + " fields, found " + f.size());
      return;
    }
    if (azure) parseAzure(f, index, s);
    else parseCanonical(f, s);
  }

  private void parseAzure(List<String> f, long index, Staged s) {
    s.requestId = idPrefix + index;
    s.trigger = Canonical.TRIGGER_UNKNOWN;
    String ts = f.get(col.get("TIMESTAMP")).strip();
    Long us = azureMicros(ts);
    if (us == null) {
      s.fail(Reasons.BAD_TIMESTAMP, "TIMESTAMP", "not a 'yyyy-MM-dd HH:mm:ss[.fraction]' time: \"" + ts + "\"");
      return;
    }
    if (us < originUs) {
      s.fail(Reasons.BAD_TIMESTAMP, "TIMESTAMP", ts + " is before the trace origin (the minute of the first input record)");
      return;
    }
    s.tsAbsUs = us;
    // re-based on the whole minute of the first record: small exact numbers, wall-clock minutes kept
    s.arrivalS = (us - originUs) / 1e6;
    s.inputTokens = nonNegative(f.get(col.get("ContextTokens")), "ContextTokens", s);
    if (!s.ok()) return;
    s.outputTokens = nonNegative(f.get(col.get("GeneratedTokens")), "GeneratedTokens", s);
  }

  private void parseCanonical(List<String> f, Staged s) {
    s.requestId = text(f, Canonical.REQUEST_ID);
    if (s.requestId == null) {
      s.fail(Reasons.MISSING_FIELD, Canonical.REQUEST_ID, "empty id");
      return;
    }
    s.sessionId = text(f, Canonical.SESSION_ID);
    s.parentId = text(f, Canonical.PARENT_ID);
    String turn = text(f, Canonical.TURN);
    if (turn != null) {
      long t = nonNegative(turn, Canonical.TURN, s);
      if (!s.ok()) return;
      s.turn = (int) t;
    }
    String trig = text(f, Canonical.TRIGGER);
    s.trigger = trig == null ? Canonical.TRIGGER_UNKNOWN : trig;
    String arr = text(f, Canonical.ARRIVAL_S);
    if (arr == null) {
      s.fail(Reasons.MISSING_FIELD, Canonical.ARRIVAL_S, "empty");
      return;
    }
    try {
      double a = Double.parseDouble(arr);
      if (Double.isNaN(a) || Double.isInfinite(a) || a < 0) {
        s.fail(Reasons.BAD_TIMESTAMP, Canonical.ARRIVAL_S, "timestamp " + arr + " is not a finite number >= 0");
        return;
      }
      s.arrivalS = a;
    } catch (NumberFormatException e) {
      s.fail(Reasons.BAD_TYPE, Canonical.ARRIVAL_S, "not a number: \"" + arr + "\"");
      return;
    }
    s.inputTokens = nonNegative(text(f, Canonical.INPUT_TOKENS), Canonical.INPUT_TOKENS, s);
    if (!s.ok()) return;
    s.outputTokens = nonNegative(text(f, Canonical.OUTPUT_TOKENS), Canonical.OUTPUT_TOKENS, s);
    if (!s.ok()) return;
    s.requestType = text(f, Canonical.REQUEST_TYPE);
    String pin = text(f, Canonical.PROVIDER_INPUT_TOKENS);
    if (pin != null) s.providerInputTokens = (int) Math.min(Integer.MAX_VALUE, nonNegative(pin, Canonical.PROVIDER_INPUT_TOKENS, s));
    String pc = text(f, Canonical.PROVIDER_CACHED_TOKENS);
    if (pc != null) s.providerCachedTokens = (int) Math.min(Integer.MAX_VALUE, nonNegative(pc, Canonical.PROVIDER_CACHED_TOKENS, s));
    String pw = text(f, Canonical.PROVIDER_CACHE_WRITE_TOKENS);
    if (pw != null) s.providerCacheWriteTokens = (int) Math.min(Integer.MAX_VALUE, nonNegative(pw, Canonical.PROVIDER_CACHE_WRITE_TOKENS, s));
    s.providerCache = text(f, Canonical.PROVIDER_CACHE);
    if (!s.ok() || !s.checkProviderCache()) return;
    s.servedInstance = text(f, Canonical.SERVED_INSTANCE);
    s.outcome = text(f, Canonical.OUTCOME);
    s.ttftS = seconds(f, Canonical.TTFT_S, s);
    s.e2eS = seconds(f, Canonical.E2E_S, s);
    s.firstTokenS = seconds(f, Canonical.FIRST_TOKEN_S, s);
    s.finishS = seconds(f, Canonical.FINISH_S, s);
    if (!s.ok() || !s.checkRecorded()) return;
    String bs = text(f, Canonical.BLOCK_SIZE);
    if (bs != null) {
      long b = nonNegative(bs, Canonical.BLOCK_SIZE, s);
      if (!s.ok()) return;
      if (b == 0 || b > 1 << 20) {
        s.fail(Reasons.BAD_VALUE, Canonical.BLOCK_SIZE, "block_size " + b + " is not in 1..1048576");
        return;
      }
      s.blockSize = (int) b;
    }
    if (blockSizeOverride != null) s.blockSize = blockSizeOverride;
    String blocks = text(f, col.containsKey(Canonical.BLOCKS) ? Canonical.BLOCKS : "hash_ids");
    if (blocks != null) {
      s.hasBlocks = true;
      for (String tok : blocks.trim().split("[ ;|]+")) {
        try {
          s.blocks.add(Long.parseLong(tok));
        } catch (NumberFormatException e) {
          s.blocks.add(JsonRecordParser.hashString(tok));
        }
      }
      if (s.blockSize == null) {
        s.fail(Reasons.MISSING_FIELD, Canonical.BLOCK_SIZE, "record has block ids but no block_size (pass --block-size)");
        return;
      }
      BlockChain.chainInPlace(s.blocks.elements(), s.blocks.size());
    } else {
      s.blockSize = null;
    }
  }

  /** An optional number of seconds (null when the column is absent or empty). */
  private Double seconds(List<String> f, String name, Staged s) {
    String x = text(f, name);
    if (x == null) return null;
    try {
      double v = Double.parseDouble(x);
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        s.fail(Reasons.BAD_VALUE, name, name + " " + x + " is not a finite number");
        return null;
      }
      return v;
    } catch (NumberFormatException e) {
      s.fail(Reasons.BAD_TYPE, name, "not a number: \"" + x + "\"");
      return null;
    }
  }

  private String text(List<String> f, String name) {
    Integer i = col.get(name);
    if (i == null) return null;
    String v = f.get(i).strip();
    return v.isEmpty() ? null : v;
  }

  private static long nonNegative(String v, String field, Staged s) {
    if (v == null) {
      s.fail(Reasons.MISSING_FIELD, field, "empty");
      return 0;
    }
    try {
      long x = Long.parseLong(v.strip());
      if (x < 0) s.fail(Reasons.NEGATIVE_VALUE, field, field + " " + x + " < 0");
      else if (x > Integer.MAX_VALUE) s.fail(Reasons.BAD_VALUE, field, field + " " + x + " is too large");
      return x;
    } catch (NumberFormatException e) {
      s.fail(Reasons.BAD_TYPE, field, "not an integer: \"" + v.strip() + "\"");
      return 0;
    }
  }

  /** Splits one CSV line (RFC 4180 quotes); null on an unclosed quote. */
  static List<String> split(String line) {
    return CsvLine.split(line);
  }
}
