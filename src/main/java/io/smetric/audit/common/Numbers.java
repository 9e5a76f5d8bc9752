package io.smetric.audit.common;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * How numbers are printed for people (report pages, verdict sentences, chart captions and titles):
 * the one formatter every part of the report uses, so that a share, a gain or a capacity reads the
 * same in the page, in audit.json's sentences and in the criteria's reasons. Every method formats
 * with {@link Locale#ROOT}; absent values (a null, a JSON node that is not a number) print "n/a".
 */
public final class Numbers {
  private Numbers() {}

  /** Printed where a value is absent. */
  public static final String NA = "n/a";

  /** Four significant digits, trailing zeros dropped, no exponent: 0.8, 1.234, 12350; "inf", "-inf", "n/a" (NaN). */
  public static String sig4(double x) {
    if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
    if (Double.isNaN(x)) return NA;
    return new BigDecimal(String.format(Locale.ROOT, "%.4g", x)).stripTrailingZeros().toPlainString();
  }

  /** {@link #sig4(double)}, "n/a" for null. */
  public static String sig4(Double x) {
    return x == null ? NA : sig4(x.doubleValue());
  }

  /** {@link #sig4(double)} of a JSON number, "n/a" for anything else. */
  public static String sig4(JsonNode n) {
    return n != null && n.isNumber() ? sig4(n.asDouble()) : NA;
  }

  /**
   * Three significant digits as {@code %.3g} prints them, trailing zeros kept (30.0, 1.21, 0.0500),
   * but never an exponent: from 1,000 on (where {@code %.3g} would print 1.22e+03) the whole number
   * with thousands separators (1,218, as {@link #count(long)}); below 0.0001 the plain decimal.
   */
  public static String sig3(double x) {
    if (Double.isNaN(x) || Double.isInfinite(x)) return sig4(x);
    if (Math.abs(x) >= 999.5) return count(Math.round(x));
    String s = String.format(Locale.ROOT, "%.3g", x);
    return s.contains("e") ? new BigDecimal(s).toPlainString() : s;
  }

  /** A count as a whole number with thousands separators: 1218 -> "1,218", 67764709 -> "67,764,709". */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** {@link #count(long)} of a JSON integer (a whole number), else {@link #sig4(JsonNode)}. */
  public static String count(JsonNode n) {
    return n != null && n.isNumber() && n.asDouble() == Math.rint(n.asDouble()) && !Double.isInfinite(n.asDouble())
        ? count(n.asLong()) : sig4(n);
  }

  /** The exact decimal of a double without exponent or trailing zeros: 0.8, 3.2, 0.2446, 25. */
  public static String exact(double x) {
    return BigDecimal.valueOf(x).stripTrailingZeros().toPlainString();
  }

  /** A share as a percentage with one decimal: 0.803 -> "80.3%". */
  public static String percent(double share) {
    return percent(share, 1);
  }

  /** A share as a percentage with {@code decimals} decimals. */
  public static String percent(double share, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f%%", 100 * share);
  }

  /** {@link #percent(double)}, "n/a" for null. */
  public static String percent(Double share) {
    return share == null ? NA : percent(share.doubleValue());
  }

  /** {@link #percent(double)} of a JSON number, "n/a" for anything else. */
  public static String percent(JsonNode n) {
    return n != null && n.isNumber() ? percent(n.asDouble()) : NA;
  }

  /** A relative gain as a signed percentage with one decimal: -0.243 -> "-24.3%", 0.02 -> "+2.0%". */
  public static String signedPercent(double gain) {
    return String.format(Locale.ROOT, "%+.1f%%", 100 * gain);
  }

  /** {@link #signedPercent(double)} of a JSON number, "n/a" for anything else. */
  public static String signedPercent(JsonNode n) {
    return n != null && n.isNumber() ? signedPercent(n.asDouble()) : NA;
  }

  /**
   * A value of a swept parameter in its display unit: {@code value x unitScale} with four significant
   * digits and the unit after a space (no unit: the number alone); infinity prints {@code infinity}.
   */
  public static String withUnit(double value, double unitScale, String unit, String infinity) {
    if (Double.isInfinite(value)) return infinity;
    String x = sig4(value * unitScale);
    return unit == null || unit.isEmpty() ? x : x + " " + unit;
  }

  /** A number Jackson may have written as text ("Infinity", "NaN"); NaN when it is neither. */
  public static double parse(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) return Double.NaN;
    if (n.isNumber()) return n.asDouble();
    try {
      return Double.parseDouble(n.asText());
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
