package io.smetric.audit.characterize;

import static io.smetric.audit.characterize.Characterization.FORMAT;
import static io.smetric.audit.characterize.Characterization.NO_BLOCKS;
import static io.smetric.audit.characterize.Characterization.NO_FOLLOW_UP_PARENTS;
import static io.smetric.audit.characterize.Characterization.NO_HITS;
import static io.smetric.audit.characterize.Characterization.NO_SESSIONS;
import static io.smetric.audit.characterize.Characterization.NO_WHOLE_MINUTE;
import static io.smetric.audit.characterize.Characterization.Q;
import static io.smetric.audit.characterize.Characterization.QN;
import static io.smetric.audit.contract.CharacterizationTables.T_INTERVAL_CDF;
import static io.smetric.audit.contract.CharacterizationTables.T_LORENZ;
import static io.smetric.audit.contract.CharacterizationTables.T_RATIO;
import static io.smetric.audit.contract.CharacterizationTables.T_REUSE_MINUTE;
import static io.smetric.audit.contract.CharacterizationTables.T_REUSE_TURN;
import static io.smetric.audit.contract.CharacterizationTables.T_SESSIONS;
import static io.smetric.audit.contract.CharacterizationTables.T_TRIGGERS;
import static io.smetric.audit.contract.CharacterizationTables.T_TURNS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.characterize.Characterization.BlockTotals;
import io.smetric.audit.characterize.Characterization.Options;
import io.smetric.audit.characterize.Characterization.Parts;
import io.smetric.audit.characterize.Characterization.Result;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Cols;
import io.smetric.audit.contract.Metric;
import io.smetric.audit.contract.Source;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * characterization.json and its tables from either engine's {@link Parts}, one method per block of
 * the document (docs/characterization.md, "Fields"): the run's parameters, the trace, data quality,
 * then one per metric family of trace-model.md (section 2 ideal reuse, 3 sources, 4 intervals, 5
 * sessions, 7 request/instance ratio). Nothing here runs a Spark job: the parts hold every number.
 */
final class CharacterizationJson {
  private final Parts p;
  private final Options opt;
  private final RequestTotals rt;
  private final BlockTotals bt;
  private final Map<String, SortedStats.Stats> st;
  private final boolean hasSessions;
  private final boolean hasBlocks;
  /** Hit tokens over all three sources (section 2; the denominator of section 3's shares). */
  private final long hitTokens;
  /** The output tables in the order they are written (and listed under "tables"). */
  private final Map<String, Table> tables = new LinkedHashMap<>();

  private CharacterizationJson(Parts p, Options opt) {
    this.p = p;
    this.opt = opt;
    this.rt = p.rt;
    this.bt = p.bt;
    this.st = p.st;
    this.hasSessions = rt.withSession > 0;
    this.hasBlocks = bt.quality[ReuseAggregates.Q_WITH_BLOCKS] > 0;
    this.hitTokens = bt.hitTok[0] + bt.hitTok[1] + bt.hitTok[2];
  }

  /** The document and the tables; {@code persisted} (the Spark engine's cached datasets) go with the result. */
  static Result assemble(Parts p, Options opt, String location, JsonNode ingestSummary, List<Dataset<Row>> persisted) {
    CharacterizationJson c = new CharacterizationJson(p, opt);
    ObjectNode json = Json.object();
    json.put("format", FORMAT);
    c.parameters(json.putObject("parameters"), location);
    c.trace(json.putObject("trace"));
    c.dataQuality(json.putObject("data_quality"), ingestSummary);
    if (p.reuseRan) json.set("plan_counters", p.plan);
    c.idealReuse(json.putObject("reuse"));
    c.reuseBySource(json.putObject("reuse_by_source"));
    c.reuseInterval(json.putObject("reuse_interval"));
    c.sessions(json.putObject("sessions"));
    c.requestInstanceRatio(json.putObject("request_instance_ratio"));
    ObjectNode tj = json.putObject("tables");
    for (String t : c.tables.keySet()) tj.put(t, t + "/");
    return new Result(json, c.tables, persisted);
  }

  private void parameters(ObjectNode params, String location) {
    params.put("input", location);
    params.put("instances", opt.instances());
    params.put("template_min_sessions", opt.templateMinSessions());
    params.put("interval_threshold_s", opt.intervalThresholdS());
    params.put("interval_rounding_us", 1);
    params.put("minute_clock", "arrival_s as given: minute m = [60m, 60m + 60)");
    params.put("percentiles", "weighted: smallest v whose cumulative weight reaches q; unweighted: nearest rank");
  }

