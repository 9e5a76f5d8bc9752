package io.smetric.audit.characterize;

import static io.smetric.audit.characterize.Characterization.FORMAT;
import static io.smetric.audit.characterize.Characterization.NO_BLOCKS;
import static io.smetric.audit.characterize.Characterization.NO_FOLLOW_UP_PARENTS;
import static io.smetric.audit.characterize.Characterization.NO_HITS;
import static io.smetric.audit.characterize.Characterization.NO_SESSIONS;
import static io.smetric.audit.characterize.Characterization.NO_WHOLE_MINUTE;
import static io.smetric.audit.characterize.Characterization.Q;
import static io.smetric.audit.contract.CharacterizationTables.T_INTERVAL_CDF;
import static io.smetric.audit.contract.CharacterizationTables.T_LORENZ;
import static io.smetric.audit.contract.CharacterizationTables.T_RATIO;
import static io.smetric.audit.contract.CharacterizationTables.T_REUSE_MINUTE;
import static io.smetric.audit.contract.CharacterizationTables.T_REUSE_TURN;
import static io.smetric.audit.contract.CharacterizationTables.T_SESSIONS;
import static io.smetric.audit.contract.CharacterizationTables.T_TRIGGERS;
import static io.smetric.audit.contract.CharacterizationTables.T_TURNS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.characterize.Characterization.BlockTotals;
import io.smetric.audit.characterize.Characterization.Options;
import io.smetric.audit.characterize.Characterization.Parts;
import io.smetric.audit.characterize.Characterization.Result;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationSummary;
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
    // the sections in document order: each one registers the tables it writes
    CharacterizationSummary.Parameters params = c.parameters(location);
    CharacterizationSummary.Trace trace = c.trace();
    CharacterizationSummary.DataQuality dq = c.dataQuality(ingestSummary);
    CharacterizationSummary.Reuse reuse = c.idealReuse();
    CharacterizationSummary.ReuseBySource bySource = c.reuseBySource();
    CharacterizationSummary.ReuseInterval interval = c.reuseInterval();
    CharacterizationSummary.Sessions sessions = c.sessions();
    CharacterizationSummary.RequestInstanceRatio ratio = c.requestInstanceRatio();
    ObjectNode tj = Json.object();
    for (String t : c.tables.keySet()) tj.put(t, t + "/");
    CharacterizationSummary doc = new CharacterizationSummary(FORMAT, params, trace, dq, p.reuseRan ? p.plan : null, reuse,
        bySource, interval, sessions, ratio, tj);
    return new Result(doc.toJson(), c.tables, persisted);
  }

  private CharacterizationSummary.Parameters parameters(String location) {
    return new CharacterizationSummary.Parameters(location, opt.instances(), opt.templateMinSessions(),
        opt.intervalThresholdS(), 1, "arrival_s as given: minute m = [60m, 60m + 60)",
        "weighted: smallest v whose cumulative weight reaches q; unweighted: nearest rank");
  }

  private CharacterizationSummary.Trace trace() {
    // distinct non-null session ids = the items of the "turns" distribution
    Long sessions = st.containsKey("turns") ? st.get("turns").items() : null;
    return new CharacterizationSummary.Trace(rt.requests, rt.firstArrival, rt.lastArrival, hasSessions, hasBlocks, sessions,
        List.copyOf(rt.blockSizes), rt.prefillTokens, rt.outputTokens, bt.usedBlocks);
  }

  private CharacterizationSummary.DataQuality dataQuality(JsonNode ingestSummary) {
    long nReq = rt.requests;
    long mismatch = bt.quality[ReuseAggregates.Q_MISMATCH];
    long mismatchLonger = bt.quality[ReuseAggregates.Q_LONGER];
    JsonNode ingest = ingestSummary != null ? ingestSummary
        : Json.MAPPER.getNodeFactory().textNode("no " + AuditLayout.INGEST_SUMMARY_FILE + " next to the trace");
    return new CharacterizationSummary.DataQuality(ingest, new CharacterizationSummary.Analysis(mismatch, mismatchLonger,
        mismatch - mismatchLonger, "analyses use the first min(count, ceil(input_tokens / block_size)) blocks",
        nReq - bt.quality[ReuseAggregates.Q_WITH_BLOCKS], nReq - rt.withSession, nReq - rt.withTurn));
  }

  // ---------------------------------------------------------------- section 2: ideal reuse

  private CharacterizationSummary.Reuse idealReuse() {
    long hitBlocks = bt.hitBlk[0] + bt.hitBlk[1] + bt.hitBlk[2];
    tables.put(T_REUSE_MINUTE, minuteTable());
    if (rt.withTurn > 0) tables.put(T_REUSE_TURN, turnTable());
    if (!hasBlocks) {
      return new CharacterizationSummary.Reuse(Metric.na(NO_BLOCKS), Metric.na(NO_BLOCKS), null, null, T_REUSE_MINUTE,
          T_REUSE_TURN);
    }
    return new CharacterizationSummary.Reuse(
        Metric.ratio(hitTokens, rt.prefillTokens, "hit tokens", "prefill tokens (sum of input_tokens)",
            "trace has no prefill tokens"),
        Metric.ratio(hitBlocks, bt.usedBlocks, "hit blocks",
            "blocks (first min(count, ceil(input_tokens / block_size)) per request)", "trace has no blocks"),
        hitTokens, hitBlocks, T_REUSE_MINUTE, T_REUSE_TURN);
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

  private CharacterizationSummary.ReuseBySource reuseBySource() {
    CharacterizationSummary.SourceShare[] shares = new CharacterizationSummary.SourceShare[Source.values().length];
    for (Source so : Source.values()) shares[so.ordinal()] = sourceShare(so);
    return new CharacterizationSummary.ReuseBySource(opt.templateMinSessions(), shares[Source.INTRA_SESSION.ordinal()],
        shares[Source.SYSTEM_PROMPT.ordinal()], shares[Source.INTER_SESSION.ordinal()]);
  }

  private CharacterizationSummary.SourceShare sourceShare(Source so) {
    if (!hasBlocks) return new CharacterizationSummary.SourceShare(Metric.na(NO_BLOCKS), Metric.na(NO_BLOCKS), null);
    if (!hasSessions) return new CharacterizationSummary.SourceShare(Metric.na(NO_SESSIONS), Metric.na(NO_SESSIONS), null);
    long hit = bt.hitTok[so.ordinal()];
    return new CharacterizationSummary.SourceShare(
        Metric.ratio(hit, hitTokens, so.label + " hit tokens", "hit tokens", NO_HITS),
        Metric.ratio(hit, rt.prefillTokens, so.label + " hit tokens", "prefill tokens", "trace has no prefill tokens"), hit);
  }

  // ---------------------------------------------------------------- section 4: intervals

  private CharacterizationSummary.ReuseInterval reuseInterval() {
    Map<String, Long> within = new TreeMap<>();
    if (p.reuseRan && hasBlocks) {
      for (int so = 0; so < 3; so++) {
        if (bt.withinBySrc[so] != null) within.put(Source.values()[so].label, bt.withinBySrc[so]);
      }
      within.put(Source.ALL, within.values().stream().mapToLong(Long::longValue).sum());
      tables.put(T_INTERVAL_CDF, intervalCdf(bt.cdfBuckets));
    }
    Map<String, CharacterizationSummary.IntervalGroup> groups = new LinkedHashMap<>();
    groups.put(Source.ALL, null);
    for (Source so : Source.values()) groups.put(so.label, null);
    for (String gname : groups.keySet()) {
      String reason = !hasBlocks ? NO_BLOCKS : (!hasSessions && !gname.equals(Source.ALL)) ? NO_SESSIONS : null;
      SortedStats.Stats x = st.get("interval:" + gname);
      if (reason == null && x == null) reason = gname.equals(Source.ALL) ? NO_HITS : "no hit tokens from this source";
      Metric[] q = new Metric[Q.length];
      for (int i = 0; i < Q.length; i++) q[i] = reason != null ? Metric.na(reason) : Metric.of(x.quantiles()[i] / 1e6, "s");
      Metric share = reason != null ? Metric.na(reason)
          : Metric.ratio(within.getOrDefault(gname, 0L), x.weight(), "hit tokens with interval <= threshold", "hit tokens",
              NO_HITS);
      // Q is p50, p90, p99: the record's three quantile fields
      groups.put(gname, new CharacterizationSummary.IntervalGroup(q[0], q[1], q[2], share, reason == null ? x.weight() : null));
    }
    return new CharacterizationSummary.ReuseInterval(opt.intervalThresholdS(), T_INTERVAL_CDF, groups.get(Source.ALL),
        groups.get(Source.INTRA_SESSION.label), groups.get(Source.SYSTEM_PROMPT.label), groups.get(Source.INTER_SESSION.label));
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

  private CharacterizationSummary.Sessions sessions() {
    if (!hasSessions) return CharacterizationSummary.Sessions.notApplicable(NO_SESSIONS);
    long followUps = rt.followUps();
    Metric firstTurn = Metric.ratio(rt.turn0, rt.requests, "requests with turn 0", "requests", "no requests");
    CharacterizationSummary.TriggerMix mix = triggerMix(followUps);
    CharacterizationSummary.Distribution turns = turnsPerSession();
    CharacterizationSummary.Distribution duration = durations(st.get("duration_us"), null);
    CharacterizationSummary.ThinkTime think = thinkTime(followUps);
    CharacterizationSummary.TokenSkew skew = tokenSkew();
    tables.put(T_SESSIONS, p.sessions);
    return new CharacterizationSummary.Sessions(firstTurn, mix, followUps, turns, duration, think, skew);
  }

  /** Trigger shares over all requests and over follow-ups (sorted by trigger: a TreeMap). */
  private CharacterizationSummary.TriggerMix triggerMix(long followUps) {
    long nReq = rt.requests;
    Map<String, Metric> allM = new TreeMap<>();
    Map<String, Metric> fuM = new TreeMap<>();
    List<Object[]> trigRows = new ArrayList<>();
    for (var e : rt.byTrigger.entrySet()) {
      String t = e.getKey();
      long n = e.getValue()[0], f = e.getValue()[1];
      allM.put(t, Metric.ratio(n, nReq, "requests with trigger " + t, "requests", "no requests"));
      fuM.put(t, Metric.ratio(f, followUps, "follow-ups with trigger " + t, "follow-ups (turn > 0)",
          "trace has no follow-up requests"));
      trigRows.add(new Object[] {"all_requests", t, n, (double) n / nReq});
      trigRows.add(new Object[] {"follow_ups", t, f, followUps == 0 ? null : (double) f / followUps});
    }
    tables.put(T_TRIGGERS, Table.of(Table.cols(Cols.SCOPE, Table.Kind.STRING, Cols.TRIGGER, Table.Kind.STRING,
        Cols.REQUESTS, Table.Kind.LONG, Cols.SHARE, Table.Kind.DOUBLE), trigRows));
    return CharacterizationSummary.TriggerMix.of(allM, fuM);
  }

  private CharacterizationSummary.Distribution turnsPerSession() {
    SortedStats.Stats turns = st.get("turns");
    long[] q = turns.quantiles(); // Q: p50, p90, p99
    // the turns distribution's (value, items) rows are the histogram: no further job
    List<Object[]> hist = new ArrayList<>();
    for (long[] h : turns.histogram()) hist.add(new Object[] {h[0], h[1]});
    tables.put(T_TURNS, Table.of(Table.cols(Cols.REQUESTS, Table.Kind.LONG, Cols.SESSIONS, Table.Kind.LONG), hist));
    return CharacterizationSummary.Distribution.of(Metric.of(turns.mean()), Metric.of(q[0]), Metric.of(q[1]), Metric.of(q[2]),
        Metric.of(turns.max()), T_TURNS);
  }

  /** Mean, quantiles and max of a distribution in microseconds, in seconds. */
  private static CharacterizationSummary.Distribution durations(SortedStats.Stats us, String table) {
    long[] q = us.quantiles(); // Q: p50, p90, p99
    return CharacterizationSummary.Distribution.of(Metric.of(us.mean() / 1e6, "s"), Metric.of(q[0] / 1e6, "s"),
        Metric.of(q[1] / 1e6, "s"), Metric.of(q[2] / 1e6, "s"), Metric.of(us.max() / 1e6, "s"), table);
  }

  private CharacterizationSummary.ThinkTime thinkTime(long followUps) {
    SortedStats.Stats th = st.get("think_us");
    long withParent = th != null ? th.items() : 0;
    Metric na = Metric.na(NO_FOLLOW_UP_PARENTS);
    return CharacterizationSummary.ThinkTime.of(withParent, followUps - withParent,
        th == null ? CharacterizationSummary.Distribution.of(na, na, na, na, na, null) : durations(th, null));
  }

  private CharacterizationSummary.TokenSkew tokenSkew() {
    SortedStats.Stats tok = st.get("tokens");
    String reason = tok.weight() == 0 ? "sessions hold no tokens" : null;
    List<Object[]> lz = new ArrayList<>();
    for (int i = 0; i < tok.lorenzPopulation().length; i++) lz.add(new Object[] {tok.lorenzPopulation()[i], tok.lorenzShare()[i]});
    tables.put(T_LORENZ, Table.of(Table.cols(Cols.POPULATION_SHARE, Table.Kind.DOUBLE, Cols.TOKEN_SHARE, Table.Kind.DOUBLE), lz));
    return CharacterizationSummary.TokenSkew.of("input_tokens + output_tokens over the session's requests",
        (long) Math.ceil(0.25 * tok.items()), reason != null ? Metric.na(reason) : Metric.of(tok.topShare()),
        reason != null ? Metric.na(reason) : Metric.of(tok.gini()), T_LORENZ);
  }

  // ---------------------------------------------------------------- section 7: request / instance ratio

  private CharacterizationSummary.RequestInstanceRatio requestInstanceRatio() {
    int instances = opt.instances();
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
    tables.put(T_RATIO, Table.of(Table.cols(Cols.MINUTE, Table.Kind.LONG, Cols.MINUTE_START_S, Table.Kind.DOUBLE,
        Cols.ARRIVALS, Table.Kind.LONG, Cols.RATIO, Table.Kind.DOUBLE), rows));
    if (ratios.isEmpty()) {
      Metric na = Metric.na(NO_WHOLE_MINUTE);
      return new CharacterizationSummary.RequestInstanceRatio(instances, 0, T_RATIO, na, na, na, na);
    }
    double sumR = 0;
    for (double r : ratios) sumR += r;
    List<Double> sorted = new ArrayList<>(ratios);
    sorted.sort(Double::compare);
    return new CharacterizationSummary.RequestInstanceRatio(instances, ratios.size(), T_RATIO,
        Metric.of(sumR / ratios.size()), Metric.of(sorted.get(0)), Metric.of(nearestRank(sorted, 0.05)),
        Metric.of(nearestRank(sorted, 0.5)));
  }

  /** Unweighted nearest rank: sorted[ceil(q n) - 1]. */
  static double nearestRank(List<Double> sorted, double q) {
    int idx = (int) Math.ceil(new java.math.BigDecimal(Double.toString(q))
        .multiply(java.math.BigDecimal.valueOf(sorted.size())).doubleValue()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, idx)));
  }
}
