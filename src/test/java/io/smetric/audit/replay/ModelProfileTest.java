package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.UsageException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ModelProfile as a value: its Builder holds the same fields, with() copies, nothing changes a built profile. */
class ModelProfileTest {
  @TempDir Path tmp;

  private static List<Field> instanceFields(Class<?> c) {
    List<Field> out = new ArrayList<>();
    for (Field f : c.getDeclaredFields()) if (!Modifier.isStatic(f.getModifiers())) out.add(f);
    return out;
  }

  @Test
  void builderAndValue_haveTheSameFieldsInTheSameOrder() {
    // the order is the file's key order (Jackson writes the value's fields as declared)
    List<String> value = new ArrayList<>();
    for (Field f : instanceFields(ModelProfile.class)) value.add(f.getGenericType() + " " + f.getName());
    List<String> builder = new ArrayList<>();
    for (Field f : instanceFields(ModelProfile.Builder.class)) builder.add(f.getGenericType() + " " + f.getName());
    assertEquals(builder, value);
    assertEquals(33, value.size());
  }

  @Test
  void build_thenToBuilder_carriesEveryField() throws Exception {
    // every field at a value no default has, so a field the constructor or toBuilder forgot shows
    ModelProfile.Builder b = new ModelProfile.Builder();
    int i = 0;
    for (Field f : instanceFields(ModelProfile.Builder.class)) {
      i++;
      Class<?> t = f.getType();
      if (t == double.class) f.setDouble(b, i + 0.5);
      else if (t == int.class) f.setInt(b, i + 1000);
      else if (t == long.class) f.setLong(b, i + 2000L);
      else if (t == boolean.class) f.setBoolean(b, true);
      else if (t == Long.class) f.set(b, i + 3000L);
      else if (t == String.class) f.set(b, "s" + i);
      else if (t == Map.class) f.set(b, new LinkedHashMap<>(Map.of("stepBaseS", new ModelProfile.Source("measured", "r", 1.0, 2.0))));
      else if (t == ModelProfile.Validation.class) f.set(b, new ModelProfile.Validation());
      else throw new AssertionError("no test value for " + f);
    }
    ModelProfile p = b.build();
    ModelProfile.Builder back = p.toBuilder();
    for (Field f : instanceFields(ModelProfile.Builder.class)) {
      Object want = f.get(b);
      assertEquals(want, ModelProfile.class.getField(f.getName()).get(p), "value field " + f.getName());
      assertEquals(want, f.get(back), "toBuilder field " + f.getName());
    }
  }

  @Test
  void with_changesTheCopy_notTheOriginal() {
    ModelProfile p = ModelProfile.defaultProfile();
    double read = p.globalReadGBps;
    int sources = p.sources.size();
    ModelProfile q = p.with(b -> {
      b.globalReadGBps = read * 2;
      b.sources.remove("globalReadGBps");
    });
    assertEquals(read * 2, q.globalReadGBps);
    assertEquals(sources - 1, q.sources.size());
    assertEquals(read, p.globalReadGBps);
    assertEquals(sources, p.sources.size());
    assertEquals(read, ModelProfile.defaultProfile().globalReadGBps, "the shared catalogue value is untouched");
    assertNotEquals(p.toJson(), q.toJson());
  }

  @Test
  void sources_cannotBeChangedInABuiltProfile() {
    ModelProfile p = ModelProfile.defaultProfile();
    assertThrows(UnsupportedOperationException.class, () -> p.sources.remove("stepBaseS"));
    assertThrows(UnsupportedOperationException.class, () -> p.sources.put("x", new ModelProfile.Source()));
  }

  @Test
  void writtenAndReadBack_isTheSameProfile_inFileOrder() throws Exception {
    for (String n : ModelProfile.catalogue()) {
      ModelProfile p = ModelProfile.named(n);
      Path f = tmp.resolve(n + ".json");
      Files.writeString(f, p.toJson());
      ModelProfile back = ModelProfile.load(f);
      assertEquals(p.toJson(), back.toJson(), n);
      assertEquals(new ArrayList<>(p.sources.keySet()), new ArrayList<>(back.sources.keySet()), n);
      // Infinity (free saves, no aggregate limit) survives the round trip
      assertEquals(p.globalSaveGBps, back.globalSaveGBps, n);
    }
  }

  @Test
  void unknownField_isReportedAgainstModelProfile_notItsBuilder() throws Exception {
    Path f = tmp.resolve("p.json");
    Files.writeString(f, "{\"name\": \"x\", \"stepBaseZ\": 1}");
    UsageException e = assertThrows(UsageException.class, () -> ModelProfile.load(f));
    assertTrue(e.getMessage().contains("Unrecognized field \"stepBaseZ\" (class io.smetric.audit.replay.ModelProfile),"),
        e.getMessage());
    assertTrue(e.getMessage().contains("(33 known properties:"), e.getMessage());
  }
}