  private void trace(ObjectNode tr) {
    tr.put("requests", rt.requests);
    tr.put("first_arrival_s", rt.firstArrival);
    tr.put("last_arrival_s", rt.lastArrival);
    tr.put("has_sessions", hasSessions);
    tr.put("has_blocks", hasBlocks);
    // distinct non-null session ids = the items of the "turns" distribution
    if (st.containsKey("turns")) tr.put("sessions", st.get("turns").items());
    else tr.putNull("sessions");
    ArrayNode bs = tr.putArray("block_sizes");
    for (Integer b : rt.blockSizes) bs.add(b);
    tr.put("prefill_tokens", rt.prefillTokens);
    tr.put("output_tokens", rt.outputTokens);
    tr.put("blocks", bt.usedBlocks);
  }

  private void dataQuality(ObjectNode dq, JsonNode ingestSummary) {
    long nReq = rt.requests;
    long mismatch = bt.quality[ReuseAggregates.Q_MISMATCH];
    long mismatchLonger = bt.quality[ReuseAggregates.Q_LONGER];
    if (ingestSummary != null) dq.set("ingest", ingestSummary);
    else dq.put("ingest", "no " + AuditLayout.INGEST_SUMMARY_FILE + " next to the trace");
    ObjectNode findings = dq.putObject("analysis");
    findings.put("block_count_mismatch_requests", mismatch);
    findings.put("block_count_mismatch_longer", mismatchLonger);
    findings.put("block_count_mismatch_shorter", mismatch - mismatchLonger);
    findings.put("block_count_mismatch_rule", "analyses use the first min(count, ceil(input_tokens / block_size)) blocks");
    findings.put("requests_without_blocks", nReq - bt.quality[ReuseAggregates.Q_WITH_BLOCKS]);
    findings.put("requests_without_session", nReq - rt.withSession);
    findings.put("requests_without_turn", nReq - rt.withTurn);
  }

  // ---------------------------------------------------------------- section 2: ideal reuse

  private void idealReuse(ObjectNode reuseJ) {
    long hitBlocks = bt.hitBlk[0] + bt.hitBlk[1] + bt.hitBlk[2];
    if (hasBlocks) {
      reuseJ.set("token_weighted", Metric.ratio(hitTokens, rt.prefillTokens, "hit tokens",
          "prefill tokens (sum of input_tokens)", "trace has no prefill tokens").toJson());
      reuseJ.set("block_weighted", Metric.ratio(hitBlocks, bt.usedBlocks, "hit blocks",
          "blocks (first min(count, ceil(input_tokens / block_size)) per request)", "trace has no blocks").toJson());
      reuseJ.put("hit_tokens", hitTokens);
      reuseJ.put("hit_blocks", hitBlocks);
    } else {
      reuseJ.set("token_weighted", Metric.na(NO_BLOCKS).toJson());
      reuseJ.set("block_weighted", Metric.na(NO_BLOCKS).toJson());
    }
    reuseJ.put("per_minute_table", T_REUSE_MINUTE);
    reuseJ.put("per_turn_table", T_REUSE_TURN);
    tables.put(T_REUSE_MINUTE, minuteTable());
    if (rt.withTurn > 0) tables.put(T_REUSE_TURN, turnTable());
  }

  private static List<Table.Col> seriesCols(String key, Table.Kind keyKind, boolean minuteStart) {
    List<Table.Col> c = new ArrayList<>();
    c.add(new Table.Col(key, keyKind, true));
    if (minuteStart) c.add(new Table.Col(Cols.MINUTE_START_S, Table.Kind.DOUBLE, true));
    c.addAll(Table.cols(Cols.REQUESTS, Table.Kind.LONG, Cols.PREFILL_TOKENS, Table.Kind.LONG, Cols.BLOCKS, Table.Kind.LONG,
        Cols.HIT_TOKENS, Table.Kind.LONG, Cols.HIT_BLOCKS, Table.Kind.LONG, Cols.hitTokens(Source.INTRA_SESSION),
        Table.Kind.LONG, Cols.hitTokens(Source.SYSTEM_PROMPT), Table.Kind.LONG, Cols.hitTokens(Source.INTER_SESSION),
        Table.Kind.LONG, Cols.REUSE_TOKEN, Table.Kind.DOUBLE, Cols.REUSE_BLOCK, Table.Kind.DOUBLE));
    return c;
  }

