package io.smetric.audit.ingest;

import io.smetric.audit.contract.Canonical;
import java.util.EnumSet;
import java.util.Map;

/**
 * Alibaba Bailian traces (docs/ingest.md): {@code chat_id}, {@code parent_chat_id} (-1 = a root),
 * {@code timestamp} in seconds, {@code input_length}, {@code output_length}, {@code type},
 * {@code turn}, {@code hash_ids} of 16-token blocks. The format has no session ids or triggers:
 * sessions are resolved later from the parent chains, the trigger is unknown.
 */
final class BailianRecordParser extends JsonRecordParser {
  static final Fields FIELDS = new Fields(
      Map.of(
          "chat_id", Slot.REQUEST_ID,
          "parent_chat_id", Slot.PARENT_ID,
          "timestamp", Slot.ARRIVAL,
          "input_length", Slot.INPUT,
          "output_length", Slot.OUTPUT,
          "type", Slot.TYPE,
          "turn", Slot.TURN,
          "hash_ids", Slot.BLOCKS),
      EnumSet.of(Slot.REQUEST_ID, Slot.PARENT_ID, Slot.ARRIVAL, Slot.INPUT, Slot.OUTPUT, Slot.TURN),
      1.0,
      16,
      false,
      true);

  BailianRecordParser(TraceFormat.ParseContext c) {
    super(FIELDS, c);
  }

  @Override
  void finishRecord(Staged s) {
    s.sessionId = null; // resolved later from parent chains
    s.trigger = Canonical.TRIGGER_UNKNOWN;
  }
}
