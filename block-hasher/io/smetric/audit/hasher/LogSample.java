package io.smetric.audit.hasher;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

/**
 * The first records of a log file, read shallowly for format detection: up to {@link #MAX_RECORDS}
 * root values (JSONL lines, the elements of a top-level array, or one whole document), each kept
 * two levels deep with its scalars (text cut to 200 characters) and with arrays left empty, except
 * an {@code attributes} list of OTLP {key, value} pairs, whose keys are kept. Values that are
 * skipped are streamed past, so a 50 MB trajectory costs one pass and no memory. While streaming, the
 * dotted key paths (objects only, up to {@link #MAX_PATH_DEPTH} keys deep) of every list of
 * OpenAI-style messages (non-empty, each element an object with a text {@code role} and a
 * {@code content} or {@code tool_calls}) are noted per record: the {@code messages} format reads the
 * one it finds, and the detection error names them. The sample stays in the task: only format names
 * and key paths leave it.
 */
public final class LogSample {
  static final int MAX_RECORDS = 20;
  /** How deep (keys from the record) a message list is looked for; deeper lists need --messages-path. */
  static final int MAX_PATH_DEPTH = 6;
  private static final int MAX_TEXT = 200;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  static final LogSample EMPTY = new LogSample(List.of(), List.of(), List.of(), -1);

  private final List<ObjectNode> records;
  /** Per sampled record: the key paths of its message lists, in document order. */
  private final List<List<String>> messageLists;
  /** Per sampled record: the line it starts on. */
  private final List<Long> lines;
  /** The line of the first record; -1 for an empty file. */
  final long firstLine;

  private LogSample(List<ObjectNode> records, List<List<String>> messageLists, List<Long> lines, long firstLine) {
    this.records = records;
    this.messageLists = messageLists;
    this.lines = lines;
    this.firstLine = firstLine;
  }

  /** The key paths of the message lists of all sampled records (each once, in order of first appearance). */
  public List<String> messagePaths() {
    java.util.LinkedHashSet<String> all = new java.util.LinkedHashSet<>();
    for (List<String> l : messageLists) all.addAll(l);
    return new ArrayList<>(all);
  }

  /**
   * Where the sampled records' message lists are, for the detection error: "record 1 (line 2):
   * traj, info.history", one entry per record whose lists differ from the previous record's.
   */
  String messagePathsByRecord() {
    StringBuilder b = new StringBuilder();
    List<String> prev = null;
    for (int i = 0; i < messageLists.size(); i++) {
      List<String> l = messageLists.get(i);
      if (l.isEmpty() || l.equals(prev)) continue;
      prev = l;
      if (b.length() > 0) b.append("; ");
      b.append("record ").append(i + 1).append(" (line ").append(lines.get(i)).append("): ").append(String.join(", ", l));
    }
    return b.toString();
  }

  /** Whether the first record satisfies {@code p}. */
  public boolean first(Predicate<JsonNode> p) {
    return !records.isEmpty() && p.test(records.get(0));
  }

  /** Whether any sampled record satisfies {@code p}. */
  public boolean any(Predicate<JsonNode> p) {
    for (ObjectNode r : records) if (p.test(r)) return true;
    return false;
  }

  public boolean isEmpty() {
    return records.isEmpty();
  }

  /** The first record's top-level keys (names only), for error messages. */
  public String firstKeys() {
    if (records.isEmpty()) return "[]";
    TreeSet<String> k = new TreeSet<>();
    records.get(0).fieldNames().forEachRemaining(k::add);
    List<String> l = new ArrayList<>(k);
    return (l.size() > 12 ? l.subList(0, 12) + "..." : l.toString());
  }

  /** Reads the sample of a file (decompressed by its codec). */
  public static LogSample read(String file, Configuration conf) throws IOException {
    Path p = new Path(file);
    try (InputStream raw = p.getFileSystem(conf).open(p)) {
      CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(p);
      try (JsonParser jp = Messages.MAPPER.getFactory().createParser(codec == null ? raw : codec.createInputStream(raw))) {
        return read(file, jp);
      }
    }
  }

