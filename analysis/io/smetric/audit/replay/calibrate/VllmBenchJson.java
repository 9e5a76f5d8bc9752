package io.smetric.audit.replay.calibrate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code vllm bench serve --save-result} / {@code benchmarks/benchmark_serving.py} result JSON.
 * Read: {@code request_rate} (a number or "inf"), {@code burstiness}, {@code max_concurrency},
 * {@code num_prompts}, {@code duration}, {@code completed}, {@code failed} (newer versions; else
 * num_prompts - completed), token totals and throughputs, and for ttft / tpot / itl / e2el the
 * {@code mean_*_ms}, {@code median_*_ms}, {@code p90_*_ms}, {@code p99_*_ms} present (the
 * percentiles written depend on {@code --metric-percentiles}; absent = NaN). With
 * {@code --save-detailed} (or versions that always wrote them) {@code input_lens} and
 * {@code output_lens} give every request's lengths; otherwise every request gets the mean lengths.
 */
final class VllmBenchJson {
  private VllmBenchJson() {}

  static boolean looksLike(JsonNode n) {
    return n.isObject() && n.has("completed") && (n.has("mean_ttft_ms") || n.has("request_throughput"));
  }

  static List<Measurement> read(String file, JsonNode n) {
    JsonIn j = new JsonIn(file);
    long completed = j.requiredCount(n, "completed", "");
    double duration = j.requiredNum(n, "duration", "");
    if (!(duration > 0)) throw j.bad("duration", "must be > 0, got " + duration);
    List<String> notes = new ArrayList<>();
    Integer numPrompts = j.optInt(n, "num_prompts", "", 1);
    long failed;
    if (n.hasNonNull("failed")) failed = j.requiredCount(n, "failed", "");
    else if (numPrompts != null) {
      failed = Math.max(0, numPrompts - completed);
      notes.add("failed = num_prompts - completed (no 'failed' field)");
    } else {
      failed = 0;
      notes.add("failure count not reported; assumed 0");
    }
    Metrics m = new Metrics(stat(j, n, "ttft"), stat(j, n, "tpot"), stat(j, n, "itl"), stat(j, n, "e2el"),
        orDerived(j.num(n, "request_throughput", ""), completed / duration),
        orDerived(j.num(n, "output_throughput", ""), j.num(n, "total_output_tokens", "") / duration),
        orDerived(j.num(n, "total_token_throughput", ""),
            (j.num(n, "total_input_tokens", "") + j.num(n, "total_output_tokens", "")) / duration),
        completed, failed);

    SampledWorkload.Arrival arrival;
    double rate = Double.NaN;
    JsonNode rr = n.get("request_rate");
    if (rr == null || rr.isNull()) {
      arrival = SampledWorkload.Arrival.ALL_AT_ONCE;
      notes.add("request_rate not recorded: treated as inf (all requests at once)");
    } else if (rr.isTextual() && rr.asText().trim().toLowerCase(Locale.ROOT).equals("inf")) {
      arrival = SampledWorkload.Arrival.ALL_AT_ONCE;
    } else if (rr.isNumber() && rr.asDouble() > 0 && Double.isFinite(rr.asDouble())) {
      arrival = SampledWorkload.Arrival.GAMMA;
      rate = rr.asDouble();
    } else {
      throw j.bad("request_rate", "must be a number > 0 or \"inf\", got " + rr);
    }
    double burstiness = n.hasNonNull("burstiness") ? j.requiredNum(n, "burstiness", "") : 1.0;
    if (!(burstiness > 0)) throw j.bad("burstiness", "must be > 0, got " + burstiness);
    Integer concurrency = j.optInt(n, "max_concurrency", "", 1);

    int[] in = j.intArray(n, "input_lens", "");
    int[] out = j.intArray(n, "output_lens", "");
    if ((in == null) != (out == null)) throw j.bad(in == null ? "input_lens" : "output_lens", "present without its partner list");
    if (in != null && in.length != out.length) {
      throw j.bad("output_lens", out.length + " entries but input_lens has " + in.length);
    }
    if (in == null || in.length == 0) {
      if (completed == 0) throw j.bad("completed", "0 completed requests and no per-request lengths: nothing to replay");
      int count = numPrompts != null ? numPrompts : (int) (completed + failed);
      int meanIn = (int) Math.round(j.requiredNum(n, "total_input_tokens", "") / completed);
      int meanOut = (int) Math.round(j.requiredNum(n, "total_output_tokens", "") / completed);
      if (meanIn <= 0) throw j.bad("total_input_tokens", "gives a mean prompt of 0 tokens");
      SampledWorkload w = SampledWorkload.uniform(count, meanIn, meanOut, arrival, rate, burstiness, concurrency, duration, 16);
      notes.add("per-request lengths not saved (no --save-detailed): every request at the mean, " + meanIn + " in / " + meanOut + " out");
      return List.of(measurement(file, n, j, w, m, notes));
    }
    SampledWorkload w = new SampledWorkload(in, out, 0, arrival, rate, burstiness, concurrency, duration, 16);
    notes.add("prompt contents: no shared prefix assumed (the result file does not record --random-prefix-len)");
    return List.of(measurement(file, n, j, w, m, notes));
  }

  private static Measurement measurement(String file, JsonNode n, JsonIn j, SampledWorkload w, Metrics m, List<String> notes) {
    String model = j.optText(n, "model_id");
    String date = j.optText(n, "date");
    String group = (model == null ? SingleRequestCsv.stem(file) : lastPart(model).toLowerCase(Locale.ROOT)) + "/unknown-hardware";
    return new Measurement(file + (date == null ? "" : "#" + date), file, group, Kind.LOAD_STAGE,
        EngineConfig.named(j.optText(n, "backend"), null), w, m, null, model, null, notes);
  }

  static Stat stat(JsonIn j, JsonNode n, String metric) {
    return new Stat(ms(j, n, "mean_" + metric + "_ms"), ms(j, n, "median_" + metric + "_ms"),
        ms(j, n, "p90_" + metric + "_ms"), ms(j, n, "p99_" + metric + "_ms"));
  }

  private static double ms(JsonIn j, JsonNode n, String field) {
    double v = j.nonNegative(n, field, "");
    return v / 1000.0;
  }

  private static double orDerived(double given, double derived) {
    return Double.isNaN(given) ? derived : given;
  }

  static String lastPart(String model) {
    String m = model.replace('\\', '/');
    while (m.endsWith("/")) m = m.substring(0, m.length() - 1);
    return m.substring(m.lastIndexOf('/') + 1);
  }
}
