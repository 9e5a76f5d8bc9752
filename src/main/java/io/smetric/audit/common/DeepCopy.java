package io.smetric.audit.common;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * Deep copies of serializable settings objects through Java serialization: unlike a JSON round
 * trip it keeps Infinity and NaN (settings use Infinity for "no limit").
 */
public final class DeepCopy {
  private DeepCopy() {}

  /** A deep copy of {@code o}, of the same class. */
  @SuppressWarnings("unchecked")
  public static <T extends Serializable> T of(T o) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(o);
      }
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        return (T) in.readObject();
      }
    } catch (IOException | ClassNotFoundException e) {
      throw new IllegalStateException("cannot copy " + o.getClass().getSimpleName(), e);
    }
  }
}
