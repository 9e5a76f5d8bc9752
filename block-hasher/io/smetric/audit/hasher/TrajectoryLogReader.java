package io.smetric.audit.hasher;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import java.io.IOException;

/**
 * A reader of agent trajectories: one JSON object per trajectory (a file holds one, an array of
 * them, or several concatenated), whose message list sits under one key ({@code history} for
 * SWE-agent, {@code messages} for mini-SWE-agent). The trajectory's other fields are skipped token
 * by token and its messages are read one at a time, so memory is one message plus the conversation
 * being built, whatever the size of the file. A message that cannot be used ends its trajectory
 * (the requests before it are kept; the skip reason says the rest was skipped).
 */
abstract class TrajectoryLogReader extends LogReader {
  private final String messagesKey;
  private final JsonParser parser;
  private final boolean arrayMode;
  private boolean inMessages;
  private boolean sawMessages;
  private boolean abandoned;
  private int index;
  private long trajectoryLine;

  TrajectoryLogReader(FileHasher h, String messagesKey) {
    super(h);
    this.messagesKey = messagesKey;
    try {
      this.arrayMode = h.startsWithArray();
      this.parser = Messages.MAPPER.getFactory().createParser(h.input());
      if (arrayMode) parser.nextToken(); // START_ARRAY
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A trajectory starts (at {@code line}). */
  abstract void start(long line);

  /** The trajectory's i-th message. A BadInputException ends the trajectory. */
  abstract void message(JsonNode m, long line, int i);

  /** The trajectory ends (after its last message, or when abandoned). */
  abstract void finish();

  @Override
  final boolean step() throws IOException {
    try {
      if (inMessages) {
        messageStep();
        return true;
      }
      JsonToken t = parser.nextToken();
      if (t == null || (arrayMode && t == JsonToken.END_ARRAY)) return false;
      long line = parser.currentLocation().getLineNr();
      if (t != JsonToken.START_OBJECT) throw new BadInputException(h.file(), line, null, "a trajectory is not a JSON object");
      h.countRecord();
      trajectoryLine = line;
      sawMessages = false;
      scanToMessages();
      return true;
    } catch (JsonParseException e) {
      // a broken JSON document cannot be resynchronised: stop here, loudly, with the place
      throw new BadInputException(h.file(), e.getLocation() == null ? -1 : e.getLocation().getLineNr(), null, "malformed JSON");
    }
  }

  private void scanToMessages() throws IOException {
    JsonToken t;
    while ((t = parser.nextToken()) == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      JsonToken v = parser.nextToken();
      if (name.equals(messagesKey)) {
        if (v != JsonToken.START_ARRAY) {
          parser.skipChildren();
          h.skip(new BadInputException(h.file(), parser.currentLocation().getLineNr(), messagesKey, "not a list"));
          continue;
        }
        inMessages = true;
        sawMessages = true;
        abandoned = false;
        index = 0;
        start(trajectoryLine);
        return;
      }
      parser.skipChildren();
    }
    if (t != JsonToken.END_OBJECT) throw new BadInputException(h.file(), parser.currentLocation().getLineNr(), null, "malformed trajectory");
    if (!sawMessages) h.skip(new BadInputException(h.file(), trajectoryLine, messagesKey, "missing: the trajectory has no message list"));
  }

  private void messageStep() throws IOException {
    JsonToken t = parser.nextToken();
    if (t == JsonToken.END_ARRAY) {
      inMessages = false;
      if (!abandoned) finish();
      scanToMessages(); // the rest of the object (a second message list would be odd but is handled)
      return;
    }
    long line = parser.currentLocation().getLineNr();
    JsonNode msg = parser.readValueAsTree();
    int i = index++;
    if (abandoned) return;
    try {
      message(msg, line, i);
    } catch (BadInputException e) {
      h.skip(new BadInputException(h.file(), line, e.field(), e.getMessage() + "; the rest of this trajectory is skipped"));
      abandoned = true;
      finish();
    }
  }

  @Override
  void close() throws IOException {
    parser.close();
  }
}