  static LogSample read(String file, JsonParser jp) throws IOException {
    List<ObjectNode> out = new ArrayList<>();
    List<List<String>> lists = new ArrayList<>();
    List<Long> lines = new ArrayList<>();
    long first = -1;
    try {
      JsonToken t = jp.nextToken();
      boolean array = t == JsonToken.START_ARRAY;
      if (array) t = jp.nextToken();
      while (t != null && out.size() < MAX_RECORDS && !(array && t == JsonToken.END_ARRAY)) {
        long line = jp.currentLocation().getLineNr();
        if (t != JsonToken.START_OBJECT) {
          if (out.isEmpty()) throw new BadInputException(file, line, null, "the first record is not a JSON object");
          jp.skipChildren();
        } else {
          if (first < 0) first = line;
          List<String> found = new ArrayList<>();
          out.add((ObjectNode) shallow(jp, 0, "", found));
          lists.add(found);
          lines.add(line);
        }
        t = jp.nextToken();
      }
    } catch (JsonParseException e) {
      // a sample ends at the first broken record; none at all means the file is not JSON
      if (out.isEmpty()) {
        throw new BadInputException(file, e.getLocation() == null ? -1 : e.getLocation().getLineNr(), null, "malformed JSON");
      }
    }
    return new LogSample(out, lists, lines, first);
  }

  /** The value at the parser's current token, cut to two object levels (see the class comment). */
  private static JsonNode shallow(JsonParser jp, int depth, String path, List<String> found) throws IOException {
    JsonToken t = jp.currentToken();
    switch (t) {
      case START_OBJECT -> {
        ObjectNode o = NODES.objectNode();
        while (jp.nextToken() == JsonToken.FIELD_NAME) {
          String name = jp.currentName();
          String at = path.isEmpty() ? name : path + "." + name;
          JsonToken v = jp.nextToken();
          if (v == JsonToken.START_OBJECT && depth >= 2) {
            scanObject(jp, depth + 1, at, found);
            o.putObject(name);
          } else if (v == JsonToken.START_ARRAY) {
            o.set(name, name.equals("attributes") ? attributeKeys(jp) : scanArray(jp, at, found));
          } else {
            o.set(name, shallow(jp, depth + 1, at, found));
          }
        }
        return o;
      }
      case VALUE_STRING -> {
        String s = jp.getText();
        return NODES.textNode(s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) : s);
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(jp.getDecimalValue());
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return NODES.booleanNode(t == JsonToken.VALUE_TRUE);
      }
      default -> {
        return NODES.nullNode();
      }
    }
  }

  /** Streams past an object below the kept levels, noting the message lists in it (up to MAX_PATH_DEPTH keys). */
  private static void scanObject(JsonParser jp, int depth, String path, List<String> found) throws IOException {
    if (depth >= MAX_PATH_DEPTH) {
      jp.skipChildren();
      return;
    }
    while (jp.nextToken() == JsonToken.FIELD_NAME) {
      String at = path + "." + jp.currentName();
      JsonToken v = jp.nextToken();
      if (v == JsonToken.START_OBJECT) scanObject(jp, depth + 1, at, found);
      else if (v == JsonToken.START_ARRAY) scanArray(jp, at, found);
    }
  }

  /**
   * Streams past an array (kept as an empty array: detection only asks whether it is one), noting
   * {@code path} when it is a list of OpenAI-style messages. A message's own fields are not looked
   * into (its content parts are not a message list).
   */
  private static ArrayNode scanArray(JsonParser jp, String path, List<String> found) throws IOException {
    boolean messages = true;
    int n = 0;
    JsonToken t;
    while ((t = jp.nextToken()) != JsonToken.END_ARRAY && t != null) {
      n++;
      if (t != JsonToken.START_OBJECT) {
        messages = false;
        jp.skipChildren();
        continue;
      }
      boolean role = false, body = false;
      while (jp.nextToken() == JsonToken.FIELD_NAME) {
        String name = jp.currentName();
        JsonToken v = jp.nextToken();
        if (name.equals("role")) role = v == JsonToken.VALUE_STRING;
        else if (name.equals("content") || name.equals("tool_calls")) body = true;
        jp.skipChildren();
      }
      messages &= role && body;
    }
    if (messages && n > 0) found.add(path);
    return NODES.arrayNode();
  }

  /** An OTLP attribute list [{key, value}, ...] as the list of its keys. */
  private static ArrayNode attributeKeys(JsonParser jp) throws IOException {
    ArrayNode keys = NODES.arrayNode();
    JsonToken t;
    while ((t = jp.nextToken()) != JsonToken.END_ARRAY && t != null) {
      if (t != JsonToken.START_OBJECT) {
        jp.skipChildren();
        continue;
      }
      while (jp.nextToken() == JsonToken.FIELD_NAME) {
        String name = jp.currentName();
        JsonToken v = jp.nextToken();
        if (name.equals("key") && v == JsonToken.VALUE_STRING && keys.size() < 200) keys.add(jp.getText());
        else jp.skipChildren();
      }
    }
    return keys;
  }
}
