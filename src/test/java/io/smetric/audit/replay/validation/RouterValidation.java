package io.smetric.audit.replay.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.policy.Policy;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Replays published real multi-instance router comparisons and sets the simulated numbers beside
 * the measured ones (docs/validation.md, "Routing on real multi-instance clusters"). The workload
 * and the profile come from the benchmark's generator and single-instance facts; nothing is fitted
 * to the routing results. {@code main} prints the table ({@code src/test/bench/router-validation.sh}),
 * {@code RouterValidationTest} asserts what the cheap point achieves.
 */
public final class RouterValidation {
  static final String DIR = "/io/smetric/audit/replay/validation/";

  private RouterValidation() {}

  /** One simulated router at one load point. */
  record Sim(String router, double tokensPerS, double durationS, double ttftMeanS, double ttftP50S, double localHit,
      double tpotMeanS) {}

  /** One published router at one load point. */
  record Real(String router, double tokensPerS, double durationS, double ttftMeanS, double ttftP50S, double tpotMeanS) {}

  static JsonNode published(String name) {
    try (InputStream in = RouterValidation.class.getResourceAsStream(DIR + name)) {
      if (in == null) throw new IllegalStateException("missing test resource " + DIR + name);
      return new ObjectMapper().readTree(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + DIR + name + ": " + e.getMessage(), e);
    }
  }

  static ModelProfile profile(String file) {
    try {
      return ModelProfile.load(Path.of(RouterValidation.class.getResource(DIR + file).toURI()));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- KubeAI: 8 x L4, Llama-3.1-8B FP8, K8s Service vs LeastLoad vs PrefixHash ----

  /** The published routers, in the doc's order, and the replay's stand-in for each. */
  static final List<String> KUBEAI_ROUTERS = List.of("k8s-service", "least-load", "prefix-hash");

  static Policy kubeaiPolicy(String router, ReplaySettings s, ReplayTrace trace, KubeaiWorkload.Built w, boolean capped) {
    return switch (router) {
      case "k8s-service" -> Policies.RANDOM.create(s); // kube-proxy: a random endpoint per connection
      case "least-load" -> Policies.LEAST_LOAD.create(s); // KubeAI LeastLoad: fewest in flight
      case "prefix-hash" -> capped ? new BoundedLoadHashPolicy(256, 1.25, trace, w.conversation())
          : new BoundedLoadHashPolicy(256, 1.25); // KubeAI PrefixHash defaults
      case "session-hash" -> { // plain consistent hashing, no load bound: keyed on sessions only
        if (capped) throw new IllegalArgumentException("session-hash: the sessions are client slots here");
        yield Policies.SESSION_HASH.create(s);
      }
      default -> throw new IllegalArgumentException("unknown KubeAI router " + router);
    };
  }

  /** Profile fields set on top of the shipped file (bench sensitivity runs only; the test uses none). */
  static final Map<String, Double> PROFILE_OVERRIDES = new LinkedHashMap<>();

  static ModelProfile withOverrides(ModelProfile p) {
    for (Map.Entry<String, Double> e : PROFILE_OVERRIDES.entrySet()) {
      try {
        java.lang.reflect.Field f = ModelProfile.class.getField(e.getKey());
        if (f.getType() == int.class) f.setInt(p, (int) Math.round(e.getValue()));
        else if (f.getType() == long.class || f.getType() == Long.class) f.set(p, Math.round(e.getValue()));
        else if (f.getType() == Integer.class) f.set(p, (int) Math.round(e.getValue()));
        else if (f.getType() == Double.class) f.set(p, e.getValue());
        else f.setDouble(p, e.getValue());
      } catch (ReflectiveOperationException ex) {
        throw new IllegalArgumentException("--set: no numeric profile field " + e.getKey(), ex);
      }
    }
    return p;
  }

  static ReplaySettings kubeaiSettings() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> {
      sb.profile = withOverrides(profile("llama-3.1-8b-fp8-l4.yaml"));
      sb.instances = 8;
      sb.globalRatio = 0;
      sb.rateScale = 1;
      sb.rateScaling = ReplaySettings.RateScaling.UNIFORM;
      sb.followUpsWaitForPrevious = false; // open loop unless the cap is replayed (kubeaiPoint)
      sb.agentTimeoutS = 6 * 3600; // the script's aiohttp timeout (backend_request_func.py AIOHTTP_TIMEOUT)
    });
    return s;
  }

