package io.smetric.audit.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * The report's one number formatter: each form on values worked out by hand, including the edges
 * a report meets (infinite guard thresholds, absent metrics, values Jackson wrote as text).
 */
class NumbersTest {
  private static JsonNode json(String s) throws Exception {
    return Json.MAPPER.readTree(s);
  }

  @Test
  void sig4_keepsFourSignificantDigits_withoutTrailingZerosOrExponent() {
    assertEquals("0.8", Numbers.sig4(0.8));
    assertEquals("1.235", Numbers.sig4(1.23456));
    assertEquals("12350", Numbers.sig4(12345.6));
    assertEquals("0.0001235", Numbers.sig4(0.000123456));
    assertEquals("25", Numbers.sig4(25.0));
    assertEquals("0", Numbers.sig4(0.0));
    assertEquals("inf", Numbers.sig4(Double.POSITIVE_INFINITY));
    assertEquals("-inf", Numbers.sig4(Double.NEGATIVE_INFINITY));
    assertEquals("n/a", Numbers.sig4(Double.NaN));
    assertEquals("n/a", Numbers.sig4((Double) null));
  }

  @Test
  void jsonForms_printNaForAnythingButANumber() throws Exception {
    assertEquals("0.2446", Numbers.sig4(json("0.24460")));
    assertEquals("n/a", Numbers.sig4(json("null")));
    assertEquals("n/a", Numbers.sig4(json("\"0.5\"")));
    assertEquals("80.3%", Numbers.percent(json("0.8031")));
    assertEquals("n/a", Numbers.percent(json("{}").path("value")));
    assertEquals("-24.3%", Numbers.signedPercent(json("-0.2433")));
    assertEquals("+2.0%", Numbers.signedPercent(json("0.02")));
    assertEquals("n/a", Numbers.signedPercent((JsonNode) null));
  }

  @Test
  void percentAndSig3_areTheEvidenceTablesForms() {
    assertEquals("63.3%", Numbers.percent(0.6333));
    assertEquals("12.35%", Numbers.percent(0.12346, 2)); // the measured-cache table's form
    assertEquals("50.00%", Numbers.percent(0.5, 2));
    assertEquals("30.0", Numbers.sig3(30)); // the thresholds print like this in verdict sentences
    assertEquals("1.21", Numbers.sig3(1.2149));
    assertEquals("8.25", Numbers.sig3(8.25));
  }

  @Test
  void sig3_neverAnExponent_countsWithThousandsSeparators() throws Exception {
    // %.3g printed the shipped sample's 1,218 sessions as 1.22e+03 in the evidence table
    assertEquals("1,218", Numbers.sig3(1218));
    assertEquals("1,000", Numbers.sig3(999.5));
    assertEquals("999", Numbers.sig3(999.4));
    assertEquals("-67,764,709", Numbers.sig3(-67_764_709));
    assertEquals("0.0000123", Numbers.sig3(0.0000123));
    assertEquals("inf", Numbers.sig3(Double.POSITIVE_INFINITY));
    assertEquals("3,000", Numbers.count(3000));
    assertEquals("40", Numbers.count(json("40")));
    assertEquals("0.5", Numbers.count(json("0.5")));
  }

  @Test
  void exact_printsTheDoubleAsWritten() {
    assertEquals("0.8", Numbers.exact(0.8));
    assertEquals("3.2", Numbers.exact(3.2));
    assertEquals("25", Numbers.exact(25.0));
    assertEquals("0.2446", Numbers.exact(0.2446));
    assertEquals("0.30000000000000004", Numbers.exact(0.1 + 0.2)); // exact, unlike sig4
  }

  @Test
  void withUnit_scalesToTheDisplayUnit_andNamesInfinity() {
    assertEquals("150 ms", Numbers.withUnit(0.15, 1000, "ms", "unlimited"));
    assertEquals("6.8 GB/s", Numbers.withUnit(6.8, 1, "GB/s", "unlimited"));
    assertEquals("0.75", Numbers.withUnit(0.75, 1, "", "inf"));
    assertEquals("unlimited", Numbers.withUnit(Double.POSITIVE_INFINITY, 1, "x", "unlimited"));
    assertEquals("inf", Numbers.withUnit(Double.POSITIVE_INFINITY, 1, "", "inf"));
  }

  @Test
  void parse_readsNumbersJacksonWroteAsText() throws Exception {
    assertEquals(Double.POSITIVE_INFINITY, Numbers.parse(json("\"Infinity\"")));
    assertEquals(1.5, Numbers.parse(json("1.5")));
    assertTrue(Double.isNaN(Numbers.parse(json("\"fast\""))));
    assertTrue(Double.isNaN(Numbers.parse(json("null"))));
    assertTrue(Double.isNaN(Numbers.parse(null)));
  }
}
