package io.smetric.audit.replay.calibrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.smetric.audit.common.BadInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * inference-perf stage reports: {@code stage_<N>_lifecycle_metrics.json} with the run's
 * {@code config.yaml} beside it (inference-perf writes both into its results folder) and, when
 * present, an {@code exp-config.yaml} one folder up (llm-d benchmark layout: model, tensor
 * parallelism, max_model_len, max_num_batched_tokens, max_num_seqs). A folder is read as all its
 * stage files (or those of its {@code results/} subfolder).
 *
 * <p>TPOT: inference-perf versions before #566 (2026-06) timestamp every streamed line, so their
 * TPOT is about half the per-token value and half their ITL gaps are ~0 (docs/validation.md
 * section 2). Such a report is recognised by its ITL median being below a tenth of its ITL mean;
 * when the server generated a known fixed number n of tokens ({@code ignore_eos} with a fixed
 * {@code output_len}), TPOT and the mean ITL are converted by (2n+1)/(n-1); otherwise they are
 * left unknown. Every such change is listed in the measurement's notes.
 */
final class InferencePerfReport {
  private static final Pattern STAGE = Pattern.compile("stage_(\\d+)_lifecycle_metrics\\.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private InferencePerfReport() {}

  static boolean looksLike(JsonNode n) {
    return n.isObject() && n.has("load_summary") && n.has("successes");
  }

  /** The stage files of a results folder (or of its results/ subfolder), in stage order. */
  static List<Path> stageFiles(Path dir) {
    List<Path> out = new ArrayList<>();
    for (Path d : new Path[] {dir, dir.resolve("results")}) {
      if (!Files.isDirectory(d)) continue;
      try (var s = Files.list(d)) {
        s.filter(f -> STAGE.matcher(f.getFileName().toString()).matches()).forEach(out::add);
      } catch (IOException e) {
        throw new BadInputException(d.toString(), "cannot list: " + e.getMessage());
      }
      if (!out.isEmpty()) break;
    }
    out.sort((a, b) -> Integer.compare(stageIndex(a), stageIndex(b)));
    return out;
  }

  static int stageIndex(Path f) {
    Matcher m = STAGE.matcher(f.getFileName().toString());
    return m.matches() ? Integer.parseInt(m.group(1)) : -1;
  }

  static Measurement read(Path stageFile, SharedPrefixWorkload.MultiTurn multiTurnOverride) {
    String file = stageFile.toString();
    int k = stageIndex(stageFile);
    if (k < 0) {
      throw new BadInputException(file, "not a stage report: inference-perf names them stage_<N>_lifecycle_metrics.json"
          + " (the summary file mixes stages and cannot be replayed)");
    }
    JsonNode report = parse(JSON, stageFile);
    JsonIn j = new JsonIn(file);
    if (!looksLike(report)) throw j.bad("load_summary", "missing: not an inference-perf lifecycle report");
    Path dir = stageFile.toAbsolutePath().getParent();
    Path configFile = dir.resolve("config.yaml");
    if (!Files.isRegularFile(configFile)) {
      throw new BadInputException(file, "needs the run's config.yaml beside it (" + configFile + ") to know the workload");
    }
    JsonNode config = parse(YAML, configFile);
    JsonIn c = new JsonIn(configFile.toString());
    Path exp = dir.getParent() == null ? null : dir.getParent().resolve("exp-config.yaml");
    JsonNode expConfig = exp != null && Files.isRegularFile(exp) ? parse(YAML, exp) : null;
    List<String> notes = new ArrayList<>();

    JsonNode successes = j.object(report, "successes", "");
    JsonNode latency = j.object(successes, "latency", "successes.");
    String lp = "successes.latency.";
    Stat ttft = stat(j, latency, "time_to_first_token", lp);
    Stat tpot = stat(j, latency, "time_per_output_token", lp);
    Stat itl = stat(j, latency, "inter_token_latency", lp);
    Stat e2e = stat(j, latency, "request_latency", lp);
    JsonNode thr = j.object(successes, "throughput", "successes.");
    long ok = j.requiredCount(successes, "count", "successes.");
    JsonNode failures = j.optObject(report, "failures", "");
    long failed = failures == null ? 0 : j.requiredCount(failures, "count", "failures.");

    JsonNode data = c.object(config, "data", "");
    JsonNode server = c.optObject(config, "server", "");
    JsonNode shared = c.optObject(data, "shared_prefix", "data.");
    Boolean ignoreEos = c.optBool(server, "ignore_eos", "server.");
    Integer fixedOutput = null;
    if (shared != null && Boolean.TRUE.equals(ignoreEos) && shared.path("output_len").isIntegralNumber()) {
      fixedOutput = shared.get("output_len").asInt();
    }
    if (itl.hasMean() && !Double.isNaN(itl.p50()) && itl.p50() < 0.1 * itl.mean()) {
      double rawMedian = itl.p50();
      double rawMean = itl.mean();
      if (fixedOutput != null && fixedOutput > 1) {
        int n = fixedOutput;
        double f = (2.0 * n + 1) / (n - 1);
        tpot = tpot.times(f);
        itl = Stat.ofMean(rawMean * f);
        notes.add(String.format(Locale.ROOT, "TPOT and mean ITL reported per streamed line (ITL median %.3g s, mean %.3g s):"
            + " converted x (2n+1)/(n-1) = %.4f with n = %d (ignore_eos, output_len); ITL percentiles unknown",
            rawMedian, rawMean, f, n));
      } else {
        tpot = Stat.NONE;
        itl = Stat.NONE;
        notes.add("TPOT and ITL reported per streamed line and the server's token count is not fixed: left unknown");
      }
    }
    Metrics m = new Metrics(ttft, tpot, itl, e2e, j.num(thr, "requests_per_sec", "successes.throughput."),
        j.num(thr, "output_tokens_per_sec", "successes.throughput."), j.num(thr, "total_tokens_per_sec", "successes.throughput."),
        ok, failed);

    WorkloadSpec workload = workload(report, j, config, c, data, shared, k, dir, multiTurnOverride, notes);
    EngineConfig engine = engine(expConfig, exp, server, c);
    String model = expConfig != null && expConfig.hasNonNull("model") ? expConfig.get("model").asText()
        : server != null && server.hasNonNull("model_name") ? server.get("model_name").asText() : null;
    String group = (model == null ? "unknown-model" : VllmBenchJson.lastPart(model).toLowerCase(Locale.ROOT))
        + "/unknown-hardware" + (engine.tensorParallel() == null ? "" : "/tp" + engine.tensorParallel())
        + (engine.engine() == null ? "" : "/" + engine.engine());
    return new Measurement(file, file, group, Kind.LOAD_STAGE, engine, workload, m, null, model, null, notes,
        requestTimeout(config, c, notes));
  }

  /**
   * The client's request timeout [s]: {@code load.request_timeout} when set; without it (absent, or
   * null as in builds since b81afa4) inference-perf gives aiohttp's ClientSession no timeout, which
   * then applies its default of 300 s total (docs/validation.md, "Client timeouts").
   */
  static double requestTimeout(JsonNode config, JsonIn c, List<String> notes) {
    JsonNode load = config.path("load");
    Double set = load.isObject() ? c.optPositive(load, "request_timeout", "load.") : null;
    if (set != null) return set;
    notes.add("request timeout 300 s: load.request_timeout not set, so aiohttp's default ClientTimeout(total=300) applies");
    return AIOHTTP_DEFAULT_TIMEOUT_S;
  }

  /** aiohttp's ClientSession default total timeout (aio-libs/aiohttp, aiohttp/client.py DEFAULT_TIMEOUT). */
  static final double AIOHTTP_DEFAULT_TIMEOUT_S = 300;

  private static WorkloadSpec workload(JsonNode report, JsonIn j, JsonNode config, JsonIn c, JsonNode data, JsonNode shared,
      int k, Path dir, SharedPrefixWorkload.MultiTurn override, List<String> notes) {
    JsonNode load = c.object(config, "load", "");
    String type = load.path("type").asText("constant").toLowerCase(Locale.ROOT);
    SharedPrefixWorkload.LoadType loadType = switch (type) {
      case "constant" -> SharedPrefixWorkload.LoadType.CONSTANT;
      case "poisson" -> SharedPrefixWorkload.LoadType.POISSON;
      default -> throw c.bad("load.type", "'" + type + "' is not supported (constant, poisson)");
    };
    JsonNode stagesNode = load.get("stages");
    if (stagesNode == null || !stagesNode.isArray() || stagesNode.isEmpty()) {
      throw c.bad("load.stages", "missing or empty" + (load.hasNonNull("sweep") ? " (sweep-generated stages are not in config.yaml)" : ""));
    }
    List<SharedPrefixWorkload.LoadStage> stages = new ArrayList<>();
    for (int i = 0; i < stagesNode.size(); i++) {
      String sp = "load.stages[" + i + "].";
      try {
        stages.add(new SharedPrefixWorkload.LoadStage(c.requiredNum(stagesNode.get(i), "rate", sp),
            c.requiredNum(stagesNode.get(i), "duration", sp)));
      } catch (IllegalArgumentException e) {
        throw c.bad(sp.substring(0, sp.length() - 1), e.getMessage());
      }
    }
    if (k >= stages.size()) throw j.bad("", "stage " + k + " but config.yaml lists " + stages.size() + " stages");
    String dataType = data.path("type").asText("");
    JsonNode successes = report.get("successes");
    double promptMean = successes.path("prompt_len").path("mean").asDouble(Double.NaN);
    if (!dataType.equals("shared_prefix") || shared == null) {
      // lengths only: the stage's own requests at their mean lengths, Poisson-like arrivals at the stage rate
      double outMean = successes.path("output_len").path("mean").asDouble(Double.NaN);
      long sent = report.path("load_summary").path("count").asLong(0);
      if (Double.isNaN(promptMean) || Double.isNaN(outMean) || sent <= 0) {
        throw j.bad("successes.prompt_len", "data type '" + dataType + "' needs the measured prompt and output lengths to be replayed");
      }
      SharedPrefixWorkload.LoadStage ls = stages.get(k);
      notes.add("data type '" + dataType + "': no shared prefixes; every request at the measured mean lengths; exponential"
          + " gaps at the stage rate (the tool scales them to end exactly at the stage end)");
      return SampledWorkload.uniform((int) sent, (int) Math.round(promptMean), (int) Math.round(outMean),
          SampledWorkload.Arrival.EXPONENTIAL, ls.rate(), 1.0, null, ls.durationS(), 16);
    }
    String sp = "data.shared_prefix.";
    int groups = intAlias(c, shared, sp, "num_groups", "num_unique_system_prompts");
    int per = intAlias(c, shared, sp, "num_prompts_per_group", "num_users_per_system_prompt");
    int sys = fixedLen(c, shared, sp, "system_prompt_len", notes);
    int q = fixedLen(c, shared, sp, "question_len", notes);
    int out = fixedLen(c, shared, sp, "output_len", notes);
    boolean multi = shared.path("enable_multi_turn_chat").asBoolean(false);
    SharedPrefixWorkload.MultiTurn mt;
    if (!multi) {
      mt = SharedPrefixWorkload.MultiTurn.NONE;
    } else if (override != null) {
      mt = override;
    } else if (!shared.has("seed")) {
      mt = SharedPrefixWorkload.MultiTurn.PREFIX_ONCE;
      notes.add("multi-turn without a 'seed' key: inference-perf v0.3-v0.4 (context starts with the system prompt)");
    } else {
      mt = SharedPrefixWorkload.MultiTurn.PREFIX_EVERY_ROUND;
      notes.add("multi-turn with a 'seed' key: assumed inference-perf ad65fe0 or later (system prompt + question every round);"
          + " versions 4621df7..ad65fe0 sent no system prompt (NO_PREFIX): pass the variant explicitly if yours is one of them");
    }
    if (!multi && !Double.isNaN(promptMean) && promptMean > 0 && sys + q > 0) {
      double scale = promptMean / (sys + q);
      int sys2 = (int) Math.round(sys * scale);
      int q2 = (int) Math.round(q * scale);
      if (sys2 + q2 > 0 && (sys2 != sys || q2 != q)) {
        notes.add(String.format(Locale.ROOT, "prompt lengths scaled to the measured mean %.2f tokens: %d+%d -> %d+%d",
            promptMean, sys, q, sys2, q2));
        sys = sys2;
        q = q2;
      }
    }
    double interval = load.path("interval").asDouble(1.0);
    double drain = 0;
    if (stages.size() > 1) {
      double maxLatency = 0;
      for (Path f : stageFiles(dir)) {
        int idx = stageIndex(f);
        if (idx < 0 || idx >= stages.size() - 1) continue;
        JsonNode other = parse(JSON, f);
        maxLatency = Math.max(maxLatency, other.path("successes").path("latency").path("request_latency").path("max").asDouble(0));
      }
      drain = maxLatency;
      notes.add(String.format(Locale.ROOT, "gap between stages = %.3f s (longest request of the earlier stages) + %.1f s interval + 1 s lead",
          drain, interval));
    }
    try {
      return new SharedPrefixWorkload(groups, per, sys, q, out, mt, loadType, stages, drain + interval + 1.0, k, 16);
    } catch (IllegalArgumentException e) {
      throw c.bad("data.shared_prefix", e.getMessage());
    }
  }

  private static int intAlias(JsonIn c, JsonNode n, String path, String a, String b) {
    Integer v = c.optInt(n, a, path, 1);
    if (v == null) v = c.optInt(n, b, path, 1);
    if (v == null) throw c.bad(path + a, "missing (nor " + b + ")");
    return v;
  }

  private static int fixedLen(JsonIn c, JsonNode n, String path, String field, List<String> notes) {
    JsonNode v = n.get(field);
    if (v != null && v.isObject()) {
      double mean = c.requiredNum(v, "mean", path + field + ".");
      notes.add(field + " is a distribution in the config: replayed at its mean " + mean);
      return (int) Math.round(mean);
    }
    Integer i = c.optInt(n, field, path, 0);
    if (i == null) throw c.bad(path + field, "missing");
    return i;
  }

  private static EngineConfig engine(JsonNode exp, Path expPath, JsonNode server, JsonIn c) {
    String engine = server == null ? null : server.path("type").asText(null);
    if (exp == null) return EngineConfig.named(engine, null);
    JsonIn e = new JsonIn(expPath.toString());
    return new EngineConfig(engine, null, e.optInt(exp, "tensor_parallelism", "", 1), e.optInt(exp, "max_num_seqs", "", 1),
        e.optInt(exp, "max_num_batched_tokens", "", 1), null, null, null, null, null, e.optInt(exp, "max_model_len", "", 1), null);
  }

  private static Stat stat(JsonIn j, JsonNode latency, String name, String path) {
    JsonNode d = j.optObject(latency, name, path);
    if (d == null) return Stat.NONE;
    String p = path + name + ".";
    return new Stat(j.num(d, "mean", p), j.num(d, "median", p), j.num(d, "p90", p), j.num(d, "p99", p));
  }

  static JsonNode parse(ObjectMapper mapper, Path f) {
    try {
      JsonNode n = mapper.readTree(f.toFile());
      if (n == null || n.isMissingNode()) throw new BadInputException(f.toString(), "empty file");
      return n;
    } catch (IOException e) {
      throw new BadInputException(f.toString(), "cannot parse: " + firstLine(e.getMessage()));
    }
  }

  static String firstLine(String s) {
    if (s == null) return "";
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
