package io.smetric.audit.replay.calibrate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * GuideLLM benchmark reports ({@code benchmarks.json}, or the same tree as YAML): one measurement
 * per entry of {@code benchmarks}. The strategy comes from {@code args.strategy} (GuideLLM up to
 * 0.3) or {@code config.strategy} (0.4 and later): synchronous = one request at a time, concurrent
 * = {@code streams} in flight, throughput = everything at once, constant = one request every
 * 1/rate, poisson = exponential gaps at rate. Latencies from
 * {@code metrics.<name>.successful} ({@code request_latency} in seconds, {@code *_ms} in
 * milliseconds; mean, median, percentiles p90/p99). Counts from {@code request_totals}; rates over
 * the benchmark's {@code duration}. Per-request lengths from {@code requests.successful} when every
 * successful request is listed there, else every request at the mean lengths.
 */
final class GuideLlmJson {
  private GuideLlmJson() {}

  static boolean looksLike(JsonNode n) {
    JsonNode b = n.get("benchmarks");
    return n.isObject() && b != null && b.isArray();
  }

  static List<Measurement> read(String file, JsonNode root) {
    JsonIn j = new JsonIn(file);
    JsonNode list = root.get("benchmarks");
    if (list.isEmpty()) throw j.bad("benchmarks", "empty: no benchmark to read");
    List<Measurement> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      String p = "benchmarks[" + i + "].";
      JsonNode b = list.get(i);
      if (!b.isObject()) throw j.bad("benchmarks[" + i + "]", "must be an object");
      out.add(benchmark(file, j, b, p, i));
    }
    return out;
  }

  private static Measurement benchmark(String file, JsonIn j, JsonNode b, String p, int index) {
    List<String> notes = new ArrayList<>();
    JsonNode args = j.optObject(b, "args", p);
    JsonNode config = j.optObject(b, "config", p);
    JsonNode strategy = args != null ? j.optObject(args, "strategy", p + "args.")
        : config != null ? j.optObject(config, "strategy", p + "config.") : null;
    String sp = args != null ? p + "args.strategy." : p + "config.strategy.";
    if (strategy == null) throw j.bad(p + "args.strategy", "missing (nor config.strategy): cannot tell how requests were sent");
    String type = j.requiredText(strategy, "type_", sp).toLowerCase(Locale.ROOT);

    JsonNode metrics = j.object(b, "metrics", p);
    String mp = p + "metrics.";
    JsonNode totals = b.has("request_totals") ? j.object(b, "request_totals", p)
        : metrics.has("request_totals") ? j.object(metrics, "request_totals", mp) : null;
    if (totals == null) throw j.bad(p + "request_totals", "missing");
    String tp = b.has("request_totals") ? p + "request_totals." : mp + "request_totals.";
    long ok = j.requiredCount(totals, "successful", tp);
    long errored = totals.hasNonNull("errored") ? j.requiredCount(totals, "errored", tp) : 0;
    long incomplete = totals.hasNonNull("incomplete") ? j.requiredCount(totals, "incomplete", tp) : 0;
    double duration = duration(j, b, p);

    Stat e2e = dist(j, metrics, "request_latency", mp, 1.0);
    Stat ttft = dist(j, metrics, "time_to_first_token_ms", mp, 1e-3);
    Stat tpot = dist(j, metrics, "time_per_output_token_ms", mp, 1e-3);
    Stat itl = dist(j, metrics, "inter_token_latency_ms", mp, 1e-3);
    double promptSum = sum(j, metrics, "prompt_token_count", mp);
    double outputSum = sum(j, metrics, "output_token_count", mp);
    Metrics m = new Metrics(ttft, tpot, itl, e2e, ok / duration, outputSum / duration, (promptSum + outputSum) / duration,
        ok, errored + incomplete);
    if (incomplete > 0) notes.add(incomplete + " requests incomplete at the end of the benchmark, counted as failed");

    SampledWorkload.Arrival arrival;
    double rate = Double.NaN;
    Integer concurrency = j.optInt(strategy, "max_concurrency", sp, 1);
    switch (type) {
      case "synchronous" -> {
        arrival = SampledWorkload.Arrival.ALL_AT_ONCE;
        concurrency = 1;
      }
      case "concurrent" -> {
        arrival = SampledWorkload.Arrival.ALL_AT_ONCE;
        concurrency = j.optInt(strategy, "streams", sp, 1);
        if (concurrency == null) throw j.bad(sp + "streams", "missing for a concurrent strategy");
      }
      case "throughput" -> arrival = SampledWorkload.Arrival.ALL_AT_ONCE;
      case "constant", "poisson" -> {
        arrival = type.equals("constant") ? SampledWorkload.Arrival.UNIFORM : SampledWorkload.Arrival.EXPONENTIAL;
        rate = j.requiredNum(strategy, "rate", sp);
        if (!(rate > 0)) throw j.bad(sp + "rate", "must be > 0, got " + rate);
      }
      default -> throw j.bad(sp + "type_", "strategy '" + type + "' is not supported (synchronous, concurrent, throughput, constant, poisson)");
    }

    int count = (int) (ok + errored + incomplete);
    int[] in = null;
    int[] outTok = null;
    JsonNode reqs = j.optObject(b, "requests", p);
    JsonNode succ = reqs == null ? null : reqs.get("successful");
    if (succ != null && succ.isArray() && succ.size() == ok && ok > 0) {
      in = new int[(int) ok];
      outTok = new int[(int) ok];
      for (int r = 0; r < ok; r++) {
        String rp = p + "requests.successful[" + r + "].";
        in[r] = (int) j.requiredCount(succ.get(r), "prompt_tokens", rp);
        outTok[r] = (int) j.requiredCount(succ.get(r), "output_tokens", rp);
      }
      if (count > ok) notes.add("only the " + ok + " successful requests' lengths are known; the " + (count - ok) + " others are not replayed");
    } else {
      if (ok == 0) throw j.bad(tp + "successful", "0 successful requests: nothing to replay");
      int meanIn = (int) Math.round(promptSum / ok);
      int meanOut = (int) Math.round(outputSum / ok);
      if (meanIn <= 0) throw j.bad(mp + "prompt_token_count", "gives a mean prompt of 0 tokens");
      in = new int[count];
      outTok = new int[count];
      java.util.Arrays.fill(in, meanIn);
      java.util.Arrays.fill(outTok, meanOut);
      notes.add("per-request lengths not all in the report: every request at the mean, " + meanIn + " in / " + meanOut + " out");
    }
    SampledWorkload w = new SampledWorkload(in, outTok, 0, arrival, rate, 1.0, concurrency, duration, 16);
    String model = model(j, b, config);
    String group = (model == null ? SingleRequestCsv.stem(file) : VllmBenchJson.lastPart(model).toLowerCase(Locale.ROOT))
        + "/unknown-hardware";
    return new Measurement(file + "#benchmarks[" + index + "]", file, group, Kind.LOAD_STAGE, EngineConfig.UNKNOWN, w, m, null,
        model, null, notes);
  }

  private static double duration(JsonIn j, JsonNode b, String p) {
    double d = j.num(b, "duration", p);
    if (Double.isNaN(d)) {
      JsonNode sm = j.optObject(b, "scheduler_metrics", p);
      if (sm != null) {
        d = j.num(sm, "measure_end_time", p + "scheduler_metrics.") - j.num(sm, "measure_start_time", p + "scheduler_metrics.");
      }
    }
    if (Double.isNaN(d)) d = j.num(b, "end_time", p) - j.num(b, "start_time", p);
    if (!(d > 0)) throw j.bad(p + "duration", "missing or not > 0 (nor scheduler_metrics.measure_*_time, nor start/end_time)");
    return d;
  }

  private static Stat dist(JsonIn j, JsonNode metrics, String name, String mp, double scale) {
    JsonNode d = j.optObject(metrics, name, mp);
    JsonNode s = d == null ? null : j.optObject(d, "successful", mp + name + ".");
    if (s == null) return Stat.NONE;
    String sp = mp + name + ".successful.";
    JsonNode pct = j.optObject(s, "percentiles", sp);
    double p50 = j.num(s, "median", sp);
    if (Double.isNaN(p50)) p50 = j.num(pct, "p50", sp + "percentiles.");
    return new Stat(j.num(s, "mean", sp) * scale, p50 * scale, j.num(pct, "p90", sp + "percentiles.") * scale,
        j.num(pct, "p99", sp + "percentiles.") * scale);
  }

  private static double sum(JsonIn j, JsonNode metrics, String name, String mp) {
    JsonNode d = j.optObject(metrics, name, mp);
    JsonNode s = d == null ? null : j.optObject(d, "successful", mp + name + ".");
    if (s == null) throw j.bad(mp + name + ".successful", "missing");
    return j.requiredNum(s, "total_sum", mp + name + ".successful.");
  }

  private static String model(JsonIn j, JsonNode b, JsonNode config) {
    JsonNode worker = b.get("worker");
    if (worker != null && worker.isObject() && worker.hasNonNull("backend_model")) return worker.get("backend_model").asText();
    JsonNode backend = b.at("/config/requests/model");
    if (!backend.isMissingNode() && !backend.isNull()) return backend.asText();
    return null;
  }
}
