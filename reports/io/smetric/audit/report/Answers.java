package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.Numbers;
import io.smetric.audit.contract.BestRouter;
import io.smetric.audit.contract.CapacityAnswer;
import io.smetric.audit.contract.CapacityBlock;
import io.smetric.audit.contract.ConditionsBlock;
import io.smetric.audit.contract.EqualLoadBlock;
import io.smetric.audit.contract.PreconditionsBlock;
import io.smetric.audit.contract.ReplayComparison;
import io.smetric.audit.report.verdict.AuditCriteria;
import java.util.ArrayList;
import java.util.List;

/**
 * The two answers an audit gives side by side (docs/report.md, "Two answers"), from replay.json:
 * (a) does the paper's claim hold on this workload, i.e. does SMetric beat the paper's own
 * baselines (cache-first, LMetric, load balance) at each global-tier capacity ({@code
 * paper_claim}); (b) what should you run, i.e. every replayed router ranked, the best named with
 * its margin ({@code best_router}). The verdict itself judges SMetric against one router
 * ({@code judged}): the one named by --current-router, else the best paper baseline.
 */
final class Answers {
  private Answers() {}

  /**
   * The {@code answers} block of audit.json, or null when the replay has neither block (no replay,
   * or a replay.json from before they existed). {@code threshold} is the gain the verdict asks for.
   */
  static ObjectNode of(JsonNode replay, double threshold) {
    if (replay == null) return null;
    ReplayComparison pc = ReplayComparison.paperClaim(replay);
    BestRouter br = BestRouter.of(replay);
    if (pc == null && br == null) return null;
    ObjectNode a = Json.object();
    a.put("gain_threshold", threshold);
    JsonNode judged = replay.path("judged");
    if (judged.isObject()) a.set("judged_router", judgedRouter(judged));
    if (pc != null) a.set("paper_claim", paperClaim(pc, EqualLoadBlock.of(replay), threshold));
    if (br != null) a.set("what_to_run", whatToRun(br));
    ObjectNode pace = tracePace(replay);
    if (pace != null) a.set("trace_pace", pace);
    ObjectNode cap = capacity(replay);
    if (cap != null) a.set("capacity", cap);
    return a;
  }

  /**
   * The router the verdict judges SMetric against: its name (null = the best paper baseline), the
   * rule, a label, and with --current-router NAME:CONFIG the router's own configuration as the
   * replay understood it (replay.json's judged.current_router_config: knob, value, source).
   */
  static ObjectNode judgedRouter(JsonNode judged) {
    ObjectNode j = Json.object();
    ReplayComparison cmp = ReplayComparison.read(judged, "replay.json " + ReplayComparison.JUDGED);
    if (cmp.currentRouter() != null) j.put("name", cmp.currentRouter());
    else j.putNull("name");
    j.put("rule", cmp.rule() == null ? "" : cmp.rule());
    j.put("label", cmp.judgedName());
    if (cmp.currentRouterConfig() != null) {
      // copied as replay.json has it: router, knob, value, source
      ArrayNode cfg = j.putArray("configuration");
      for (ReplayComparison.Knob k : cmp.currentRouterConfig()) {
        cfg.addObject().put(ReplayComparison.Knob.ROUTER, k.router()).put(ReplayComparison.Knob.KNOB, k.knob())
            .put(io.smetric.audit.contract.Metric.VALUE, k.value()).put(ReplayComparison.Knob.SOURCE, k.source());
      }
    }
    return j;
  }

