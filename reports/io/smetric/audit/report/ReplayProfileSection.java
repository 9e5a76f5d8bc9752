package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.PreconditionsBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which simulated instance the replay ran (the profile in replay.json's settings), how that profile
 * was checked against real runs (fit, leave-one-out and held-out runs kept apart, never one
 * "validation" number), the regime those runs were in, and where this audit's operating point lies
 * outside it: audit.json's {@code replay_profile} and a paragraph of the report, so nobody reads a
 * verdict without knowing what cost model decided it and how far it was extrapolated. The regime
 * comparison informs; it does not enter the verdict.
 */
final class ReplayProfileSection {
  private ReplayProfileSection() {}

  /** The share of the time to first token spent waiting for admission above which a run is queue-bound. */
  static final double QUEUE_BOUND_SHARE = 0.5;
  /** Hit shares further than this from the validated range are called out. */
  static final double HIT_SHARE_MARGIN = 0.05;

  /** {name, model, hardware, engine, validation, operating_point, outside_validated_regime}; null without a replay. */
  static ObjectNode json(JsonNode replay) {
    io.smetric.audit.contract.SettingsBlock settings = io.smetric.audit.contract.SettingsBlock.of(replay);
    JsonNode p = settings == null ? null : settings.profile();
    if (p == null || !p.isObject()) return null;
    ObjectNode o = Json.object();
    for (String k : new String[] {"name", "model", "hardware", "engine"}) {
      if (p.path(k).isTextual()) o.put(k, p.path(k).asText());
    }
    JsonNode v = p.path("validation");
    if (!v.isObject()) {
      o.put("validation", "none: this profile was not checked against real runs");
      return o;
    }
    ObjectNode val = o.putObject("validation");
    for (String k : new String[] {"summary", "heldOutPoints", "e2eMedianAbsError", "tpotMedianAbsError", "ttftMedianAbsError"}) {
      if (!v.path(k).isMissingNode() && !v.path(k).isNull()) val.set(k, v.path(k).deepCopy());
    }
    if (v.path("checks").isArray()) {
      ArrayNode checks = val.putArray("checks");
      for (JsonNode c : v.path("checks")) {
        ObjectNode cc = checks.addObject();
        for (String k : new String[] {"kind", "meaning", "measurements", "points", "e2eMedianAbsError", "tpotMedianAbsError",
            "ttftMedianAbsError", "e2eP90AbsError", "ttftP90AbsError", "maxAbsError"}) {
          if (!c.path(k).isMissingNode() && !c.path(k).isNull()) cc.set(k, c.path(k).deepCopy());
        }
        if (c.path("regime").path("summary").isTextual()) cc.put("regime", c.path("regime").path("summary").asText());
      }
    } else {
      val.put("labels", "not recorded: this profile's record predates fit, leave-one-out and held-out being kept apart");
    }
    JsonNode regime = v.path("regime");
    if (regime.isObject()) val.set("regime", regime.deepCopy());
    ObjectNode op = operatingPoint(replay);
    if (op != null) o.set("operating_point", op);
    if (regime.isObject() && op != null) {
      ArrayNode out = o.putArray("outside_validated_regime");
      outside(regime, op).forEach(out::add);
    }
    return o;
  }

  /**
   * The replay's operating point: SMetric's headline run at each global-tier capacity (replay.json
   * preconditions.by_global_ratio[].operating_point), read from those runs' metrics; lengths,
   * requests in flight and rates as the largest over them, hit shares and queueing as their range.
   */
  static ObjectNode operatingPoint(JsonNode replay) {
    List<JsonNode> runs = new ArrayList<>();
    ArrayNode ids = Json.MAPPER.createArrayNode();
    PreconditionsBlock pre = PreconditionsBlock.of(replay);
    for (PreconditionsBlock.Row e : pre == null ? List.<PreconditionsBlock.Row>of() : pre.rows()) {
      Integer id = e.operatingPoint() == null ? null : e.operatingPoint().runId();
      if (id == null) continue;
      for (JsonNode r : replay.path("runs")) {
        if (r.path("run_id").asInt() == id) {
          runs.add(r);
          ids.add(id);
        }
      }
    }
    if (runs.isEmpty()) return null;
    io.smetric.audit.contract.SettingsBlock settings = io.smetric.audit.contract.SettingsBlock.of(replay);
    double instances = settings == null || settings.instances() == null ? Double.NaN : settings.instances();
    ObjectNode op = Json.object();
    op.put("source", "replay.json: SMetric's headline run (its best offered rate) at each global-tier capacity, "
        + "preconditions.by_global_ratio[].operating_point; the largest value over those runs, hit share and queueing as ranges");
    op.set("run_ids", ids);
    putMax(op, "input_tokens_max", runs, "input_tokens_max");
    putMax(op, "input_tokens_p90", runs, "input_tokens_p90");
    putMax(op, "context_tokens_max", runs, "context_tokens_max");
    putMax(op, "in_flight_per_instance_mean", runs, "in_flight_per_instance_mean");
    double rate = Double.NaN;
    for (JsonNode r : runs) {
      JsonNode m = r.path("metrics");
      if (m.path("requests").isNumber() && m.path("duration_s").asDouble() > 0 && instances > 0) {
        double x = m.path("requests").asDouble() / m.path("duration_s").asDouble() / instances;
        rate = Double.isNaN(rate) ? x : Math.max(rate, x);
      }
    }
    if (!Double.isNaN(rate)) op.put("requests_per_s_per_instance", rate);
    putRange(op, "total_hit_ratio", runs, "total_hit_ratio");
    putRange(op, "queue_wait_share_of_ttft", runs, "queue_wait_share_of_ttft");
    putMax(op, "timed_out_share", runs, "timed_out_share");
    putMax(op, "preemptions", runs, "preemptions");
    return op;
  }

  /** Statements of where the operating point lies outside the validated regime (empty = inside on every measured axis). */
  static List<String> outside(JsonNode g, ObjectNode op) {
    List<String> out = new ArrayList<>();
    String kinds = g.path("kinds").asText("runs");
    longer(out, op.path("input_tokens_max"), g.path("promptTokensMax"), "prompts");
    longer(out, op.path("context_tokens_max"), g.path("contextTokensMax"), "contexts (prompt + output)");
    JsonNode conc = op.path("in_flight_per_instance_mean");
    JsonNode cmax = g.path("concurrencyMax");
    if (conc.isNumber() && cmax.isNumber() && conc.asDouble() > cmax.asDouble()) {
      out.add(String.format(Locale.ROOT, "%s requests in flight per instance on average, where %s", num(conc.asDouble()),
          cmax.asDouble() <= 1 ? "only one request at a time (batch 1) was validated"
              : "the validated " + kinds + " had at most " + num(cmax.asDouble())));
    }
    JsonNode rate = op.path("requests_per_s_per_instance");
    JsonNode rmax = g.path("requestRateMax");
    if (rate.isNumber() && rmax.isNumber() && rate.asDouble() > rmax.asDouble()) {
      out.add(String.format(Locale.ROOT, "%s requests/s per instance, above the highest validated rate (%s/s)",
          num(rate.asDouble()), num(rmax.asDouble())));
    }
    JsonNode hit = op.path("total_hit_ratio");
    if (hit.isObject() && g.path("cacheHitShareMax").isNumber()) {
      double lo = g.path("cacheHitShareMin").asDouble();
      double hi = g.path("cacheHitShareMax").asDouble();
      double a = hit.path("min").asDouble();
      double b = hit.path("max").asDouble();
      if (a < lo - HIT_SHARE_MARGIN || b > hi + HIT_SHARE_MARGIN) {
        out.add(String.format(Locale.ROOT, "a prefix-cache hit share of %s, where the validated %s had %s", pctRange(a, b), kinds,
            hi == 0 ? "none (no prefix-cache hits)" : pctRange(lo, hi)));
      }
    }
    JsonNode q = op.path("queue_wait_share_of_ttft");
    boolean queued = q.isObject() && q.path("max").asDouble() >= QUEUE_BOUND_SHARE;
    boolean failed = op.path("timed_out_share").asDouble() > 0;
    boolean preempted = op.path("preemptions").asDouble() > 0;
    if ((queued || failed || preempted) && g.path("saturatedMeasurements").asInt() == 0) {
      List<String> why = new ArrayList<>();
      if (queued) why.add(String.format(Locale.ROOT, "up to %s of the time to first token spent waiting for admission",
          pct(q.path("max").asDouble())));
      if (failed) why.add(pct(op.path("timed_out_share").asDouble()) + " of requests past the agent timeout");
      if (preempted) why.add(String.format(Locale.ROOT, "%.0f preemptions for KV memory", op.path("preemptions").asDouble()));
      out.add("a queue-bound knee (" + String.join(", ", why) + ") where only unsaturated " + kinds + " were validated");
    }
    return out;
  }

  private static void longer(List<String> out, JsonNode op, JsonNode validated, String what) {
    if (!op.isNumber() || !validated.isNumber() || validated.asDouble() <= 0) return;
    double ratio = op.asDouble() / validated.asDouble();
    if (ratio <= 1) return;
    out.add(String.format(Locale.ROOT, "%s up to %,d tokens, %sx longer than any validated run (%,d)", what, op.asLong(),
        ratio >= 10 ? String.format(Locale.ROOT, "%.0f", ratio) : String.format(Locale.ROOT, "%.1f", ratio), validated.asLong()));
  }

  private static void putMax(ObjectNode op, String key, List<JsonNode> runs, String metric) {
    double v = Double.NaN;
    for (JsonNode r : runs) {
      JsonNode m = r.path("metrics").path(metric);
      if (m.isNumber()) v = Double.isNaN(v) ? m.asDouble() : Math.max(v, m.asDouble());
    }
    if (!Double.isNaN(v)) op.put(key, v);
  }

  private static void putRange(ObjectNode op, String key, List<JsonNode> runs, String metric) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (JsonNode r : runs) {
      JsonNode m = r.path("metrics").path(metric);
      if (m.isNumber()) {
        lo = Math.min(lo, m.asDouble());
        hi = Math.max(hi, m.asDouble());
      }
    }
    if (hi >= lo) op.putObject(key).put("min", lo).put("max", hi);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * v);
  }

  private static String pctRange(double a, double b) {
    return Math.abs(a - b) < 0.005 ? pct(a) : pct(a) + "-" + pct(b);
  }

  static void html(Html h, ObjectNode profile) {
    if (profile == null) return;
    h.raw("<section id=\"replay-profile\">\n");
    h.tag("h2", null, "Simulated instance");
    String what = profile.path("name").asText() + " (" + profile.path("model").asText("model not stated") + " on "
        + profile.path("hardware").asText("hardware not stated") + ", " + profile.path("engine").asText("engine not stated") + ")";
    JsonNode v = profile.path("validation");
    String checked;
    if (!v.isObject()) {
      checked = v.asText();
    } else if (v.path("checks").isArray()) {
      List<String> parts = new ArrayList<>();
      boolean held = false;
      for (JsonNode c : v.path("checks")) {
        String kind = c.path("kind").asText();
        held |= kind.equals("held-out");
        parts.add(label(kind) + ": median |error| " + errors(c) + " (" + c.path("meaning").asText() + ")");
      }
      if (!held) parts.add("held-out runs: none, so nothing here measures how the profile predicts other workloads or loads");
      checked = String.join("; ", parts);
    } else {
      checked = v.path("summary").asText("no summary") + " (" + v.path("labels").asText() + ")";
    }
    h.tag("p", null, "The replay's instances follow the profile " + what + ". How it was checked against real runs: " + checked
        + ". Every number of the profile and its source: " + (profile.path("name").asText().startsWith("from-trace:")
            // fitted on this trace for this audit (--profile from-trace): not a shipped profile `profiles` could print
            ? "replay/replay.json `settings.profile`"
            : "`smetric-audit profiles " + profile.path("name").asText() + "`")
        + "; the validation: docs/validation.md.");
    JsonNode regime = v.path("regime");
    if (regime.isObject()) {
      StringBuilder b = new StringBuilder("Checked in: " + regime.path("summary").asText() + ". ");
      JsonNode out = profile.path("outside_validated_regime");
      if (out.isArray() && !out.isEmpty()) {
        List<String> items = new ArrayList<>();
        out.forEach(x -> items.add(x.asText()));
        b.append("This audit's operating point (SMetric's headline runs, replay.json) lies outside it: ")
            .append(String.join("; ", items)).append(". There the replay extrapolates the step-cost formula beyond what was "
                + "measured; the verdict does not depend on this note, but a verdict near a threshold does depend on these costs.");
      } else if (out.isArray()) {
        b.append("This audit's operating point (SMetric's headline runs) lies within it on every axis measured.");
      }
      h.tag("p", null, b.toString());
    }
    h.tag("p", null, "To check the costs for your own model and GPU: calibrate a profile on your measurements "
        + "(`smetric-audit calibrate`, ideally load runs near this operating point) and rerun with --profile.");
    h.raw("</section>\n");
  }

  private static String label(String kind) {
    return switch (kind) {
      case "fit" -> "fit (in-sample)";
      case "leave-one-out" -> "leave-one-out (the fitted runs)";
      case "held-out" -> "held-out runs";
      case "overloaded" -> "overloaded stages (not counted)";
      case "cross-validated" -> "derived profile, the derivation cross-validated on other models and GPUs";
      default -> kind;
    };
  }

  private static String errors(JsonNode c) {
    List<String> e = new ArrayList<>();
    for (String[] m : new String[][] {{"E2E", "e2eMedianAbsError"}, {"TPOT", "tpotMedianAbsError"}, {"TTFT", "ttftMedianAbsError"}}) {
      if (c.path(m[1]).isNumber()) e.add(m[0] + " " + String.format(Locale.ROOT, "%.1f%%", 100 * c.path(m[1]).asDouble()));
    }
    List<String> p90 = new ArrayList<>(); // per-request checks on a recorded trace (calibrate TRACE) also give the tail
    for (String[] m : new String[][] {{"E2E", "e2eP90AbsError"}, {"TTFT", "ttftP90AbsError"}}) {
      if (c.path(m[1]).isNumber()) p90.add(m[0] + " " + String.format(Locale.ROOT, "%.1f%%", 100 * c.path(m[1]).asDouble()));
    }
    return String.join(", ", e) + (p90.isEmpty() ? "" : "; p90 |error| " + String.join(", ", p90)) + " over "
        + c.path("points").asInt() + " numbers of " + c.path("measurements").asInt() + (p90.isEmpty() ? " runs" : " requests");
  }
}
