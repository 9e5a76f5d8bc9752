package io.smetric.audit.hasher;

import java.io.IOException;

/**
 * Reads one log file of one format (one subclass per {@link LogFormat}) and reports what it finds
 * to its {@link FileHasher}: requests (through {@link Conversation} or
 * {@link FileHasher#emitRecord}), skipped records with their reasons, and what it had to
 * synthesise. A reader holds at most one record (or one trajectory message) plus the state of the
 * conversation in progress; {@link #step} processes one unit of input.
 */
abstract class LogReader {
  protected final FileHasher h;

  LogReader(FileHasher h) {
    this.h = h;
  }

  /** Processes one unit of input (a line, a record, a message); false once the input is exhausted. */
  abstract boolean step() throws IOException;

  /** Called once after the last step: flush what is still pending. */
  void end() {}

  void close() throws IOException {}
}