  private Object[] seriesValues(long n, long prefill, long[] hit) {
    if (n == 0) return new Object[] {0L, null, null, null, null, null, null, null, null, null};
    if (!hasBlocks) return new Object[] {n, prefill, null, null, null, null, null, null, null, null};
    long[] h = hit == null ? new long[7] : hit;
    long blocks = h[6];
    long ht = h[0] + h[1] + h[2], hb = h[3] + h[4] + h[5];
    return new Object[] {n, prefill, blocks, ht, hb, h[0], h[1], h[2],
        prefill == 0 ? null : (double) ht / prefill, blocks == 0 ? null : (double) hb / blocks};
  }

  private Table minuteTable() {
    List<Object[]> out = new ArrayList<>();
    for (long m = (long) Math.floor(rt.firstArrival / 60.0); m <= (long) Math.floor(rt.lastArrival / 60.0); m++) {
      long[] r = rt.byMinute.get(m);
      Object[] v = r == null ? seriesValues(0, 0, null) : seriesValues(r[0], r[1], bt.hitByMinute.get(m));
      Object[] row = new Object[v.length + 2];
      row[0] = m;
      row[1] = 60.0 * m;
      System.arraycopy(v, 0, row, 2, v.length);
      out.add(row);
    }
    return Table.of(seriesCols(Cols.MINUTE, Table.Kind.LONG, true), out);
  }

  private Table turnTable() {
    List<Object[]> out = new ArrayList<>();
    for (var e : rt.byTurn.long2ObjectEntrySet()) {
      int t = (int) e.getLongKey();
      Object[] v = seriesValues(e.getValue()[0], e.getValue()[1], bt.hitByTurn.get((long) t));
      Object[] row = new Object[v.length + 1];
      row[0] = t;
      System.arraycopy(v, 0, row, 1, v.length);
      out.add(row);
    }
    return Table.of(seriesCols(Cols.TURN, Table.Kind.INT, false), out);
  }

  // ---------------------------------------------------------------- section 3: sources

  private void reuseBySource(ObjectNode src) {
    long[] hitTok = bt.hitTok;
    long prefill = rt.prefillTokens;
    src.put("template_min_sessions", opt.templateMinSessions());
    for (Source so : Source.values()) {
      ObjectNode o = src.putObject(so.label);
      if (!hasBlocks) {
        o.set("share_of_hit_tokens", Metric.na(NO_BLOCKS).toJson());
        o.set("share_of_prefill_tokens", Metric.na(NO_BLOCKS).toJson());
      } else if (!hasSessions) {
        o.set("share_of_hit_tokens", Metric.na(NO_SESSIONS).toJson());
        o.set("share_of_prefill_tokens", Metric.na(NO_SESSIONS).toJson());
      } else {
        o.set("share_of_hit_tokens", Metric.ratio(hitTok[so.ordinal()], hitTokens, so.label + " hit tokens",
            "hit tokens", NO_HITS).toJson());
        o.set("share_of_prefill_tokens", Metric.ratio(hitTok[so.ordinal()], prefill, so.label + " hit tokens",
            "prefill tokens", "trace has no prefill tokens").toJson());
        o.put("hit_tokens", hitTok[so.ordinal()]);
      }
    }
  }

  // ---------------------------------------------------------------- section 4: intervals

  private void reuseInterval(ObjectNode iv) {
    iv.put("threshold_s", opt.intervalThresholdS());
    iv.put("cdf_table", T_INTERVAL_CDF);
    Map<String, Long> within = new TreeMap<>();
    if (p.reuseRan && hasBlocks) {
      for (int so = 0; so < 3; so++) {
        if (bt.withinBySrc[so] != null) within.put(Source.values()[so].label, bt.withinBySrc[so]);
      }
      within.put(Source.ALL, within.values().stream().mapToLong(Long::longValue).sum());
      tables.put(T_INTERVAL_CDF, intervalCdf(bt.cdfBuckets));
    }
    List<String> ivGroups = new ArrayList<>(List.of(Source.ALL));
    for (Source so : Source.values()) ivGroups.add(so.label);
    for (String gname : ivGroups) {
      ObjectNode o = iv.putObject(gname);
      String reason = !hasBlocks ? NO_BLOCKS : (!hasSessions && !gname.equals(Source.ALL)) ? NO_SESSIONS : null;
      SortedStats.Stats x = st.get("interval:" + gname);
      if (reason == null && x == null) reason = gname.equals(Source.ALL) ? NO_HITS : "no hit tokens from this source";
      for (int i = 0; i < Q.length; i++) {
        o.set(QN[i] + "_s", reason != null ? Metric.na(reason).toJson() : Metric.of(x.quantiles()[i] / 1e6, "s").toJson());
      }
      o.set("share_within_threshold", reason != null ? Metric.na(reason).toJson()
          : Metric.ratio(within.getOrDefault(gname, 0L), x.weight(), "hit tokens with interval <= threshold",
              "hit tokens", NO_HITS).toJson());
      if (reason == null) o.put("hit_tokens", x.weight());
    }
  }