  /**
   * The capacity answer (issue 29; replay.json {@code capacity}): per global-tier capacity and
   * traffic factor, the instances (and GPUs, and US dollars per day with --gpu-hour-usd) SMetric
   * and the judged router need to keep the target share of requests within SLO, and the sentence
   * the page opens with. Null without a capacity search.
   */
  static ObjectNode capacity(JsonNode replay) {
    CapacityBlock c = CapacityBlock.of(replay);
    if (c == null || c.searchList().isEmpty()) return null;
    ObjectNode o = Json.object();
    o.put(CapacityAnswer.TARGET_ATTAINMENT, num(c.targetAttainment()));
    o.put(CapacityAnswer.RULE, text(c.rule()));
    o.put(CapacityAnswer.INTERVAL, text(c.interval()));
    String gpu = c.gpu();
    if (gpu != null) o.put(CapacityAnswer.GPU, gpu);
    if (c.gpuHourUsd() != null) o.put(CapacityAnswer.GPU_HOUR_USD, c.gpuHourUsd());
    ArrayNode rows = o.putArray(CapacityAnswer.BY_GLOBAL_RATIO);
    // one row per capacity and traffic factor, its searches in the order replay.json lists them
    java.util.Map<String, CapacityRow> byKey = new java.util.LinkedHashMap<>();
    for (CapacityBlock.Search s : c.searchList()) {
      byKey.computeIfAbsent(s.globalRatio() + "|" + s.trafficFactor(), k -> new CapacityRow(s)).searches.add(s);
    }
    for (CapacityRow cr : byKey.values()) {
      ObjectNode r = rows.addObject();
      r.put(CapacityAnswer.Row.GLOBAL_RATIO, cr.globalRatio);
      r.put(CapacityAnswer.Row.TRAFFIC_FACTOR, cr.trafficFactor);
      r.put(CapacityAnswer.Row.JUDGED_ROUTER, text(cr.judgedRouter));
      for (CapacityBlock.Search s : cr.searches) {
        // the other routers (--capacity-all-routers, x1 only): a list beside the two the sentence names
        ObjectNode x = CapacityBlock.Search.OTHER.equals(s.role())
            ? (r.has(CapacityAnswer.Row.OTHERS) ? (ArrayNode) r.get(CapacityAnswer.Row.OTHERS)
                : r.putArray(CapacityAnswer.Row.OTHERS)).addObject()
            : r.putObject(text(s.role()));
        x.put(CapacityAnswer.Amount.ROUTER, text(s.policy()));
        // written as decimals (10.0 instances), as audit.json always had them
        putDouble(x, CapacityAnswer.Amount.INSTANCES, s.instances());
        putDouble(x, CapacityAnswer.Amount.GPUS, s.gpus());
        putDouble(x, CapacityAnswer.Amount.USD_PER_DAY, s.usdPerDay());
        if (s.notFound() != null) x.put(CapacityAnswer.Amount.NOT_FOUND, s.notFound());
        CapacityBlock.Interval iv = s.interval();
        if (iv != null) {
          // the bootstrap percentile interval of the instance count (issue 29 item 1)
          ObjectNode y = x.putObject(CapacityAnswer.Amount.INTERVAL);
          putInt(y, CapacityBlock.Interval.LOW, iv.low());
          putInt(y, CapacityBlock.Interval.HIGH, iv.high());
          y.put(CapacityBlock.Interval.LEVEL, num(iv.level()));
          y.put(CapacityBlock.Interval.REPLICATES, iv.replicates() == null ? 0 : iv.replicates());
          if (iv.note() != null) y.put(CapacityBlock.Interval.NOTE, iv.note());
        }
      }
    }
    o.put(CapacityAnswer.SUMMARY, capacitySentence(c, byKey.values(), gpu));
    if (!c.sized().isEmpty()) o.set(CapacityBlock.SIZED_POINT, c.sizedPoint().deepCopy());
    return o;
  }

  /** One capacity and traffic factor of the capacity answer: its searches (SMetric, the judged router, the others). */
  private static final class CapacityRow {
    final double globalRatio;
    final double trafficFactor;
    final String judgedRouter;
    final List<CapacityBlock.Search> searches = new ArrayList<>();

    CapacityRow(CapacityBlock.Search first) {
      globalRatio = first.globalRatio();
      trafficFactor = first.trafficFactor();
      judgedRouter = first.judgedRouter();
    }

    /** The search of {@code role} (the last one, as the answer keeps it); null when there is none. */
    CapacityBlock.Search role(String role) {
      CapacityBlock.Search out = null;
      for (CapacityBlock.Search s : searches) if (role.equals(s.role())) out = s;
      return out;
    }
  }

  private static void putDouble(ObjectNode o, String k, Number v) {
    if (v == null) o.putNull(k);
    else o.put(k, v.doubleValue());
  }

  private static void putInt(ObjectNode o, String k, Integer v) {
    if (v == null) o.putNull(k);
    else o.put(k, v.intValue());
  }

  private static double num(Double x) {
    return x == null ? 0.0 : x;
  }

  private static String text(String s) {
    return s == null ? "" : s;
  }

  /** "Serving this trace within SLO takes N x GPU with router, M with SMetric (...)". */
  private static String capacitySentence(CapacityBlock c, java.util.Collection<CapacityRow> rows, String gpu) {
    double declared = Double.NaN;
    CapacityRow x1 = null;
    CapacityRow x1Zero = null;
    for (CapacityRow r : rows) {
      if (r.trafficFactor != 1.0) continue;
      double g = r.globalRatio;
      if (g > 0 && x1 == null) {
        x1 = r;
        declared = g;
      }
      if (g == 0) x1Zero = r;
    }
    if (x1 == null) {
      x1 = x1Zero;
      declared = 0;
    }
    if (x1 == null) return "Not answered: no capacity search at the trace's own pace.";
    String unit = gpu != null ? " x " + gpu : " instances";
    String target = Numbers.percent(num(c.targetAttainment()));
    StringBuilder b = new StringBuilder("Serving this trace within SLO takes ");
    CapacityBlock.Search j = x1.role(CapacityBlock.Search.JUDGED);
    CapacityBlock.Search sm = x1.role(CapacityBlock.Search.SMETRIC);
    CapacityBlock.Interval jIv = j == null ? null : j.interval();
    CapacityBlock.Interval smIv = sm == null ? null : sm.interval();
    b.append(amount(j, unit)).append(" with ").append(j == null ? "the judged router" : text(j.policy())).append(interval(j)).append(", ")
        .append(amount(sm, gpu != null ? "" : " instances")).append(" with SMetric").append(interval(sm)).append(" (")
        .append(declared > 0 ? Numbers.sig4(declared) + "x global tier" : "no global tier").append(", ").append(target)
        .append(" of requests within the TTFT and TPOT SLO, ");
    if (jIv != null || smIv != null) {
      CapacityBlock.Interval any = jIv != null ? jIv : smIv;
      int reps = any.replicates() == null ? 0 : any.replicates();
      double level = num(any.level());
      if ((1 - level) / 2 * reps < 1 - 1e-9) {
        // too few replicates for the percentile's tails: the ends are the smallest and largest answer
        b.append("ranges of the answers over ").append(reps).append(" session-tree resamples");
      } else {
        b.append(Math.round(100 * level)).append("% bootstrap intervals over ").append(reps).append(" session-tree resamples");
      }
      if ((jIv != null && jIv.note() != null) || (smIv != null && smIv.note() != null)) {
        b.append("; the point estimates lie outside them: the resamples replay differently from the trace");
      }
    } else {
      b.append("point estimates");
    }
    if (c.gpuHourUsd() != null && j != null && j.usdPerDay() != null && sm != null && sm.usdPerDay() != null) {
      b.append("; $").append(Numbers.sig4(j.usdPerDay())).append(" vs $")
          .append(Numbers.sig4(sm.usdPerDay())).append(" per day at $")
          .append(Numbers.sig4(c.gpuHourUsd())).append(" per GPU-hour");
    }
    b.append(")");
    if (x1Zero != null && x1Zero != x1) {
      b.append("; without a global tier ").append(amount(x1Zero.role(CapacityBlock.Search.JUDGED), "")).append(" and ")
          .append(amount(x1Zero.role(CapacityBlock.Search.SMETRIC), ""));
    }
    CapacityRow most = null;
    for (CapacityRow r : rows) {
      if (r.globalRatio == declared && r.trafficFactor > 1 && (most == null || r.trafficFactor > most.trafficFactor)) most = r;
    }
    if (most != null) {
      b.append("; at ").append(Numbers.sig4(most.trafficFactor)).append("x the traffic ")
          .append(amount(most.role(CapacityBlock.Search.JUDGED), "")).append(" and ")
          .append(amount(most.role(CapacityBlock.Search.SMETRIC), ""));
    }
    return b.append(".").toString();
  }

