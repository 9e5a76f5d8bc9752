package io.smetric.audit.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Row;

/** Null-tolerant access to result-table rows by column name (a missing column reads as null). */
final class Rows {
  private Rows() {}

  static boolean has(Row r, String col) {
    return Arrays.asList(r.schema().fieldNames()).contains(col);
  }

  static Double d(Row r, String col) {
    if (!has(r, col)) return null;
    int i = r.fieldIndex(col);
    if (r.isNullAt(i)) return null;
    Object o = r.get(i);
    return o instanceof Number n ? n.doubleValue() : null;
  }

  /** A double, NaN where null. */
  static double nan(Row r, String col) {
    Double d = d(r, col);
    return d == null ? Double.NaN : d;
  }

  static String s(Row r, String col) {
    if (!has(r, col)) return null;
    int i = r.fieldIndex(col);
    return r.isNullAt(i) ? null : String.valueOf(r.get(i));
  }

  /** The rows sorted by a numeric column (nulls as NaN, last). */
  static List<Row> sorted(List<Row> rows, String col) {
    List<Row> s = new ArrayList<>(rows);
    s.sort(Comparator.comparingDouble(r -> nan(r, col)));
    return s;
  }
}
