package io.smetric.audit.contract;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;

/** The one way a stage's summary record is read back from its JSON (the writer uses the same mapper). */
final class ContractJson {
  private ContractJson() {}

  /**
   * Binds {@code n} to {@code type}; a field of the wrong type fails with {@code where} (the file)
   * and {@code what} the file should have been ("not an ingest summary: ...").
   */
  static <T> T read(JsonNode n, Class<T> type, String where, String what) {
    try {
      return Json.MAPPER.treeToValue(n, type);
    } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
      throw new BadInputException(where, "not " + what + ": " + e.getMessage());
    }
  }

  /**
   * replay.json's object {@code block} read by {@code reader} (given the block and "replay.json
   * BLOCK" to name it in an error); null when the file or its block is missing or not an object.
   */
  static <T> T block(JsonNode replay, String block, java.util.function.BiFunction<JsonNode, String, T> reader) {
    JsonNode b = replay == null ? null : replay.path(block);
    return b == null || !b.isObject() ? null : reader.apply(b, "replay.json " + block);
  }
}