  static KubeaiWorkload.Built kubeaiWorkload(JsonNode doc, JsonNode point, KubeaiWorkload.Assumptions a, boolean capped) {
    JsonNode w = doc.get("workload");
    return KubeaiWorkload.build(new KubeaiWorkload.Params(w.get("numPrompts").asInt(), w.get("maxConversations").asInt(),
        w.get("maxPromptTokens").asInt(), w.get("totalInputTokens").asLong(), w.get("totalOutputTokens").asLong(),
        point.get("requestRate").asDouble(), capped ? point.get("maxConcurrency").asInt() : 0), a);
  }

  static Sim simulate(ReplayTrace trace, ReplaySettings s, String router, Policy p) {
    SimOutcome o = new Simulator(trace, s, p).run();
    Map<String, Object> m = o.metrics;
    return new Sim(router, num(m, "raw_tps"), num(m, "duration_s"), num(m, "ttft_mean_s"), num(m, "ttft_p50_s"),
        num(m, "local_hit_ratio"), num(m, "tpot_mean_s"));
  }

  /**
   * One load point: {@code capped} replays the client's concurrency cap as fixed chains (closed
   * loop over client slots, {@link KubeaiWorkload}), else open-loop Poisson.
   */
  static List<Sim> kubeaiPoint(JsonNode doc, JsonNode point, List<String> routers, KubeaiWorkload.Assumptions a,
      boolean capped) {
    KubeaiWorkload.Built w = kubeaiWorkload(doc, point, a, capped);
    ReplayTrace trace = ReplayTraceBuilder.fromRecords(w.records(), false);
    List<Sim> out = new ArrayList<>();
    for (String r : routers) {
      ReplaySettings s = kubeaiSettings();
      boolean chained = capped && point.get("maxConcurrency").asInt() < w.records().size();
      s = s.with(sb -> sb.followUpsWaitForPrevious = chained);
      out.add(simulate(trace, s, r, kubeaiPolicy(r, s, trace, w, chained)));
    }
    return out;
  }

  static Map<String, Real> kubeaiReal(JsonNode point) {
    Map<String, Real> out = new LinkedHashMap<>();
    point.get("routers").fields().forEachRemaining(e -> out.put(e.getKey(), new Real(e.getKey(),
        e.getValue().get("totalTokensPerS").asDouble(), e.getValue().get("durationS").asDouble(),
        e.getValue().get("ttftMeanMs").asDouble() / 1000, e.getValue().get("ttftMedianMs").asDouble() / 1000,
        e.getValue().get("tpotMeanMs").asDouble() / 1000)));
    return out;
  }