  /** Token-weighted CDF on log buckets (20 per decade of microseconds), per source and overall, from the bucket sums. */
  private static Table intervalCdf(Map<String, TreeMap<Integer, Long>> buckets) {
    List<Object[]> out = new ArrayList<>();
    for (var e : new TreeMap<>(buckets).entrySet()) {
      long total = 0;
      for (long t : e.getValue().values()) total += t;
      long cum = 0;
      for (var b : e.getValue().entrySet()) {
        cum += b.getValue();
        int k = b.getKey();
        double le = k < 0 ? 0.0 : StrictMath.pow(10.0, k / 20.0) / 1e6;
        out.add(new Object[] {e.getKey(), le, b.getValue(), (double) cum / total});
      }
    }
    return Table.of(Table.cols(Cols.SOURCE, Table.Kind.STRING, Cols.INTERVAL_LE_S, Table.Kind.DOUBLE, Cols.TOKENS,
        Table.Kind.LONG, Cols.CUM_SHARE, Table.Kind.DOUBLE), out);
  }

  // ---------------------------------------------------------------- section 5: sessions

  private void sessions(ObjectNode se) {
    if (!hasSessions) {
      for (String k : new String[] {"first_turn_fraction", "trigger_mix", "turns_per_session", "duration_s",
          "think_time_s", "token_skew"}) {
        se.set(k, Metric.na(NO_SESSIONS).toJson());
      }
      return;
    }
    long followUps = rt.followUps();
    se.set("first_turn_fraction", Metric.ratio(rt.turn0, rt.requests, "requests with turn 0", "requests", "no requests")
        .toJson());
    triggerMix(se.putObject("trigger_mix"), followUps);
    se.put("follow_ups", followUps);
    turnsPerSession(se.putObject("turns_per_session"));
    durations(se.putObject("duration_s"), st.get("duration_us"));
    thinkTime(se.putObject("think_time_s"), followUps);
    tokenSkew(se.putObject("token_skew"));
    tables.put(T_SESSIONS, p.sessions);
  }

  /** Trigger shares over all requests and over follow-ups (sorted by trigger: a TreeMap). */
  private void triggerMix(ObjectNode mix, long followUps) {
    long nReq = rt.requests;
    ObjectNode allM = mix.putObject("all_requests");
    ObjectNode fuM = mix.putObject("follow_ups");
    List<Object[]> trigRows = new ArrayList<>();
    for (var e : rt.byTrigger.entrySet()) {
      String t = e.getKey();
      long n = e.getValue()[0], f = e.getValue()[1];
      allM.set(t, Metric.ratio(n, nReq, "requests with trigger " + t, "requests", "no requests").toJson());
      fuM.set(t, Metric.ratio(f, followUps, "follow-ups with trigger " + t, "follow-ups (turn > 0)",
          "trace has no follow-up requests").toJson());
      trigRows.add(new Object[] {"all_requests", t, n, (double) n / nReq});
      trigRows.add(new Object[] {"follow_ups", t, f, followUps == 0 ? null : (double) f / followUps});
    }
    tables.put(T_TRIGGERS, Table.of(Table.cols(Cols.SCOPE, Table.Kind.STRING, Cols.TRIGGER, Table.Kind.STRING,
        Cols.REQUESTS, Table.Kind.LONG, Cols.SHARE, Table.Kind.DOUBLE), trigRows));
  }

  private void turnsPerSession(ObjectNode tp) {
    SortedStats.Stats turns = st.get("turns");
    tp.set("mean", Metric.of(turns.mean()).toJson());
    for (int i = 0; i < Q.length; i++) tp.set(QN[i], Metric.of(turns.quantiles()[i]).toJson());
    tp.set("max", Metric.of(turns.max()).toJson());
    tp.put("table", T_TURNS);
    // the turns distribution's (value, items) rows are the histogram: no further job
    List<Object[]> hist = new ArrayList<>();
    for (long[] h : turns.histogram()) hist.add(new Object[] {h[0], h[1]});
    tables.put(T_TURNS, Table.of(Table.cols(Cols.REQUESTS, Table.Kind.LONG, Cols.SESSIONS, Table.Kind.LONG), hist));
  }