  /** replay.json's rule texts start lower-case (they read on inside a JSON value); on the page they start a sentence. */
  private static String sentenceCase(String t) {
    return t.isEmpty() ? t : Character.toUpperCase(t.charAt(0)) + t.substring(1);
  }

  /** " [lo-hi]" of a search's bootstrap interval, in the answer's unit (GPUs when it has GPUs); "" without one. */
  private static String interval(CapacityBlock.Search a) {
    if (a == null || a.interval() == null || a.instances() == null) return "";
    CapacityBlock.Interval iv = a.interval();
    double per = a.gpus() != null ? a.gpus().doubleValue() / a.instances().doubleValue() : 1;
    String lo = iv.low() != null ? Numbers.count(Math.round(iv.low() * per)) : "?";
    String hi = iv.high() != null ? Numbers.count(Math.round(iv.high() * per)) : "more than the search tried";
    return " [" + lo + "-" + hi + "]";
  }

  /** GPUs (or instances) of one search's answer, or "more than the search tried". */
  private static String amount(CapacityBlock.Search a, String unit) {
    if (a != null && a.gpus() != null) return Numbers.count(a.gpus()) + unit;
    if (a != null && a.instances() != null) return Numbers.count(a.instances()) + (unit.isEmpty() ? "" : " instances");
    return "more than the search tried (" + (a == null || a.notFound() == null ? "no answer" : a.notFound()) + ")";
  }

  /**
   * The second operating point (issue 29 item 3): the cluster sized for the judged router at the
   * trace's own pace, with the paper's preconditions there and SMetric's gain, beside the
   * maximum-TPS point of the "Operating point" section.
   */
  static void sizedHtml(Html h, List<CapacityBlock.Sized> sized) {
    if (sized.isEmpty()) return;
    List<List<String>> rows = new ArrayList<>();
    for (CapacityBlock.Sized e : sized) {
      if (e.policies() == null) continue;
      for (String n : e.policies().keySet()) {
        rows.add(List.of(Numbers.sig4(e.globalRatio()) + "x", e.instances() == null ? "0" : Numbers.count(e.instances()),
            n + (n.equals(e.judgedRouter()) ? " (judged)" : ""), Numbers.sig4(finite(e.metric(n, "tps_within_slo"))) + " tok/s",
            Numbers.percent(finite(e.metric(n, "slo_attainment"))), Numbers.sig4(finite(e.metric(n, "requests_per_instance_minute_median"))),
            Numbers.sig4(finite(e.metric(n, "imbalance_mean"))), Numbers.percent(finite(e.metric(n, "stickiness"))),
            n.equals("smetric") ? signedPercent(finite(e.smetricGainVsJudged())) : ""));
      }
    }
    h.tag("p", null, "The sized cluster as a second operating point: the instances the judged router needs at the trace's "
        + "own pace (x1), both routers replayed there in full. The verdict does not read it: its replay criteria read the "
        + "equal-load point and the maximum-TPS point at --instances (audit.json criteria[].operating_point).");
    h.table(List.of("global tier", "instances", "router", "TPS within SLO", "in SLO", "requests / instance-min (median)",
        "imbalance (max/mean)", "stickiness turn 0", "SMetric's gain"), rows, "sized-point");
  }

