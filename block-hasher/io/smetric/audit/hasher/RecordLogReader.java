package io.smetric.audit.hasher;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

/**
 * A reader of record-per-line (JSONL) formats that also takes the same records as a JSON array or
 * as concatenated (pretty-printed) JSON documents. JSONL is read line by line, so that a malformed
 * line is one skip entry and reading resynchronises at the next line; a file that starts with
 * {@code [} or whose first line is an incomplete JSON value is read with a streaming parser,
 * element by element (a broken document cannot be resynchronised: the file fails with its line).
 */
abstract class RecordLogReader extends LogReader {
  private BufferedReader lines;
  private JsonParser parser;
  private boolean arrayMode;
  private long lineNo;

  RecordLogReader(FileHasher h) {
    super(h);
    try {
      if (h.startsWithArray()) {
        arrayMode = true;
        parser = Messages.MAPPER.getFactory().createParser(h.input());
        parser.nextToken(); // START_ARRAY
      } else {
        lines = new BufferedReader(new InputStreamReader(h.input(), StandardCharsets.UTF_8), 1 << 16);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** One record (its line is the first line it starts on). A BadInputException skips it. */
  abstract void record(JsonNode record, long line);

  @Override
  final boolean step() throws IOException {
    if (lines != null) {
      String line = lines.readLine();
      if (line == null) return false;
      lineNo++;
      if (line.isBlank()) return true;
      JsonNode node;
      try {
        node = Messages.MAPPER.readTree(line);
      } catch (JsonEOFException e) {
        if (h.records() == 0 && h.skipped() == 0) {
          // the first record spans lines: a pretty-printed document, read as a stream from here
          Reader rest = new ConcatReader(new StringReader(line + "\n"), lines);
          lines = null;
          parser = Messages.MAPPER.getFactory().createParser(rest);
          return documentStep();
        }
        h.countRecord();
        h.skip(new BadInputException(h.file(), lineNo, null, "malformed JSON: the line ends inside a value"));
        return true;
      } catch (JsonParseException e) {
        h.countRecord();
        h.skip(new BadInputException(h.file(), lineNo, null, "malformed JSON at column " + e.getLocation().getColumnNr()));
        return true;
      }
      deliver(node, lineNo);
      return true;
    }
    return documentStep();
  }

  private boolean documentStep() throws IOException {
    JsonToken t;
    try {
      t = parser.nextToken();
      if (t == null || (arrayMode && t == JsonToken.END_ARRAY)) return false;
      long line = parser.currentLocation().getLineNr();
      if (t != JsonToken.START_OBJECT) {
        parser.skipChildren();
        h.countRecord();
        h.skip(new BadInputException(h.file(), line, null, "record is not a JSON object"));
        return true;
      }
      deliver(parser.readValueAsTree(), line);
      return true;
    } catch (JsonParseException e) {
      // a broken JSON document cannot be resynchronised: stop here, loudly, with the place
      throw new BadInputException(h.file(), e.getLocation() == null ? -1 : e.getLocation().getLineNr(), null, "malformed JSON");
    }
  }

  private void deliver(JsonNode node, long line) {
    h.countRecord();
    try {
      if (!node.isObject()) throw new BadInputException(h.file(), line, null, "record is not a JSON object");
      record(node, line);
    } catch (BadInputException e) {
      h.skip(e);
    }
  }

  @Override
  void close() throws IOException {
    if (parser != null) parser.close();
    if (lines != null) lines.close();
  }

  /** Two readers one after the other. */
  private static final class ConcatReader extends Reader {
    private Reader a;
    private final Reader b;

    ConcatReader(Reader a, Reader b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public int read(char[] buf, int off, int len) throws IOException {
      if (a != null) {
        int n = a.read(buf, off, len);
        if (n >= 0) return n;
        a = null;
      }
      return b.read(buf, off, len);
    }

    @Override
    public void close() throws IOException {
      b.close();
    }
  }
}
