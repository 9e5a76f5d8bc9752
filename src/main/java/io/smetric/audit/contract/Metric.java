package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;

/**
 * One number a stage hands on, or the reason it cannot be computed (Deequ's one metric type: never
 * an exception, never a zero). The characterization writes its numbers in this shape and the
 * verdict reads them (and the replay's gains, which carry more fields beside these) back into it,
 * through the one serde below, so writer and reader share the field names.
 *
 * <p>JSON shape: {@code {"value": 0.66}} or {@code {"value": null, "not_applicable": "trace has no
 * sessions"}}, plus optional {@code "unit"}, {@code "numerator"} and {@code "denominator"} strings
 * naming what was divided, and an optional {@code "interval": {"low": .., "high": ..}} (e.g. a
 * replay gain over bootstrap replicates: a criterion whose threshold lies inside it is too close to
 * call). A value that is NaN or infinite is stored as null (JSON has neither).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({Metric.VALUE, Metric.NOT_APPLICABLE, Metric.UNIT, Metric.NUMERATOR, Metric.DENOMINATOR, Metric.INTERVAL})
public record Metric(
    @JsonProperty(VALUE) @JsonInclude(JsonInclude.Include.ALWAYS) Double value,
    @JsonProperty(NOT_APPLICABLE) String notApplicable,
    @JsonProperty(UNIT) String unit,
    @JsonProperty(NUMERATOR) String numerator,
    @JsonProperty(DENOMINATOR) String denominator,
    @JsonProperty(INTERVAL) Interval interval) {

  public static final String VALUE = "value";
  public static final String NOT_APPLICABLE = "not_applicable";
  public static final String UNIT = "unit";
  public static final String NUMERATOR = "numerator";
  public static final String DENOMINATOR = "denominator";
  public static final String INTERVAL = "interval";

  /** An uncertainty interval [low, high]; other fields beside them (level, replicates) are not read here. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({Interval.LOW, Interval.HIGH})
  public record Interval(@JsonProperty(LOW) Double low, @JsonProperty(HIGH) Double high) {
    public static final String LOW = "low";
    public static final String HIGH = "high";
  }

  public Metric {
    if (value != null && (value.isNaN() || value.isInfinite())) value = null;
  }

  public static Metric of(double v) {
    return new Metric(v, null, null, null, null, null);
  }

  public static Metric of(double v, String unit) {
    return new Metric(v, null, unit, null, null, null);
  }

  public static Metric of(double v, double low, double high) {
    return new Metric(v, null, null, null, null, new Interval(low, high));
  }

  /** A ratio; a zero denominator is not applicable with {@code reasonIfEmpty}. */
  public static Metric ratio(double num, double den, String numerator, String denominator, String reasonIfEmpty) {
    if (den == 0) return new Metric(null, reasonIfEmpty, null, numerator, denominator, null);
    return new Metric(num / den, null, null, numerator, denominator, null);
  }

  public static Metric na(String reason) {
    return new Metric(null, reason, null, null, null, null);
  }

  /** Not marked not applicable (the value may still be null, e.g. a quantile of nothing). */
  public boolean applicable() {
    return notApplicable == null;
  }

  /** A value to judge: present and a number. */
  public boolean present() {
    return value != null;
  }

  public String notApplicableOr(String fallback) {
    return notApplicable != null ? notApplicable : fallback;
  }

  public boolean hasInterval() {
    return interval != null && interval.low() != null && interval.high() != null
        && !interval.low().isNaN() && !interval.high().isNaN();
  }

  /** The interval's low end (null without one). */
  public Double low() {
    return interval == null ? null : interval.low();
  }

  public Double high() {
    return interval == null ? null : interval.high();
  }

  public ObjectNode toJson() {
    return Json.MAPPER.valueToTree(this);
  }

  /**
   * Reads a metric: a node in this shape, or a bare number. What the verdict judges on is the value
   * (with its interval when both ends are numbers) or the reason; a node that is missing reads as
   * "{@code what} was not computed", one without a number or reason as "{@code what} has no value".
   */
  public static Metric read(JsonNode node, String what) {
    if (node == null || node.isMissingNode()) return na(what + " was not computed");
    if (node.isNumber()) return of(node.asDouble());
    Metric m = null;
    if (node.isObject()) {
      // a value that is no number (e.g. text) is none, and an interval that is no object (the
      // capacity answer's "point estimate: ...") no interval: neither is a reason to lose the rest
      ObjectNode n = ((ObjectNode) node).deepCopy();
      if (!n.path(VALUE).isNumber()) n.remove(VALUE);
      if (!n.path(INTERVAL).isObject()) n.remove(INTERVAL);
      try {
        m = Json.MAPPER.treeToValue(n, Metric.class);
      } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
        m = null; // another field of another type: nothing to judge
      }
    }
    return m == null ? na(what + " has no value") : judged(m, what);
  }

  /**
   * What the verdict judges of a metric read as a record field (as {@link #read} does for a node):
   * its value, with its interval when both ends are numbers, or its reason; a metric that is missing
   * reads as "{@code what} was not computed", one without a number or reason as "{@code what} has no value".
   */
  public static Metric judged(Metric m, String what) {
    if (m == null) return na(what + " was not computed");
    if (m.value() != null) return m.hasInterval() ? of(m.value(), m.low(), m.high()) : of(m.value());
    return na(m.notApplicable() != null ? m.notApplicable() : what + " has no value");
  }
}