  /** The capacity sentence the page opens with, and its table. */
  static void capacityHtml(Html h, ObjectNode answers) {
    CapacityAnswer c = CapacityAnswer.of(answers, "audit.json answers." + CapacityAnswer.BLOCK);
    if (c == null) return;
    h.raw("<section id=\"capacity\">\n");
    h.tag("p", "capacity", text(c.summary()));
    List<List<String>> rows = new ArrayList<>();
    boolean usd = c.gpuHourUsd() != null;
    boolean others = false;
    for (CapacityAnswer.Row r : c.rows()) others |= r.others() != null;
    for (CapacityAnswer.Row r : c.rows()) {
      List<String> row = new ArrayList<>();
      row.add(Numbers.sig4(r.globalRatio()) + "x");
      row.add("x" + Numbers.sig4(r.trafficFactor()));
      for (boolean judged : new boolean[] {true, false}) {
        CapacityAnswer.Amount a = judged ? r.judged() : r.smetric();
        String v = a != null && a.instances() != null ? Numbers.count(a.instances().longValue()) + " instances"
            + (a.gpus() != null ? " / " + Numbers.count(a.gpus().longValue()) + " GPUs" : "")
            + (usd && a.usdPerDay() != null ? " / $" + Numbers.sig4(a.usdPerDay()) + " per day" : "")
            : a == null ? Numbers.NA : "not found";
        row.add((judged ? (a == null ? "" : text(a.router())) + ": " : "") + v);
      }
      if (others) {
        List<String> o = new ArrayList<>();
        for (CapacityAnswer.Amount a : r.others() == null ? List.<CapacityAnswer.Amount>of() : r.others()) {
          o.add(text(a.router()) + ": " + (a.instances() != null ? Numbers.count(a.instances().longValue())
              + (a.gpus() != null ? " / " + Numbers.count(a.gpus().longValue()) + " GPUs" : "") : "not found"));
        }
        row.add(String.join(", ", o));
      }
      rows.add(row);
    }
    List<String> head = new ArrayList<>(List.of("global tier", "traffic", "judged router", "SMetric"));
    if (others) head.add("other routers (x1 only)");
    h.table(head, rows, "capacity");
    h.tag("p", null, sentenceCase(text(c.rule())) + ". " + sentenceCase(text(c.interval())) + ".");
    sizedHtml(h, CapacityBlock.sized(c.sizedPoint(), "audit.json answers." + CapacityAnswer.BLOCK + "." + CapacityBlock.SIZED_POINT));
    h.raw("</section>\n");
  }

  /** {@link Numbers#signedPercent(double)}, "n/a" for null. */
  private static String signedPercent(Double x) {
    return x == null ? Numbers.NA : Numbers.signedPercent(x);
  }

  /**
   * Whether the simulated cluster serves the trace at its own pace (offered rate x1) within SLO
   * (issue 29 item 4): the highest rate, over the replayed capacities, at which the judged router
   * keeps the equal-load target share of its requests within SLO ({@code equal_load}'s reference
   * rates). Below x1 the cluster as simulated cannot carry the recorded traffic, so the recorded
   * cluster (--instances) and the profile disagree; the block says what to check. Null without
   * an equal-load comparison.
   */
  static ObjectNode tracePace(JsonNode replay) {
    EqualLoadBlock el = EqualLoadBlock.of(replay);
    if (el == null || el.capacities().isEmpty()) return null;
    double best = Double.NaN;
    double at = Double.NaN;
    String router = null;
    for (EqualLoadBlock.Row e : el.capacities()) {
      double x = e.referenceRateScale() == null ? Double.NaN : e.referenceRateScale();
      if (Double.isNaN(best) || x > best) {
        best = x;
        at = e.globalRatio();
        router = e.judgedRouter() == null ? "" : e.judgedRouter();
      }
    }
    if (Double.isNaN(best)) return null;
    double target = el.targetAttainment() == null ? 0.9 : el.targetAttainment();
    io.smetric.audit.contract.SettingsBlock settings = io.smetric.audit.contract.SettingsBlock.of(replay);
    String instances = settings == null || settings.instances() == null ? "?" : String.valueOf(settings.instances());
    String profile = settings == null || settings.profileName() == null ? "the profile" : settings.profileName();
    ObjectNode o = Json.object();
    o.put("target_attainment", target);
    o.put("highest_rate_scale", best);
    o.put("at_global_ratio", at);
    o.put("router", router);
    o.put("served_at_trace_pace", best >= 1);
    o.put("summary", best >= 1
        ? String.format(java.util.Locale.ROOT, "The simulated cluster (%s instances, profile %s) serves this trace at its own "
            + "pace: %s keeps %s of its requests within SLO up to x%s of the trace's rate (%sx global tier).", instances,
            profile, router, Numbers.percent(target), Numbers.sig4(best), Numbers.sig4(at))
        : String.format(java.util.Locale.ROOT, "The simulated cluster (%s instances, profile %s) cannot serve this trace at its "
            + "own pace within SLO: the best judged router (%s, %sx global tier) keeps %s of its requests within SLO only up to "
            + "x%s of the trace's rate, so the verdict compares the routers at a fraction of the recorded traffic. If the trace "
            + "was recorded on a cluster that served it, the replay's cluster and yours disagree: check --instances (the "
            + "cluster the trace came from), the profile (your model and GPU: --profile, or calibrate your own from a vllm "
            + "bench serve run) and the SLO.", instances, profile, router, Numbers.sig4(at), Numbers.percent(target),
            Numbers.sig4(best)));
    return o;
  }

