package io.smetric.audit.replay.sweep;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplaySettings;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * Numeric fields of {@link ReplaySettings} (and of the objects it holds, e.g. its profile) named by
 * a dotted path, for sweeps that vary any of them: {@code profile.globalReadGBps},
 * {@code profile.stepBaseS}. Generic on purpose: a field added to the settings or the profile
 * later can be swept without code here. Only public, non-final, non-static numeric fields
 * (double, float, int, long and their boxes) can be set, and booleans as 0 / 1.
 */
public final class SettingsPath {
  private SettingsPath() {}

  /** Whether the path names a settable numeric field. */
  public static boolean exists(String path) {
    try {
      resolve(new ReplaySettings(), path);
      return true;
    } catch (UsageException e) {
      return false;
    }
  }

  public static double get(ReplaySettings s, String path) {
    Target t = resolve(s, path);
    try {
      Object v = t.field.get(t.owner);
      if (v instanceof Boolean b) return b ? 1 : 0;
      return v == null ? Double.NaN : ((Number) v).doubleValue();
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  public static void set(ReplaySettings s, String path, double v) {
    Target t = resolve(s, path);
    Class<?> c = t.field.getType();
    try {
      if (c == double.class || c == Double.class) t.field.set(t.owner, v);
      else if (c == float.class || c == Float.class) t.field.set(t.owner, (float) v);
      else if (c == int.class || c == Integer.class) t.field.set(t.owner, (int) Math.round(v));
      else if (c == long.class || c == Long.class) t.field.set(t.owner, Math.round(v));
      else if (c == boolean.class || c == Boolean.class) t.field.set(t.owner, v != 0);
      else throw new UsageException("settings path " + path + " is not numeric");
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Target(Object owner, Field field) {}

  private static Target resolve(Object root, String path) {
    String[] parts = path.split("\\.");
    Object owner = root;
    for (int i = 0; i < parts.length; i++) {
      Field f;
      try {
        f = owner.getClass().getField(parts[i]);
      } catch (NoSuchFieldException e) {
        throw new UsageException("unknown settings field '" + path + "' (no public field " + parts[i] + " in "
            + owner.getClass().getSimpleName() + ")");
      }
      if (Modifier.isStatic(f.getModifiers())) throw new UsageException("settings path " + path + " names a constant");
      if (i == parts.length - 1) {
        Class<?> c = f.getType();
        boolean numeric = c == double.class || c == float.class || c == int.class || c == long.class
            || Number.class.isAssignableFrom(c) || c == boolean.class || c == Boolean.class;
        if (!numeric || Modifier.isFinal(f.getModifiers())) {
          throw new UsageException("settings path " + path + " is not a settable number");
        }
        return new Target(owner, f);
      }
      try {
        owner = f.get(owner);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
      if (owner == null) throw new UsageException("settings path " + path + ": " + parts[i] + " is null");
    }
    throw new UsageException("empty settings path");
  }
}
