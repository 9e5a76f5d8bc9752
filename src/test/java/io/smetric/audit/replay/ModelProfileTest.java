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

  /** Each value of the profile format and its builder. */
  private static final List<Class<?>[]> PAIRS = List.of(
      new Class<?>[] {ModelProfile.class, ModelProfile.Builder.class},
      new Class<?>[] {ModelProfile.Validation.class, ModelProfile.Validation.Builder.class},
      new Class<?>[] {ModelProfile.Check.class, ModelProfile.Check.Builder.class},
      new Class<?>[] {ModelProfile.Regime.class, ModelProfile.Regime.Builder.class});

  @Test
  void builderAndValue_haveTheSameFieldsInTheSameOrder() {
    // the order is the file's key order (Jackson writes the value's fields as declared)
    for (Class<?>[] pair : PAIRS) {
      List<String> value = new ArrayList<>();
      for (Field f : instanceFields(pair[0])) value.add(f.getGenericType() + " " + f.getName());
      List<String> builder = new ArrayList<>();
      for (Field f : instanceFields(pair[1])) builder.add(f.getGenericType() + " " + f.getName());
      assertEquals(builder, value, pair[0].getName());
    }
    assertEquals(33, instanceFields(ModelProfile.class).size());
  }

  @Test
  void build_thenToBuilder_carriesEveryField() throws Exception {
    for (Class<?>[] pair : PAIRS) {
      // every field at a value no default has, so a field the constructor or toBuilder forgot shows
      Object b = pair[1].getConstructor().newInstance();
      int i = 0;
      for (Field f : instanceFields(pair[1])) f.set(b, testValue(f, ++i));
      Object value = pair[1].getMethod("build").invoke(b);
      Object back = pair[0].getMethod("toBuilder").invoke(value);
      for (Field f : instanceFields(pair[1])) {
        Object want = f.get(b);
        assertEquals(want, pair[0].getField(f.getName()).get(value), pair[0].getSimpleName() + " field " + f.getName());
        assertEquals(want, f.get(back), pair[0].getSimpleName() + ".toBuilder field " + f.getName());
      }
    }
  }

  private static Object testValue(Field f, int i) {
    Class<?> t = f.getType();
    if (t == double.class || t == Double.class) return i + 0.5;
    if (t == int.class || t == Integer.class) return i + 1000;
    if (t == long.class || t == Long.class) return i + 2000L;
    if (t == boolean.class) return true;
    if (t == String.class) return "s" + i;
    if (t == Map.class) return new LinkedHashMap<>(Map.of("stepBaseS", new ModelProfile.Source("measured", "r", 1.0, 2.0)));
    if (t == ModelProfile.Validation.class) return new ModelProfile.Validation.Builder().build();
    if (t == ModelProfile.Regime.class) return new ModelProfile.Regime.Builder().build();
    if (t == List.class) {
      return f.getGenericType().getTypeName().contains("Check")
          ? new ArrayList<>(List.of(new ModelProfile.Check.Builder().build())) : new ArrayList<>(List.of("s" + i));
    }
    throw new AssertionError("no test value for " + f);
  }

  @Test
  void nestedLists_cannotBeChangedInABuiltRecord() {
    ModelProfile.Validation.Builder b = new ModelProfile.Validation.Builder();
    b.data = new ArrayList<>(List.of("a"));
    ModelProfile.Validation v = b.build();
    b.data.add("b");
    assertEquals(List.of("a"), v.data, "the value copied the builder's list");
    assertThrows(UnsupportedOperationException.class, () -> v.data.add("c"));
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
    assertThrows(UnsupportedOperationException.class, () -> p.sources.put("x", new ModelProfile.Source("measured", "r", null, null)));
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