  /**
   * Answer (a). Where the replay has the equal-load comparison, each capacity's answer is SMetric's
   * gain over the best paper baseline there at equal load (the decision load), with its paired
   * interval when that baseline is the judged router; the gain in maximum TPS within SLO (each
   * router at its own rate) stays beside it, descriptive.
   */
  private static ObjectNode paperClaim(ReplayComparison pc, EqualLoadBlock equalLoad, double threshold) {
    ObjectNode o = Json.object();
    o.put("question", "Does the paper's claim hold on this workload? SMetric against the paper's baselines "
        + "(cache-first, LMetric, load balance) at each global-tier capacity");
    boolean eq = equalLoad != null && equalLoad.byGlobalRatio() != null;
    if (eq) {
      o.put("basis", "equal load: the routers at the same offered rate, " + Numbers.sig4(equalLoad.decisionLoad() == null ? 0.0 : equalLoad.decisionLoad())
          + "x the judged router's knee at each capacity; gain_max_tps compares the maxima at each router's own rate");
    }
    List<String> baselines = pc.baselines() == null ? List.of() : pc.baselines();
    ArrayNode bl = o.putArray("baselines");
    baselines.forEach(bl::add);
    ArrayNode by = o.putArray("by_global_ratio");
    List<String> holds = new ArrayList<>();
    List<String> fails = new ArrayList<>();
    List<String> close = new ArrayList<>();
    for (ReplayComparison.Row e : pc.rows()) {
      ObjectNode x = by.addObject();
      double g = e.globalRatio();
      x.put("global_ratio", g);
      String b = text(e.bestBaseline());
      x.put("best_paper_baseline", b);
      Double gain = finite(e.gain());
      JsonNode iv = e.interval() == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : e.interval();
      if (eq) {
        if (gain != null) x.put("gain_max_tps", gain);
        EqualLoadBlock.Point pt = equalLoad.decisionPoint(g);
        gain = pt == null || pt.smetricGainVs() == null ? null : pt.smetricGainVs().get(b);
        EqualLoadBlock.JudgedGain judged = pt == null ? null : pt.smetricGainVsJudged();
        iv = judged != null && b.equals(judged.vs()) && judged.interval() != null ? judged.interval()
            : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        if (pt != null && pt.rateScale() != null) x.put("rate_scale", pt.rateScale());
      }
      if (gain != null) {
        x.put("gain", gain);
        double lo = iv.path("low").isNumber() ? iv.path("low").asDouble() : gain;
        double hi = iv.path("high").isNumber() ? iv.path("high").asDouble() : gain;
        if (iv.isObject()) x.set("interval", iv.deepCopy());
        String st = lo >= threshold ? "holds" : hi < threshold ? "does not hold" : "too close to call";
        x.put("status", st);
        // without replicates at this capacity the point value decides, and says so
        if (!iv.isObject()) x.put("interval_note", "no bootstrap replicates here (the verdict's capacities only): point value");
        if (st.equals("too close to call")) x.putNull("holds");
        else x.put("holds", st.equals("holds"));
        if (g > 0) (st.equals("holds") ? holds : st.equals("does not hold") ? fails : close).add(Numbers.sig4(g) + "x");
      } else {
        x.putNull("gain");
        x.putNull("holds");
      }
      if (e.vs() != null) {
        // in the compared order, as replay.json has it
        ObjectNode vs = x.putObject("vs");
        e.vs().forEach((router, v) -> {
          if (v == null) {
            vs.putNull(router);
            return;
          }
          ObjectNode y = vs.putObject(router);
          putDouble(y, ReplayComparison.Vs.TPS_WITHIN_SLO, v.tpsWithinSlo());
          putDouble(y, ReplayComparison.Vs.GAIN, v.gain());
        });
      }
    }
    String t = Numbers.signedPercent(threshold);
    String names = String.join(", ", baselines);
    String s;
    if (by.isEmpty()) {
      ReplayComparison.BestGain bg = pc.bestGainWithGlobal();
      s = "Not answered: " + (bg == null || bg.notApplicable() == null ? "no comparison" : bg.notApplicable()) + ".";
    } else if (!close.isEmpty() && holds.isEmpty()) {
      s = "Too close to call: with a global tier SMetric's gain over the best of " + names + " has " + t + " inside its "
          + "95% interval at " + String.join(", ", close) + (fails.isEmpty() ? "" : " and stays below it at " + String.join(", ", fails))
          + ".";
    } else if (fails.isEmpty() && close.isEmpty() && !holds.isEmpty()) {
      s = "Yes: with a global tier SMetric gains at least " + t + " over the best of " + names + " at every replayed capacity ("
          + String.join(", ", holds) + ").";
    } else if (holds.isEmpty()) {
      s = "No: with a global tier SMetric does not gain " + t + " over the best of " + names + " at any replayed capacity"
          + (fails.isEmpty() ? "" : " (" + String.join(", ", fails) + ")") + ".";
    } else {
      List<String> rest = new ArrayList<>(fails);
      close.forEach(c -> rest.add(c + " (too close to call)"));
      s = "In part: SMetric gains at least " + t + " over the best of " + names + " at " + String.join(", ", holds)
          + ", not at " + String.join(", ", rest) + ".";
    }
    o.put("summary", s);
    return o;
  }

