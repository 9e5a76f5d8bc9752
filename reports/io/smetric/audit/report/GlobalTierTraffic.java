package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.EqualLoadBlock;
import io.smetric.audit.contract.GlobalTierBlock;
import java.util.ArrayList;
import java.util.List;

/**
 * The global tier's traffic per router at equal load (issue 26 item 5), from replay.json's
 * {@code equal_load} and {@code global_tier} blocks: bytes read, mean and peak read rate (the peak
 * is the busiest bandwidth window, per second) beside the tier's limits, and session migrations.
 * The paper's mechanism is that load balancing moves data onto the global tier until it
 * saturates; this table shows whether any router came near a limit in the replay.
 */
final class GlobalTierTraffic {
  private GlobalTierTraffic() {}

  /** One row: capacity, load, router and the numbers the table prints (GB, GB/s). */
  record Row(double globalRatio, double load, String router, double gbRead, double meanGbps, double peakGbps,
      double peakOfAggregate, double peakOfCeiling, double migrations) {}

  /** The rows of every capacity above 0 at every equal load, in replay.json's order. */
  static List<Row> rows(JsonNode replay) {
    List<Row> out = new ArrayList<>();
    EqualLoadBlock el = EqualLoadBlock.of(replay);
    if (el == null || el.byGlobalRatio() == null) return out;
    GlobalTierBlock lim = GlobalTierBlock.of(replay);
    double agg = limit(lim == null ? null : lim.aggregateGbps());
    double ceil = limit(lim == null ? null : lim.readCeilingGbps());
    for (EqualLoadBlock.Row e : el.byGlobalRatio()) {
      double g = e.globalRatio();
      if (g <= 0 || e.points() == null) continue;
      for (EqualLoadBlock.Point p : e.points()) {
        if (p.policies() == null) continue;
        for (String n : p.policies().keySet()) {
          double peak = orNaN(p.metric(n, "global_peak_read_bytes_per_s")) / 1e9;
          out.add(new Row(g, p.load(), n, orNaN(p.metric(n, "global_bytes_read")) / 1e9,
              orNaN(p.metric(n, "global_mean_read_bytes_per_s")) / 1e9, peak, peak / agg, peak / ceil,
              orNaN(p.metric(n, "session_migrations"))));
        }
      }
    }
    return out;
  }

  private static double orNaN(Double v) {
    return v == null ? Double.NaN : v;
  }

  /** A written limit; null (JSON has no infinity) and a non-finite value, written as text, mean none. */
  private static double limit(Double v) {
    return v == null || !Double.isFinite(v) ? Double.POSITIVE_INFINITY : v;
  }

  private static boolean has(Double v) {
    return v != null && Double.isFinite(v);
  }

  private static double orZero(Double v) {
    return v == null ? 0 : v;
  }

  static void html(Html h, JsonNode replay) {
    List<Row> rows = rows(replay);
    if (rows.isEmpty()) return;
    GlobalTierBlock lim = GlobalTierBlock.of(replay);
    h.raw("<section id=\"global-tier-traffic\">\n");
    h.tag("h2", null, "The global tier's traffic at equal load");
    h.tag("p", null, limitsSentence(lim) + " " + bindingSentence(rows, lim));
    List<List<String>> cells = new ArrayList<>();
    for (Row r : rows) {
      cells.add(List.of(Numbers.sig4(r.globalRatio()) + "x", Numbers.sig4(r.load()) + "x", r.router(),
          Numbers.sig4(r.gbRead()) + " GB", Numbers.sig4(r.meanGbps()) + " GB/s", Numbers.sig4(r.peakGbps()) + " GB/s",
          share(r.peakOfAggregate()), share(r.peakOfCeiling()), Numbers.count(Math.round(r.migrations()))));
    }
    h.table(List.of("global tier", "load", "router", "read from the global tier", "mean read rate", "peak read rate",
        "peak / aggregate limit", "peak / cluster read ceiling", "session migrations"), cells, "global-tier-traffic");
    h.raw("</section>\n");
  }

  private static String share(double x) {
    return Double.isNaN(x) ? Numbers.NA : Numbers.percent(x);
  }

  /** The limits the replay applied, in words. */
  static String limitsSentence(GlobalTierBlock lim) {
    if (lim == null) return "The replay did not record its global-tier limits.";
    String source = lim.aggregateSource() == null ? "" : lim.aggregateSource();
    String agg = has(lim.aggregateGbps())
        ? Numbers.sig4(lim.aggregateGbps()) + " GB/s (" + source + ")"
        : "no limit (" + source + ")";
    String nic = has(lim.nicsReadGbps())
        ? Numbers.sig4(orZero(lim.nodeNicGbps())) + " GB/s per node NIC for the remote "
            + Numbers.percent(orZero(lim.remoteShare())) + " of each fetch"
        : "no NIC on the path (" + (lim.nodes() == null ? 0 : lim.nodes()) + " node)";
    return "Limits in this replay: each instance reads at most " + Numbers.sig4(orZero(lim.perInstanceReadGbps()))
        + " GB/s (" + (lim.instances() == null ? 0 : lim.instances()) + " instances: " + Numbers.sig4(orZero(lim.instancesReadGbps()))
        + " GB/s together); " + nic + "; the whole tier " + agg + ". The cluster's read ceiling, all instances reading at "
        + "once, is " + (has(lim.readCeilingGbps()) ? Numbers.sig4(lim.readCeilingGbps())
            + " GB/s" : "unbounded") + ". Peak read rate: the busiest one-second window of the run.";
  }

  /** Whether any router's peak came near the aggregate limit. */
  static String bindingSentence(List<Row> rows, GlobalTierBlock lim) {
    Row top = null;
    for (Row r : rows) if (!Double.isNaN(r.peakGbps()) && (top == null || r.peakGbps() > top.peakGbps())) top = r;
    if (top == null) return "";
    String where = top.router() + " at " + Numbers.sig4(top.globalRatio()) + "x, load " + Numbers.sig4(top.load()) + "x";
    if (lim == null || !has(lim.aggregateGbps())) {
      return "The highest peak is " + Numbers.sig4(top.peakGbps()) + " GB/s (" + where + ").";
    }
    boolean binds = top.peakOfAggregate() >= BINDS;
    return "The highest peak is " + Numbers.sig4(top.peakGbps()) + " GB/s (" + where + "), "
        + Numbers.percent(top.peakOfAggregate()) + " of the aggregate limit: "
        + (binds ? "the aggregate limit binds for at least that router." : "the aggregate limit binds for no router here.");
  }

  /** A peak within 5% of a limit counts as reaching it (the peak is a one-second average). */
  static final double BINDS = 0.95;
}
