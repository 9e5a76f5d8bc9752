package io.smetric.audit.characterize;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;

/**
 * One number of characterization.json, or the reason it cannot be computed (Deequ style: never an
 * exception, never a zero). JSON shape: {@code {"value": 0.66}} or
 * {@code {"value": null, "not_applicable": "trace has no sessions"}}, plus optional
 * {@code "unit"}, {@code "numerator"} and {@code "denominator"} strings naming what was divided.
 */
public record Metric(Double value, String notApplicable, String unit, String numerator, String denominator) {

  public static Metric of(double v) {
    return new Metric(v, null, null, null, null);
  }

  public static Metric of(double v, String unit) {
    return new Metric(v, null, unit, null, null);
  }

  /** A ratio; a zero denominator is not applicable with {@code reasonIfEmpty}. */
  public static Metric ratio(double num, double den, String numerator, String denominator, String reasonIfEmpty) {
    if (den == 0) return new Metric(null, reasonIfEmpty, null, numerator, denominator);
    return new Metric(num / den, null, null, numerator, denominator);
  }

  public static Metric na(String reason) {
    return new Metric(null, reason, null, null, null);
  }

  public boolean applicable() {
    return notApplicable == null;
  }

  public ObjectNode toJson() {
    ObjectNode n = Json.object();
    if (value == null || value.isNaN() || value.isInfinite()) n.putNull("value");
    else n.put("value", value);
    if (notApplicable != null) n.put("not_applicable", notApplicable);
    if (unit != null) n.put("unit", unit);
    if (numerator != null) n.put("numerator", numerator);
    if (denominator != null) n.put("denominator", denominator);
    return n;
  }
}