  private static ObjectNode whatToRun(BestRouter br) {
    ObjectNode o = Json.object();
    o.put("question", "What should you run? Every replayed router, the best named with its margin");
    ArrayNode by = o.putArray("by_global_ratio");
    List<String> parts = new ArrayList<>();
    for (BestRouter.Row e : br.capacities()) {
      ObjectNode x = by.addObject();
      double g = e.globalRatio();
      x.put("global_ratio", g);
      x.put("best", text(e.best()));
      x.put("runner_up", text(e.runnerUp()));
      Double margin = finite(e.margin());
      putDouble(x, "margin", margin);
      if (e.bestOtherThanSmetric() != null) {
        x.put("best_other_than_smetric", e.bestOtherThanSmetric());
        putDouble(x, "smetric_gain_vs_best_other", finite(e.smetricGainVsBestOther()));
        if (e.smetricGainVsBestOtherInterval() != null && e.smetricGainVsBestOtherInterval().isObject()) {
          x.set("smetric_gain_vs_best_other_interval", e.smetricGainVsBestOtherInterval().deepCopy());
        }
      }
      // copied as written: the page reads the top router's attainment and TTFT from it
      x.set("ranking", e.ranking() == null ? Json.MAPPER.createArrayNode() : e.ranking().deepCopy());
      String m = margin != null ? " (" + Numbers.signedPercent(margin) + " over " + text(e.runnerUp()) + ")" : "";
      parts.add(Numbers.sig4(g) + "x: " + text(e.best()) + m);
    }
    o.put("summary", parts.isEmpty() ? "Not answered: fewer than two routers were replayed at any capacity."
        : "Best router by maximum TPS within SLO: " + String.join("; ", parts) + ".");
    return o;
  }

