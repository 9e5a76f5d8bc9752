package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Offered rates in the units the page prints: the replay's rate scale (a multiple of the trace's
 * own rate, "x0.2446") and, under session-tree scaling, the session trees started per minute it
 * means, the unit of the TPS-by-rate charts' axis. Tree starts move by exactly 1 / rate scale
 * (docs/replay.md, "Arrivals"), so every run's {@code offered_sessions_per_min / rate_scale} is the
 * trace's own tree rate; the median over replay.json's runs is taken.
 */
final class OfferedRate {
  private OfferedRate() {}

  /** Session trees started per minute at rate scale x1, or null (uniform scaling, or no run has the metric). */
  static Double treesPerMinuteAtX1(JsonNode replay) {
    io.smetric.audit.contract.SettingsBlock settings = io.smetric.audit.contract.SettingsBlock.of(replay);
    if (settings == null || !settings.sessionScaling()) return null;
    List<Double> per = new ArrayList<>();
    for (JsonNode r : replay.path("runs")) {
      JsonNode m = r.path("metrics").path("offered_sessions_per_min");
      double x = r.path("rate_scale").asDouble(Double.NaN);
      if (m.isNumber() && x > 0) per.add(m.asDouble() / x);
    }
    if (per.isEmpty()) return null;
    Collections.sort(per);
    int n = per.size();
    return n % 2 == 1 ? per.get(n / 2) : (per.get(n / 2 - 1) + per.get(n / 2)) / 2;
  }

  /** "x0.2446 (10.3 session trees/min)", or "x0.2446" without the mapping. */
  static String text(JsonNode replay, double rateScale) {
    Double base = treesPerMinuteAtX1(replay);
    String x = "x" + Numbers.sig4(rateScale);
    return base == null ? x : x + " (" + Numbers.sig4(rateScale * base) + " session trees/min)";
  }

  /** The sentence that writes the mapping down, or "" without session-tree scaling. */
  static String mapping(JsonNode replay) {
    Double base = treesPerMinuteAtX1(replay);
    return base == null ? "" : " Offered rates: x1 is the trace's own rate, " + Numbers.sig4(base)
        + " session trees started per minute; xr starts r times as many (each tree keeps its own time between turns).";
  }
}
