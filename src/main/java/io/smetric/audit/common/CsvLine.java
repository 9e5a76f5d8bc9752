package io.smetric.audit.common;

import java.util.ArrayList;
import java.util.List;

/** One line of CSV split into fields (RFC 4180 quotes and doubled quotes; no line breaks inside fields). */
public final class CsvLine {
  private CsvLine() {}

  /** The fields of one line; null on an unclosed quote. */
  public static List<String> split(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean q = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (q) {
        if (c == '"') {
          if (i + 1 < line.length() && line.charAt(i + 1) == '"') {
            cur.append('"');
            i++;
          } else {
            q = false;
          }
        } else {
          cur.append(c);
        }
      } else if (c == '"') {
        q = true;
      } else if (c == ',') {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    if (q) return null;
    out.add(cur.toString());
    return out;
  }
}