  private static double num(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  // ---- zxuhan/llm-router: 4 x A100, Qwen2.5-7B/14B, closed-loop sessions of 8 turns ----

  static final List<String> LLM_ROUTER_ROUTERS = List.of("roundrobin", "random", "leastloaded", "prefixaware");

  /** Means over the benchmark's seeds of one router at one session count. */
  record Closed(String router, double kvCachedPct, double e2eP50S, double e2eP95S, double rps) {}

  static Policy llmRouterPolicy(String router, ReplaySettings s, long seed, JsonNode pa, ReplayTrace trace) {
    return switch (router) {
      case "roundrobin" -> Policies.ROUND_ROBIN.create(s);
      case "random" -> Policies.RANDOM.create(s);
      case "leastloaded" -> Policies.LEAST_LOAD.create(s);
      // 2 chunks of 32 characters are well inside one 16-token block of these prompts
      case "prefixaware" -> new PrefixAwarePolicy(1, pa.get("saturationInflight").asInt(), seed, trace);
      default -> throw new IllegalArgumentException("unknown llm-router router " + router);
    };
  }

  static Closed llmRouterRun(JsonNode doc, String model, int sessions, String router, LlmRouterWorkload.Assumptions a) {
    JsonNode w = doc.get("workload");
    LlmRouterWorkload.Params p = new LlmRouterWorkload.Params(sessions, w.get("turns").asInt(),
        w.get("systemLenChars").asInt(), w.get("userLenChars").asInt(), w.get("codeContextLenChars").asInt(),
        w.get("codeShare").asDouble(), w.get("toolProb").asDouble(), w.get("toolLenChars").asInt(),
        w.get("startJitterMs").asInt(), w.get("turnGapMs").asInt(), w.get("maxTokens").asInt());
    double cached = 0;
    double p50 = 0;
    double p95 = 0;
    double rps = 0;
    int k = 0;
    for (JsonNode seedNode : w.get("seeds")) {
      long seed = seedNode.asLong();
      ReplayTrace trace = ReplayTraceBuilder.fromRecords(LlmRouterWorkload.build(p, a, seed), false);
      ReplaySettings s = ReplaySettings.defaults().with(sb -> {
        sb.profile = withOverrides(profile(model + "-a100.yaml"));
        sb.instances = doc.get("cluster").get("instances").asInt();
        sb.globalRatio = 0;
        sb.rateScale = 1;
        sb.rateScaling = ReplaySettings.RateScaling.UNIFORM;
        sb.followUpsWaitForPrevious = true; // each session's turns strictly serial (trace/replay.go)
        sb.agentTimeoutS = 300; // the bench's 5-minute context
        sb.seed = seed;
      });
      SimOutcome o = new Simulator(trace, s, llmRouterPolicy(router, s, seed, w.get("prefixAware"), trace)).run();
      int n = trace.n;
      double[] e2e = new double[n];
      double share = 0;
      double first = Double.POSITIVE_INFINITY;
      double last = 0;
      for (int r = 0; r < n; r++) {
        e2e[r] = o.finish[r] - o.arrival[r];
        share += trace.input[r] == 0 ? 0 : (double) Math.min(trace.input[r], trace.tokensOf(r, o.localHitBlocks[r]))
            / trace.input[r];
        first = Math.min(first, o.arrival[r]);
        last = Math.max(last, o.finish[r]);
      }
      java.util.Arrays.sort(e2e);
      cached += 100 * share / n;
      p50 += nearestRank(e2e, 0.50);
      p95 += nearestRank(e2e, 0.95);
      rps += n / (last - first);
      k++;
    }
    return new Closed(router, cached / k, p50 / k, p95 / k, rps / k);
  }

  private static double nearestRank(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  static void llmRouterTable(PrintStream out, LlmRouterWorkload.Assumptions a) {
    JsonNode doc = published("llm-router-cloud.json");
    for (String model : List.of("qwen2.5-7b", "qwen2.5-14b")) {
      out.println("## llm-router-cloud: 4 x A100 80 GB, " + model + " (profile " + model + "-a100)");
      out.println();
      out.println("| sessions | router | KV cached real | sim | E2E (\"TTFT\") p50 real | sim | p95 real | sim | RPS real | sim | RPS / roundrobin real | sim |");
      out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (JsonNode point : doc.get("models").get(model)) {
        int sessions = point.get("sessions").asInt();
        Closed base = null;
        for (String router : LLM_ROUTER_ROUTERS) {
          Closed c = llmRouterRun(doc, model, sessions, router, a);
          if (base == null) base = c;
          JsonNode r = point.get("routers").get(router);
          JsonNode rb = point.get("routers").get("roundrobin");
          out.printf(Locale.ROOT, "| %d | %s | %.1f%% | %.1f%% | %.0f ms | %.0f ms | %s | %.0f ms | %s | %.1f | %s | %.2f |%n",
              sessions, router, r.get("kvCachedPct").asDouble(), c.kvCachedPct(), r.get("ttftP50Ms").asDouble(),
              1000 * c.e2eP50S(), r.get("ttftP95Ms").isNull() ? "-" : String.format(Locale.ROOT, "%.0f ms", r.get("ttftP95Ms").asDouble()),
              1000 * c.e2eP95S(), r.get("rps").isNull() ? "-" : String.format(Locale.ROOT, "%.1f", r.get("rps").asDouble()),
              c.rps(), r.get("rps").isNull() ? "-" : String.format(Locale.ROOT, "%.2f", r.get("rps").asDouble() / rb.get("rps").asDouble()),
              c.rps() / base.rps());
        }
      }
      out.println();
    }
  }

  // ---- the table ----

  static void kubeaiTable(PrintStream out, KubeaiWorkload.Assumptions a, boolean capped) {
    JsonNode doc = published("kubeai-prefix-hash.json");
    out.println("## kubeai-prefix-hash: 8 x L4, Llama-3.1-8B-Instruct FP8 (profile llama-3.1-8b-fp8-l4), "
        + (capped ? "the concurrency cap as fixed client chains" : "open loop (no concurrency cap)"));
    out.println();
    out.println("| max conc. | rate | router | tok/s real | tok/s sim | err | ratio to k8s real | sim | TTFT mean real | sim | TTFT p50 real | sim | TPOT mean real | sim | local hit sim |");
    out.println("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    List<String> routers = new ArrayList<>(KUBEAI_ROUTERS);
    if (!capped) routers.add("session-hash");
    for (JsonNode point : doc.get("points")) {
      long t0 = System.nanoTime();
      List<Sim> sims = kubeaiPoint(doc, point, routers, a, capped);
      Map<String, Real> real = kubeaiReal(point);
      Sim base = sims.get(0);
      Real rbase = real.get("k8s-service");
      for (Sim s : sims) {
        Real r = real.get(s.router());
        out.printf(Locale.ROOT, "| %d | %.0f | %s | %s | %.0f | %s | %s | %.2f | %s | %.2f s | %s | %.2f s | %s | %.0f ms | %.1f%% |%n",
            point.get("maxConcurrency").asInt(), point.get("requestRate").asDouble(), s.router(),
            r == null ? "-" : String.format(Locale.ROOT, "%.0f", r.tokensPerS()), s.tokensPerS(),
            r == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", 100 * (s.tokensPerS() / r.tokensPerS() - 1)),
            r == null ? "-" : String.format(Locale.ROOT, "%.2f", r.tokensPerS() / rbase.tokensPerS()),
            s.tokensPerS() / base.tokensPerS(),
            r == null ? "-" : String.format(Locale.ROOT, "%.2f s", r.ttftMeanS()), s.ttftMeanS(),
            r == null ? "-" : String.format(Locale.ROOT, "%.2f s", r.ttftP50S()), s.ttftP50S(),
            r == null ? "-" : String.format(Locale.ROOT, "%.0f ms", 1000 * r.tpotMeanS()), 1000 * s.tpotMeanS(),
            100 * s.localHit());
      }
      System.err.printf(Locale.ROOT, "kubeai point %d: %.1f s%n", point.get("maxConcurrency").asInt(),
          (System.nanoTime() - t0) / 1e9);
    }
    out.println();
  }

  public static void main(String[] args) {
    KubeaiWorkload.Assumptions a = new KubeaiWorkload.Assumptions();
    LlmRouterWorkload.Assumptions b = new LlmRouterWorkload.Assumptions();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--kubeai-extra-pairs" -> a.meanExtraPairs = Double.parseDouble(args[++i]);
        case "--kubeai-message-sigma" -> a.messageSigma = Double.parseDouble(args[++i]);
        case "--kubeai-output-sigma" -> a.outputSigma = Double.parseDouble(args[++i]);
        case "--llm-router-repeat-chars" -> b.repeatCharsPerToken = Double.parseDouble(args[++i]);
        case "--llm-router-random-chars" -> b.randomCharsPerToken = Double.parseDouble(args[++i]);
        case "--set" -> {
          String[] kv = args[++i].split("=", 2);
          PROFILE_OVERRIDES.put(kv[0], Double.parseDouble(kv[1]));
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (known: --kubeai-extra-pairs X, --kubeai-message-sigma X, --kubeai-output-sigma X, --llm-router-repeat-chars X, --llm-router-random-chars X, --set PROFILE_FIELD=X)");
      }
    }
    KubeaiWorkload.Built w = kubeaiWorkload(published("kubeai-prefix-hash.json"),
        published("kubeai-prefix-hash.json").get("points").get(0), a, false);
    System.out.printf(Locale.ROOT, "kubeai workload: %d conversations, %d prompts kept (%d over the limit), "
        + "%d requests, input %d, output %d tokens, message scale %.1f tokens%n%n", w.conversations(),
        w.keptPrompts(), w.skipped(), w.records().size(), w.input(), w.output(), w.messageScale());
    kubeaiTable(System.out, a, false);
    kubeaiTable(System.out, a, true);
    llmRouterTable(System.out, b);
  }
}
