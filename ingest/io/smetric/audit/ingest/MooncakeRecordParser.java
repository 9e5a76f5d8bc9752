package io.smetric.audit.ingest;

import java.util.EnumSet;
import java.util.Map;

/**
 * Mooncake traces (docs/ingest.md): {@code timestamp} in milliseconds, {@code input_length},
 * {@code output_length}, {@code hash_ids} of 512-token blocks; no request ids (the line number is
 * the id) and no sessions.
 */
final class MooncakeRecordParser extends JsonRecordParser {
  static final Fields FIELDS = new Fields(
      Map.of(
          "timestamp", Slot.ARRIVAL,
          "input_length", Slot.INPUT,
          "output_length", Slot.OUTPUT,
          "hash_ids", Slot.BLOCKS),
      EnumSet.of(Slot.ARRIVAL, Slot.INPUT, Slot.OUTPUT),
      0.001,
      512,
      true,
      false);

  MooncakeRecordParser(TraceFormat.ParseContext c) {
    super(FIELDS, c);
  }
}
