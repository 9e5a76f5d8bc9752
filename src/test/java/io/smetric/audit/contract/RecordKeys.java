package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/** For the key-pinning tests of the contract records. */
final class RecordKeys {
  private RecordKeys() {}

  /** The JSON field names a record has, in declaration order (its components' @JsonProperty, which Jackson reads). */
  static List<String> of(Class<? extends Record> type) {
    List<String> out = new ArrayList<>();
    for (var c : type.getRecordComponents()) {
      JsonProperty p = c.getAccessor().getAnnotation(JsonProperty.class);
      out.add(p == null ? "(no @JsonProperty on " + c.getName() + ")" : p.value());
    }
    return out;
  }
}
