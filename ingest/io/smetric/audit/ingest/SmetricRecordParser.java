package io.smetric.audit.ingest;

import io.smetric.audit.contract.Canonical;
import java.util.EnumSet;
import java.util.Map;

/**
 * SMetric-style JSONL (docs/ingest.md): the canonical field names, with {@code hash_ids} or
 * {@code blocks} for the block ids and {@code request_type} or {@code type}, arrival in seconds,
 * sessions and triggers given, the block size from the record (or --block-size), optional
 * provider cache counters and recorded routing (served instance, TTFT and end-to-end seconds or
 * first-token and finish times, outcome).
 */
final class SmetricRecordParser extends JsonRecordParser {
  static final Fields FIELDS = new Fields(
      Map.ofEntries(
          Map.entry("request_id", Slot.REQUEST_ID),
          Map.entry("session_id", Slot.SESSION_ID),
          Map.entry("parent_id", Slot.PARENT_ID),
          Map.entry("turn", Slot.TURN),
          Map.entry("trigger", Slot.TRIGGER),
          Map.entry("arrival_s", Slot.ARRIVAL),
          Map.entry("input_tokens", Slot.INPUT),
          Map.entry("output_tokens", Slot.OUTPUT),
          Map.entry("block_size", Slot.BLOCK_SIZE),
          Map.entry("hash_ids", Slot.BLOCKS),
          Map.entry("blocks", Slot.BLOCKS),
          Map.entry("request_type", Slot.TYPE),
          Map.entry("type", Slot.TYPE),
          Map.entry(Canonical.PROVIDER_INPUT_TOKENS, Slot.PROVIDER_INPUT),
          Map.entry(Canonical.PROVIDER_CACHED_TOKENS, Slot.PROVIDER_CACHED),
          Map.entry(Canonical.PROVIDER_CACHE_WRITE_TOKENS, Slot.PROVIDER_CACHE_WRITE),
          Map.entry(Canonical.PROVIDER_CACHE, Slot.PROVIDER_CACHE),
          Map.entry(Canonical.SERVED_INSTANCE, Slot.SERVED_INSTANCE),
          Map.entry(Canonical.TTFT_S, Slot.TTFT),
          Map.entry(Canonical.E2E_S, Slot.E2E),
          Map.entry(Canonical.FIRST_TOKEN_S, Slot.FIRST_TOKEN),
          Map.entry(Canonical.FINISH_S, Slot.FINISH),
          Map.entry(Canonical.OUTCOME, Slot.OUTCOME)),
      EnumSet.of(Slot.REQUEST_ID, Slot.ARRIVAL, Slot.INPUT, Slot.OUTPUT),
      1.0,
      null,
      false,
      false);

  SmetricRecordParser(TraceFormat.ParseContext c) {
    super(FIELDS, c);
  }
}