  /** Mean, quantiles and max of a distribution in microseconds, in seconds. */
  private static void durations(ObjectNode o, SortedStats.Stats us) {
    o.set("mean", Metric.of(us.mean() / 1e6, "s").toJson());
    for (int i = 0; i < Q.length; i++) o.set(QN[i], Metric.of(us.quantiles()[i] / 1e6, "s").toJson());
    o.set("max", Metric.of(us.max() / 1e6, "s").toJson());
  }

  private void thinkTime(ObjectNode tt, long followUps) {
    SortedStats.Stats th = st.get("think_us");
    long withParent = th != null ? th.items() : 0;
    tt.put("follow_ups_with_parent_in_trace", withParent);
    tt.put("follow_ups_without_parent_in_trace", followUps - withParent);
    if (th == null) {
      for (String k : new String[] {"mean", "p50", "p90", "p99", "max"}) tt.set(k, Metric.na(NO_FOLLOW_UP_PARENTS).toJson());
    } else {
      durations(tt, th);
    }
  }

  private void tokenSkew(ObjectNode sk) {
    SortedStats.Stats tok = st.get("tokens");
    sk.put("session_tokens", "input_tokens + output_tokens over the session's requests");
    sk.put("top_sessions", (long) Math.ceil(0.25 * tok.items()));
    String reason = tok.weight() == 0 ? "sessions hold no tokens" : null;
    sk.set("top_25pct_share", reason != null ? Metric.na(reason).toJson() : Metric.of(tok.topShare()).toJson());
    sk.set("gini", reason != null ? Metric.na(reason).toJson() : Metric.of(tok.gini()).toJson());
    sk.put("lorenz_table", T_LORENZ);
    List<Object[]> lz = new ArrayList<>();
    for (int i = 0; i < tok.lorenzPopulation().length; i++) lz.add(new Object[] {tok.lorenzPopulation()[i], tok.lorenzShare()[i]});
    tables.put(T_LORENZ, Table.of(Table.cols(Cols.POPULATION_SHARE, Table.Kind.DOUBLE, Cols.TOKEN_SHARE, Table.Kind.DOUBLE), lz));
  }

  // ---------------------------------------------------------------- section 7: request / instance ratio

  private void requestInstanceRatio(ObjectNode o) {
    int instances = opt.instances();
    o.put("instances", instances);
    long mFirst = (long) Math.ceil(rt.firstArrival / 60.0);
    long mLast = (long) Math.floor(rt.lastArrival / 60.0) - 1; // [60m, 60m + 60) must end by the last arrival
    List<Object[]> rows = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    for (long m = mFirst; m <= mLast; m++) {
      long[] v = rt.byMinute.get(m);
      long a = v == null ? 0L : v[0];
      double ratio = (double) a / instances;
      ratios.add(ratio);
      rows.add(new Object[] {m, 60.0 * m, a, ratio});
    }
    o.put("whole_minutes", ratios.size());
    o.put("table", T_RATIO);
    tables.put(T_RATIO, Table.of(Table.cols(Cols.MINUTE, Table.Kind.LONG, Cols.MINUTE_START_S, Table.Kind.DOUBLE,
        Cols.ARRIVALS, Table.Kind.LONG, Cols.RATIO, Table.Kind.DOUBLE), rows));
    if (ratios.isEmpty()) {
      for (String k : new String[] {"mean", "min", "p5", "p50"}) o.set(k, Metric.na(NO_WHOLE_MINUTE).toJson());
      return;
    }
    double sumR = 0;
    for (double r : ratios) sumR += r;
    List<Double> sorted = new ArrayList<>(ratios);
    sorted.sort(Double::compare);
    o.set("mean", Metric.of(sumR / ratios.size()).toJson());
    o.set("min", Metric.of(sorted.get(0)).toJson());
    o.set("p5", Metric.of(nearestRank(sorted, 0.05)).toJson());
    o.set("p50", Metric.of(nearestRank(sorted, 0.5)).toJson());
  }

  /** Unweighted nearest rank: sorted[ceil(q n) - 1]. */
  static double nearestRank(List<Double> sorted, double q) {
    int idx = (int) Math.ceil(new java.math.BigDecimal(Double.toString(q))
        .multiply(java.math.BigDecimal.valueOf(sorted.size())).doubleValue()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, idx)));
  }
}
