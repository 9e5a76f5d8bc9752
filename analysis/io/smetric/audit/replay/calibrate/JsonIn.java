package io.smetric.audit.replay.calibrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;

/** Typed access to a JSON tree whose errors name the file and the field's path. */
final class JsonIn {
  final String file;

  JsonIn(String file) {
    this.file = file;
  }

  BadInputException bad(String path, String msg) {
    return new BadInputException(file, -1, path, msg);
  }

  JsonNode object(JsonNode n, String field, String path) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) throw bad(path + field, "missing");
    if (!v.isObject()) throw bad(path + field, "must be an object");
    return v;
  }

  JsonNode optObject(JsonNode n, String field, String path) {
    JsonNode v = n == null ? null : n.get(field);
    if (v == null || v.isNull()) return null;
    if (!v.isObject()) throw bad(path + field, "must be an object");
    return v;
  }

  /** A number, NaN when absent or null. */
  double num(JsonNode n, String field, String path) {
    JsonNode v = n == null ? null : n.get(field);
    if (v == null || v.isNull()) return Double.NaN;
    if (!v.isNumber()) throw bad(path + field, "must be a number, got " + v);
    double d = v.asDouble();
    if (!Double.isFinite(d)) throw bad(path + field, "must be finite");
    return d;
  }

  /** A number > 0 (Infinity not allowed), null when absent or null. */
  Double optPositive(JsonNode n, String field, String path) {
    double d = num(n, field, path);
    if (Double.isNaN(d)) return null;
    if (d <= 0) throw bad(path + field, "must be > 0, got " + d);
    return d;
  }

  double requiredNum(JsonNode n, String field, String path) {
    double d = num(n, field, path);
    if (Double.isNaN(d)) throw bad(path + field, "missing");
    return d;
  }

  double nonNegative(JsonNode n, String field, String path) {
    double d = num(n, field, path);
    if (d < 0) throw bad(path + field, "must be >= 0, got " + d);
    return d;
  }

  long requiredCount(JsonNode n, String field, String path) {
    double d = requiredNum(n, field, path);
    if (d < 0 || d != Math.rint(d)) throw bad(path + field, "must be a whole number >= 0, got " + d);
    return (long) d;
  }

  Integer optInt(JsonNode n, String field, String path, int min) {
    JsonNode v = n == null ? null : n.get(field);
    if (v == null || v.isNull()) return null;
    if (!v.isIntegralNumber() && !(v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) {
      throw bad(path + field, "must be an integer, got " + v);
    }
    int i = v.asInt();
    if (i < min) throw bad(path + field, "must be >= " + min + ", got " + i);
    return i;
  }

  Long optLong(JsonNode n, String field, String path) {
    JsonNode v = n == null ? null : n.get(field);
    if (v == null || v.isNull()) return null;
    if (!v.isIntegralNumber()) throw bad(path + field, "must be an integer, got " + v);
    return v.asLong();
  }

  Boolean optBool(JsonNode n, String field, String path) {
    JsonNode v = n == null ? null : n.get(field);
    if (v == null || v.isNull()) return null;
    if (!v.isBoolean()) throw bad(path + field, "must be true or false, got " + v);
    return v.asBoolean();
  }

  String optText(JsonNode n, String field) {
    JsonNode v = n == null ? null : n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  String requiredText(JsonNode n, String field, String path) {
    String s = optText(n, field);
    if (s == null || s.isBlank()) throw bad(path + field, "missing");
    return s;
  }

  int[] intArray(JsonNode n, String field, String path) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) return null;
    if (!v.isArray()) throw bad(path + field, "must be an array");
    int[] out = new int[v.size()];
    for (int i = 0; i < out.length; i++) {
      JsonNode e = v.get(i);
      if (e == null || !e.isNumber() || e.asDouble() != Math.rint(e.asDouble()) || e.asDouble() < 0) {
        throw bad(path + field + "[" + i + "]", "must be a whole number >= 0, got " + e);
      }
      out[i] = e.asInt();
    }
    return out;
  }
}
