package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.replay.ReplaySettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * replay.json's settings block as the report reads it: the keys are the settings' own field names
 * (the replay writes the settings value whole), so every key the record reads must be in what
 * ReplaySettings writes; and a hand-written block reads back field by field.
 */
class SettingsBlockTest {

  private static List<String> keys() {
    return RecordKeys.of(SettingsBlock.class);
  }

  @Test
  void keyNames_asTheFileHasThem() {
    assertEquals("settings", SettingsBlock.BLOCK);
    assertEquals(List.of("instances", "rateScaling", "imbalanceWindowS", "ttftBaseS", "ttftPerTokenS", "tpotS", "overload",
        "hitRatio", "profile"), keys());
  }

  @Test
  void everyKeyRead_isWrittenByTheSettings() throws Exception {
    // a renamed settings field would leave the report reading a key nobody writes: caught here
    JsonNode written = Json.MAPPER.readTree(ReplaySettings.defaults().with(b -> b.overload = Double.POSITIVE_INFINITY).toJson());
    for (String k : keys()) assertTrue(written.has(k), "ReplaySettings writes no '" + k + "'");
    SettingsBlock s = SettingsBlock.read(written, "test");
    assertEquals(ReplaySettings.DEFAULT_INSTANCES, s.instances());
    assertEquals(Double.POSITIVE_INFINITY, s.overload(), "written as the string Infinity, read back as infinity");
    assertEquals(0.5, s.hitRatio());
    assertEquals(0.030, s.tpotS());
    assertFalse(s.sessionScaling());
    assertEquals(ReplaySettings.defaults().profile.name, s.profileName());
  }

  @Test
  void handWrittenBlock_readsFieldByField_andAWrongTypeNamesTheBlock() throws Exception {
    JsonNode replay = Json.MAPPER.readTree("{\"settings\": {\"instances\": 8, \"rateScaling\": \"SESSIONS\", "
        + "\"imbalanceWindowS\": 30, \"ttftBaseS\": 1.5, \"ttftPerTokenS\": 0.0002, \"tpotS\": 0.05, \"overload\": 2, "
        + "\"hitRatio\": 0.25, \"profile\": {\"name\": \"p1\"}, \"unknownKnob\": true}}");
    SettingsBlock s = SettingsBlock.of(replay);
    assertEquals(8, s.instances());
    assertTrue(s.sessionScaling());
    assertEquals(30.0, s.imbalanceWindowS());
    assertEquals(1.5, s.ttftBaseS());
    assertEquals(2e-4, s.ttftPerTokenS());
    assertEquals(0.05, s.tpotS());
    assertEquals(2.0, s.overload());
    assertEquals(0.25, s.hitRatio());
    assertEquals("p1", s.profileName());
    assertNull(SettingsBlock.of(Json.MAPPER.readTree("{}")), "no block: null");
    assertNull(SettingsBlock.of(null));
    assertNull(SettingsBlock.of(Json.MAPPER.readTree("{\"settings\": {}}")).profileName());
    BadInputException e = assertThrows(BadInputException.class,
        () -> SettingsBlock.of(Json.MAPPER.readTree("{\"settings\": {\"instances\": \"many\"}}")));
    assertEquals("replay.json settings", e.file());
    assertTrue(e.getMessage().contains("not a settings block"), e.getMessage());
  }
}
