package io.smetric.audit.report;

import java.util.List;

/** Minimal HTML building with escaping of everything that comes from a trace or a user. */
public final class Html {
  private final StringBuilder sb = new StringBuilder();

  public static String esc(String s) {
    if (s == null) return "";
    StringBuilder o = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> o.append("&lt;");
        case '>' -> o.append("&gt;");
        case '&' -> o.append("&amp;");
        case '"' -> o.append("&quot;");
        case '\'' -> o.append("&#39;");
        default -> o.append(c);
      }
    }
    return o.toString();
  }

  /** Appends trusted markup (tags written by this code). */
  public Html raw(String markup) {
    sb.append(markup);
    return this;
  }

  /** Appends text, escaped. */
  public Html text(String s) {
    sb.append(esc(s));
    return this;
  }

  public Html tag(String tag, String cls, String text) {
    sb.append('<').append(tag);
    if (cls != null) sb.append(" class=\"").append(esc(cls)).append('"');
    sb.append('>').append(esc(text)).append("</").append(tag).append(">\n");
    return this;
  }

  /** A table; every cell is escaped. */
  public Html table(List<String> header, List<List<String>> rows, String cls) {
    sb.append("<table").append(cls == null ? "" : " class=\"" + esc(cls) + "\"").append(">\n<thead><tr>");
    for (String h : header) sb.append("<th>").append(esc(h)).append("</th>");
    sb.append("</tr></thead>\n<tbody>\n");
    for (List<String> r : rows) {
      sb.append("<tr>");
      for (String c : r) sb.append("<td>").append(esc(c)).append("</td>");
      sb.append("</tr>\n");
    }
    sb.append("</tbody></table>\n");
    return this;
  }

  public Html img(String file, String alt) {
    sb.append("<figure><img src=\"").append(esc(file)).append("\" alt=\"").append(esc(alt)).append("\">")
        .append("<figcaption>").append(esc(alt)).append("</figcaption></figure>\n");
    return this;
  }

  @Override
  public String toString() {
    return sb.toString();
  }
}
