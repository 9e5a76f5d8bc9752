package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;

/**
 * Small readings every log reader shares: the first present text or node among alternative keys
 * (logs name one field several ways), times as epoch seconds from numbers or ISO-8601 text, the
 * trigger a message's role implies, and the hex form of hashed ids.
 */
final class LogFields {
  private LogFields() {}

  /** The first of {@code keys} holding text or a number, as text; null when none does. */
  static String text(JsonNode n, String... keys) {
    for (String k : keys) {
      JsonNode v = n.get(k);
      if (v != null && !v.isNull() && (v.isTextual() || v.isNumber())) return v.asText();
    }
    return null;
  }

  /** The first of {@code keys} present and not null; null when none is. */
  static JsonNode first(JsonNode n, String... keys) {
    for (String k : keys) {
      JsonNode v = n.get(k);
      if (v != null && !v.isNull()) return v;
    }
    return null;
  }

  /**
   * Epoch seconds from a number (in units of {@code unitS} seconds) or an ISO-8601 text (no zone =
   * UTC); anything else is bad input naming file, line and field.
   */
  static double seconds(JsonNode ts, double unitS, String file, long line, String field) {
    if (ts.isNumber()) return ts.asDouble() * unitS;
    if (ts.isTextual()) {
      Double d = isoSeconds(ts.asText());
      if (d != null) return d;
      try {
        return Double.parseDouble(ts.asText().strip()) * unitS;
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

  /** The trigger of a request whose last prompt message has this role. */
  static String roleTrigger(String role) {
    return switch (role) {
      case ChatMessage.TOOL -> Canonical.TRIGGER_TOOL;
      case ChatMessage.USER -> Canonical.TRIGGER_USER;
      default -> Canonical.TRIGGER_UNKNOWN;
    };
  }

  /** A hashed id as 16 hex digits. */
  static String hex(long v) {
    return HexFormat.of().toHexDigits(v);
  }
}