  /** The two answers as one section of index.html (two boxes side by side). */
  static void html(Html h, ObjectNode answers) {
    if (answers == null) return;
    JsonNode pace = answers.path("trace_pace");
    if (pace.isObject()) h.tag("p", pace.path("served_at_trace_pace").asBoolean() ? "pace" : "pace warning", pace.path("summary").asText());
    h.raw("<section id=\"answers\" class=\"answers\">\n");
    JsonNode pc = answers.path("paper_claim");
    if (pc.isObject()) {
      h.raw("<div class=\"answer\" id=\"answer-paper-claim\">\n");
      h.tag("h2", null, "(a) Does the paper's claim hold here?");
      h.tag("p", null, pc.path("summary").asText());
      List<String> baselines = strings(pc.path("baselines"));
      List<String> head = new ArrayList<>(List.of("global tier", "best paper baseline", "SMetric's gain"));
      for (String b : baselines) head.add("vs " + b);
      List<List<String>> rows = new ArrayList<>();
      for (JsonNode e : pc.path("by_global_ratio")) {
        List<String> r = new ArrayList<>();
        r.add(Numbers.sig4(e.path("global_ratio").asDouble()) + "x");
        r.add(e.path("best_paper_baseline").asText());
        r.add(Numbers.signedPercent(e.path("gain")) + range(e.path("interval")) + (e.has("status") ? " (" + e.path("status").asText()
            + (e.has("interval_note") ? ", point value" : "") + ")" : ""));
        for (String b : baselines) r.add(Numbers.signedPercent(e.path("vs").path(b).path("gain")));
        rows.add(r);
      }
      h.table(head, rows, "answer");
      h.raw("</div>\n");
    }
    JsonNode wr = answers.path("what_to_run");
    if (wr.isObject()) {
      h.raw("<div class=\"answer\" id=\"answer-what-to-run\">\n");
      h.tag("h2", null, "(b) What should you run?");
      h.tag("p", null, wr.path("summary").asText());
      List<List<String>> rows = new ArrayList<>();
      for (JsonNode e : wr.path("by_global_ratio")) {
        JsonNode top = e.path("ranking").path(0);
        rows.add(List.of(Numbers.sig4(e.path("global_ratio").asDouble()) + "x", e.path("best").asText(),
            Numbers.signedPercent(e.path("margin")) + " over " + e.path("runner_up").asText(),
            Numbers.percent(top.path("slo_attainment")) + " / " + Numbers.sig4(top.path("ttft_p90_s")) + " s",
            e.has("smetric_gain_vs_best_other") ? Numbers.signedPercent(e.path("smetric_gain_vs_best_other"))
                + range(e.path("smetric_gain_vs_best_other_interval")) + " vs " + e.path("best_other_than_smetric").asText() : "n/a"));
      }
      h.table(List.of("global tier", "best router", "margin", "its requests in SLO / TTFT p90", "SMetric"), rows, "answer");
      h.raw("</div>\n");
    }
    JsonNode jr = answers.path("judged_router");
    if (jr.isObject()) {
      h.tag("p", "judged", "The verdict judges SMetric against " + jr.path("label").asText() + " ("
          + jr.path("rule").asText() + "); name the router you run today with --current-router.");
      if (jr.path("configuration").isArray()) {
        h.tag("p", null, "Its configuration as the replay understood it (--current-router NAME:CONFIG): each knob, "
            + "the value the replay used and where it came from; the rows marked \"no effect in the replay\" say why.");
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode k : jr.path("configuration")) {
          rows.add(List.of(k.path("knob").asText(), k.path("value").asText(), k.path("source").asText()));
        }
        h.table(List.of("knob", "value", "from"), rows, "answer");
      }
    }
    h.raw("</section>\n");
  }

  /** A number read from replay.json, null for NaN or infinity (written there as strings, which audit.json has always left null). */
  private static Double finite(Double x) {
    return x == null || x.isNaN() || x.isInfinite() ? null : x;
  }

  static List<String> strings(JsonNode arr) {
    List<String> out = new ArrayList<>();
    for (JsonNode x : arr) out.add(x.asText());
    return out;
  }

  /** " [low, high]" of an interval node, or "". */
  static String range(JsonNode iv) {
    if (iv == null || !iv.path("low").isNumber() || !iv.path("high").isNumber()) return "";
    return " [" + Numbers.signedPercent(iv.path("low").asDouble()) + ", " + Numbers.signedPercent(iv.path("high").asDouble()) + "]";
  }


  /**
   * The routers at equal load (replay.json "equal_load"): per capacity and normalised load, each
   * compared router's TPS within SLO beside its SLO attainment, which SLO its misses broke, its
   * tail latencies, and the mechanism behind them (hit shares, imbalance, stickiness to the first
   * and to the previous turn, migrations, global-tier traffic).
   */
  static void equalLoadHtml(Html h, JsonNode replay) {
    EqualLoadBlock el = EqualLoadBlock.of(replay);
    if (el == null || el.capacities().isEmpty()) return;
    h.raw("<section id=\"equal-load\">\n");
    h.tag("h2", null, "The routers at equal load");
    h.tag("p", null, "Every router at the same offered rates, so a difference is one of service, not of load. "
        + text(el.referenceRule()) + ". The verdict reads SMetric's gain at "
        + Numbers.sig4(orZero(el.decisionLoad())) + "x" + (finite(el.declaredGlobalRatio()) != null
            ? " with a " + Numbers.sig4(el.declaredGlobalRatio()) + "x global tier (declared before the replay) and without one" : "")
        + ". TPS within SLO counts " + text(el.tpsCounts()) + ". Misses: the share of requests that missed the SLO "
        + "because their first token was late (TTFT), only their decode pace was slow (TPOT), or they timed out.");
    List<List<String>> rows = new ArrayList<>();
    for (EqualLoadBlock.Row e : el.capacities()) {
      if (e.points() == null) continue;
      for (EqualLoadBlock.Point p : e.points()) {
        if (p.policies() == null) continue;
        for (String n : p.policies().keySet()) {
          java.util.Map<String, Double> m = p.policies().get(n) == null ? java.util.Map.of() : p.policies().get(n);
          String g = n.equals("smetric") ? "" : signed(p.smetricGainVs() == null ? null : p.smetricGainVs().get(n));
          EqualLoadBlock.JudgedGain jg = p.smetricGainVsJudged();
          if (jg != null && n.equals(jg.vs())) g += range(jg.interval());
          rows.add(List.of(Numbers.sig4(e.globalRatio()) + "x",
              Numbers.sig4(p.load()) + "x (rate x" + Numbers.sig4(orZero(p.rateScale())) + ")",
              n + (n.equals(e.judgedRouter()) ? " (judged)" : ""),
              Numbers.sig4(finite(m.get("tps_within_slo"))) + " tok/s", Numbers.percent(finite(m.get("slo_attainment"))),
              Numbers.percent(finite(m.get("slo_miss_ttft_share"))) + " / " + Numbers.percent(finite(m.get("slo_miss_tpot_only_share")))
                  + " / " + Numbers.percent(finite(m.get("slo_miss_timed_out_share"))),
              Numbers.sig4(finite(m.get("ttft_p90_s"))) + " s / " + Numbers.sig4(1000 * orNaN(m.get("tpot_p90_s"))) + " ms",
              Numbers.percent(finite(m.get("local_hit_ratio"))) + " / " + Numbers.percent(finite(m.get("global_hit_ratio"))),
              Numbers.sig4(finite(m.get("imbalance_mean"))),
              Numbers.percent(finite(m.get("stickiness"))) + " / " + Numbers.percent(finite(m.get("stickiness_previous"))),
              Numbers.sig4(finite(m.get("session_migrations"))),
              Numbers.sig4(orNaN(m.get("global_bytes_read")) / 1e9) + " GB / "
                  + Numbers.sig4(orNaN(m.get("global_peak_read_bytes_per_s")) / 1e9) + " GB/s",
              g));
        }
      }
    }
    h.table(List.of("global tier", "load", "router", "TPS within SLO", "in SLO", "misses TTFT / TPOT only / timed out",
        "TTFT p90 / TPOT p90", "hits local / global", "imbalance (max/mean)", "stickiness turn 0 / previous",
        "migrations", "global read total / peak", "SMetric's gain"), rows, "equal-load");
    h.raw("</section>\n");
  }

  /** The paper's preconditions at each capacity's operating point (replay.json "preconditions") as a table. */
  static void operatingPointHtml(Html h, JsonNode replay) {
    PreconditionsBlock pre = PreconditionsBlock.of(replay);
    if (pre == null || pre.rows().isEmpty()) return;
    h.raw("<section id=\"operating-point\">\n");
    h.tag("h2", null, "Operating point: the paper's preconditions in the replay");
    h.tag("p", null, "At each global-tier capacity, measured on the replayed timeline at SMetric's best offered rate (its headline), "
        + "and for the cache-first baseline (cache-affinity) at its own headline. The paper's cluster ran at 43-48 requests per "
        + "instance-minute (never below 30), ~90% of reuse within "
        + Numbers.sig4(pre.reuseIntervalThresholdS() == null ? 100 : pre.reuseIntervalThresholdS())
        + " s, and its cache-first router formed hot spots (max/mean load 2.7-3.0 vs 2.0-2.1 for load balance) with 96.6% "
        + "stickiness. These explain the replay's answer; they do not gate it (the paper's regime is judged on the trace: "
        + "requests_per_instance, reuse_within_100s).");
    List<List<String>> rows = new ArrayList<>();
    for (PreconditionsBlock.Row e : pre.rows()) {
      PreconditionsBlock.Baseline cf = e.cacheFirst();
      PreconditionsBlock.Baseline lb = e.loadBalance();
      Double rate = e.operatingPoint() == null ? null : finite(e.operatingPoint().rateScale());
      rows.add(List.of(Numbers.sig4(e.globalRatio()) + "x",
          rate != null ? OfferedRate.text(replay, rate) : Numbers.NA,
          Numbers.sig4(finite(e.requestsPerInstanceMinuteMedian())),
          Numbers.percent(finite(e.reuseWithinThresholdShare())),
          Numbers.sig4(finite(e.localHoldS())) + " s / " + Numbers.percent(finite(e.reuseWithinLocalHoldShare())),
          Numbers.sig4(finite(e.liveSessionsPerInstance())),
          Numbers.sig4(cf == null ? null : finite(cf.imbalanceMean())) + " / " + Numbers.sig4(lb == null ? null : finite(lb.imbalanceMean())),
          Numbers.percent(cf == null ? null : finite(cf.stickiness()))));
    }
    h.table(List.of("global tier", "SMetric's rate", "requests / instance-min (median)", "reuse within threshold",
        "local tier turnover / reuse within it", "live sessions / instance", "imbalance cache-first / load balance",
        "cache-first stickiness"), rows, "operating-point");
    h.raw("</section>\n");
  }

  /**
   * The conditions sweep in words (replay.json "conditions"): per parameter, SMetric's gain over
   * the judged router at each documented value; then what the verdict concluded over the range.
   */
  static void conditionsHtml(Html h, JsonNode replay, String verdictOnRange) {
    ConditionsBlock cond = ConditionsBlock.of(replay);
    if (cond == null) return;
    h.raw("<section id=\"conditions\">\n");
    h.tag("h2", null, "Conditions: parameters no trace can tell");
    if (cond.parameters() == null) {
      h.tag("p", "missing", "Not swept: " + (cond.notApplicable() == null ? "no conditions block" : cond.notApplicable()) + ".");
      h.raw("</section>\n");
      return;
    }
    h.tag("p", null, "SMetric against " + text(cond.judgedRouter()) + " at a " + Numbers.sig4(orZero(cond.globalRatio()))
        + "x global tier (the declared capacity), each parameter over its documented range, the others at the audit's "
        + "defaults; every point runs both routers at the verdict's offered rate (x" + Numbers.sig4(finite(cond.rateScale()))
        + ", " + Numbers.sig4(finite(cond.load())) + "x the judged router's knee): the same traffic under other values.");
    List<List<String>> rows = new ArrayList<>();
    for (ConditionsBlock.Parameter p : cond.parameterList()) {
      List<String> parts = new ArrayList<>();
      for (ConditionsBlock.Point pt : p.pointList()) {
        boolean base = text(pt.value()).equals(text(p.baseValue()));
        parts.add(signed(pt.gain()) + " at " + value(pt.value(), p) + (base ? " (default)" : ""));
      }
      rows.add(List.of(text(p.label()), String.join("; ", parts), text(p.source())));
    }
    h.table(List.of("parameter", "SMetric's gain at each documented value", "source of the range"), rows, "conditions");
    if (verdictOnRange != null) h.tag("p", null, "Over the whole range: " + verdictOnRange);
    h.raw("</section>\n");
  }

  /** A swept parameter's value in its display unit (replay.json conditions: unit, unit_scale). */
  private static String value(JsonNode v, ConditionsBlock.Parameter p) {
    return Numbers.withUnit(ConditionsBlock.number(v), p.scale(), p.unitOrEmpty(), "unlimited");
  }

  /** {@link Numbers#signedPercent(double)}, "n/a" when absent or not finite. */
  private static String signed(Double v) {
    return finite(v) == null ? Numbers.NA : Numbers.signedPercent(v);
  }

  private static double orZero(Double v) {
    return v == null ? 0 : v;
  }

  private static double orNaN(Double v) {
    return v == null ? Double.NaN : v;
  }

  private static String text(JsonNode n) {
    return n == null ? "" : n.asText();
  }
}
