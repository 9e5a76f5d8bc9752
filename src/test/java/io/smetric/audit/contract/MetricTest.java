package io.smetric.audit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import org.junit.jupiter.api.Test;

/** The one metric shape: what the characterization writes and what the verdict reads back. */
class MetricTest {

  private static String text(Metric m) throws Exception {
    return Json.MAPPER.writer().without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
        .writeValueAsString(m.toJson());
  }

  private static JsonNode tree(String json) throws Exception {
    return Json.MAPPER.readTree(json);
  }

  @Test
  void ratio_writesValueThenItsNamesInTheFileOrder() throws Exception {
    // the order and keys characterization.json had before the shape moved to the hub
    assertEquals("{\"value\":0.25,\"numerator\":\"hit tokens\",\"denominator\":\"prefill tokens\"}",
        text(Metric.ratio(1, 4, "hit tokens", "prefill tokens", "none")));
    assertEquals("{\"value\":null,\"not_applicable\":\"none\",\"numerator\":\"a\",\"denominator\":\"b\"}",
        text(Metric.ratio(1, 0, "a", "b", "none")));
    assertEquals("{\"value\":1.5,\"unit\":\"s\"}", text(Metric.of(1.5, "s")));
  }

  @Test
  void nanOrInfinite_writesANullValueWithoutAReason() throws Exception {
    assertEquals("{\"value\":null}", text(Metric.of(Double.NaN)));
    assertEquals("{\"value\":null}", text(Metric.of(Double.POSITIVE_INFINITY)));
    assertFalse(Metric.of(Double.NaN).present());
  }

  @Test
  void read_roundTripsWhatWasWritten() {
    Metric m = Metric.read(Metric.ratio(3, 4, "a", "b", "none").toJson(), "x");
    assertEquals(0.75, m.value());
    assertTrue(m.present());
    Metric na = Metric.read(Metric.na("trace has no sessions").toJson(), "x");
    assertNull(na.value());
    assertEquals("trace has no sessions", na.notApplicable());
  }

  @Test
  void read_takesTheIntervalAndIgnoresTheFieldsBesideIt() throws Exception {
    // a replay gain: more fields than the metric's, the interval with its level and replicates
    Metric m = Metric.read(tree("{\"value\":0.05,\"global_ratio\":0.4,\"load\":1.2,"
        + "\"interval\":{\"low\":-0.01,\"high\":0.11,\"level\":0.95,\"replicates\":20}}"), "gain");
    assertEquals(0.05, m.value());
    assertTrue(m.hasInterval());
    assertEquals(-0.01, m.low());
    assertEquals(0.11, m.high());
    Metric half = Metric.read(tree("{\"value\":0.05,\"interval\":{\"low\":-0.01}}"), "gain");
    assertFalse(half.hasInterval());
    assertNull(half.interval());
  }

  @Test
  void read_missingBareOrMalformed_namesWhat() throws Exception {
    assertEquals("gain was not computed", Metric.read(tree("{}").path("nope"), "gain").notApplicable());
    assertEquals(2.0, Metric.read(tree("2"), "gain").value());
    assertEquals("gain has no value", Metric.read(tree("{\"value\":null}"), "gain").notApplicable());
    assertEquals("gain has no value", Metric.read(tree("{\"value\":\"many\"}"), "gain").notApplicable());
    assertEquals("gain has no value", Metric.read(tree("null"), "gain").notApplicable());
    // a textual interval (the capacity answer's "point estimate: ...") is no interval
    Metric p = Metric.read(tree("{\"value\":3,\"interval\":\"point estimate\"}"), "capacity");
    assertEquals(3.0, p.value());
    assertFalse(p.hasInterval());
  }
}
