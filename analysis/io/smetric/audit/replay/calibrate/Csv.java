package io.smetric.audit.replay.calibrate;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.CsvLine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small RFC 4180 reader for the measurement tables (quoted fields, doubled quotes, no line breaks
 * inside a field), with errors that name the file, the line and the column.
 */
final class Csv {
  final String file;
  final List<String> header;
  final Map<String, Integer> column = new HashMap<>();
  /** Data rows and their 1-based line numbers in the file; blank lines and '#' comments skipped. */
  final List<List<String>> rows = new ArrayList<>();
  final List<Integer> lines = new ArrayList<>();

  Csv(String file, String text) {
    this.file = file;
    String[] all = text.split("\r?\n", -1);
    List<String> h = null;
    for (int i = 0; i < all.length; i++) {
      String l = all[i];
      if (i == 0 && l.startsWith("\uFEFF")) l = l.substring(1);
      if (l.isBlank() || l.startsWith("#")) continue;
      List<String> f = split(l, i + 1);
      if (h == null) {
        h = new ArrayList<>();
        for (int c = 0; c < f.size(); c++) {
          String name = f.get(c).trim().toLowerCase(Locale.ROOT);
          if (column.put(name, c) != null) throw new BadInputException(file, i + 1, name, "column appears twice in the header");
          h.add(name);
        }
        continue;
      }
      if (f.size() != h.size()) {
        throw new BadInputException(file, i + 1, null, "has " + f.size() + " fields but the header has " + h.size());
      }
      rows.add(f);
      lines.add(i + 1);
    }
    if (h == null) throw new BadInputException(file, "empty: no header line");
    header = h;
  }

  boolean has(String col) {
    return column.containsKey(col);
  }

  /** The raw field, or null when the column is absent or the field empty. */
  String get(int row, String col) {
    Integer c = column.get(col);
    if (c == null) return null;
    String v = rows.get(row).get(c).trim();
    return v.isEmpty() ? null : v;
  }

  double number(int row, String col) {
    String v = get(row, col);
    if (v == null) return Double.NaN;
    try {
      double d = Double.parseDouble(v);
      if (!Double.isFinite(d)) throw new NumberFormatException();
      return d;
    } catch (NumberFormatException e) {
      throw new BadInputException(file, lines.get(row), col, "not a finite number: '" + v + "'");
    }
  }

  double positive(int row, String col) {
    double d = number(row, col);
    if (!Double.isNaN(d) && d <= 0) throw new BadInputException(file, lines.get(row), col, "must be > 0, got " + get(row, col));
    return d;
  }

  double nonNegative(int row, String col) {
    double d = number(row, col);
    if (!Double.isNaN(d) && d < 0) throw new BadInputException(file, lines.get(row), col, "must be >= 0, got " + get(row, col));
    return d;
  }

  int requiredInt(int row, String col, int min) {
    String v = get(row, col);
    if (v == null) throw new BadInputException(file, lines.get(row), col, "missing");
    try {
      int x = Integer.parseInt(v);
      if (x < min) throw new BadInputException(file, lines.get(row), col, "must be >= " + min + ", got " + x);
      return x;
    } catch (NumberFormatException e) {
      throw new BadInputException(file, lines.get(row), col, "not an integer: '" + v + "'");
    }
  }

  private List<String> split(String line, int lineNo) {
    List<String> f = CsvLine.split(line);
    if (f == null) throw new BadInputException(file, lineNo, null, "unterminated quoted field");
    return f;
  }
}
