package io.smetric.audit.common;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The one Jackson mapper for result files: sorted keys and pretty output, so files diff well. */
public final class Json {
  private Json() {}

  public static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }
}
