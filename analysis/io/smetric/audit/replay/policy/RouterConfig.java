package io.smetric.audit.replay.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.RouterKnob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A router's native configuration read into the replay's knobs (--current-router NAME:CONFIG):
 * llm-d's EndpointPickerConfig YAML, the SGLang router's flags, Dynamo's KV router flags. Every
 * plugin, parameter and flag is either modelled (it sets a knob), without effect on a routing
 * decision in the replay (listed with the reason), or an error naming it and what is modelled:
 * nothing is dropped silently. Knobs the configuration leaves out take the router's own default,
 * with the source line it comes from. {@link #knobs()} is the configuration as understood.
 */
public final class RouterConfig {
  /** Where the defaults come from (repository@commit path), as read for this code. */
  static final String LLMD_SRC = "llm-d/llm-d-inference-scheduler@520af47";
  static final String LLMD_DEFAULTS = LLMD_SRC + " pkg/epp/config/loader/defaults.go";
  static final String LLMD_PREFIX = LLMD_SRC
      + " pkg/epp/framework/plugins/requestcontrol/dataproducer/approximateprefix/types.go";
  static final String LLMD_LOAD_AWARE = LLMD_SRC + " pkg/epp/framework/plugins/scheduling/scorer/loadaware/load_aware.go";
  static final String SGLANG_SRC = "sgl-project/sglang@0129b02 sgl-router/src/main.rs";
  static final String DYNAMO_SRC = "ai-dynamo/dynamo@0243c51 lib/kv-router/src/scheduling/config.rs";

  private final Policies policy;
  private final List<RouterKnob> knobs;
  private final Map<Setting, Double> values;

  private RouterConfig(Policies policy, List<RouterKnob> knobs, Map<Setting, Double> values) {
    this.policy = policy;
    this.knobs = List.copyOf(knobs);
    this.values = Map.copyOf(values);
  }

  /** The replay policy the configuration configures. */
  public Policies policy() {
    return policy;
  }

  /** Every knob as understood: modelled values with their origin, then what has no effect and why. */
  public List<RouterKnob> knobs() {
    return knobs;
  }

  /** Sets the modelled knobs on {@code s} and records the configuration as understood. */
  public void apply(ReplaySettings.Builder s) {
    for (Map.Entry<Setting, Double> e : values.entrySet()) e.getKey().set.accept(s, e.getValue());
    s.currentRouterConfig = new ArrayList<>(knobs);
  }

  /**
   * The settings a router's configuration sets, each with its setter written out (an int takes
   * the value truncated; the parsers admit whole numbers only). {@link #field} is the settings
   * field's name, which the knob rows show ("knob -> field").
   */
  enum Setting {
    LLMD_PREFIX_WEIGHT("llmdPrefixWeight", (s, v) -> s.llmdPrefixWeight = v),
    LLMD_QUEUE_WEIGHT("llmdQueueWeight", (s, v) -> s.llmdQueueWeight = v),
    LLMD_KV_UTIL_WEIGHT("llmdKvUtilWeight", (s, v) -> s.llmdKvUtilWeight = v),
    LLMD_LOAD_AWARE_WEIGHT("llmdLoadAwareWeight", (s, v) -> s.llmdLoadAwareWeight = v),
    LLMD_LOAD_AWARE_THRESHOLD("llmdLoadAwareThreshold", (s, v) -> s.llmdLoadAwareThreshold = (int) v),
    LLMD_PREFIX_MAX_TOKENS("llmdPrefixMaxTokens", (s, v) -> s.llmdPrefixMaxTokens = v),
    SGLANG_CACHE_THRESHOLD("sglangCacheThreshold", (s, v) -> s.sglangCacheThreshold = v),
    SGLANG_BALANCE_ABS("sglangBalanceAbs", (s, v) -> s.sglangBalanceAbs = (int) v),
    SGLANG_BALANCE_REL("sglangBalanceRel", (s, v) -> s.sglangBalanceRel = v),
    DYNAMO_OVERLAP_CREDIT("dynamoOverlapCredit", (s, v) -> s.dynamoOverlapCredit = v),
    DYNAMO_PREFILL_LOAD_SCALE("dynamoPrefillLoadScale", (s, v) -> s.dynamoPrefillLoadScale = v);

    final String field;
    final java.util.function.ObjDoubleConsumer<ReplaySettings.Builder> set;

    Setting(String field, java.util.function.ObjDoubleConsumer<ReplaySettings.Builder> set) {
      this.field = field;
      this.set = set;
    }
  }

  /** Whether {@code spec} carries a configuration (NAME:CONFIG) rather than naming a policy. */
  public static boolean hasConfig(String spec) {
    return spec.indexOf(':') > 0;
  }

  /**
   * Reads {@code NAME:CONFIG}: {@code llm-d:FILE.yaml}; {@code sglang:FLAGS} or {@code
   * sglang:FILE}; {@code dynamo:FLAGS} or {@code dynamo:FILE} (FLAGS start with '-'; a FILE holds
   * the flags, e.g. the launch command). Errors are usage errors naming the plugin, parameter or flag.
   */
  public static RouterConfig parse(String spec) {
    int colon = spec.indexOf(':');
    String name = spec.substring(0, colon).trim().toLowerCase(Locale.ROOT);
    String cfg = spec.substring(colon + 1).trim();
    if (cfg.isEmpty()) throw new UsageException("--current-router " + spec + ": nothing after ':' (a file or flags)");
    return switch (name) {
      case "llm-d", "llmd" -> Llmd.parse(Path.of(cfg));
      case "sglang", "sglang-cache-aware" -> flagsOrFile(cfg, "sglang", Sglang::parse);
      case "dynamo", "dynamo-kv" -> flagsOrFile(cfg, "dynamo", Dynamo::parse);
      default -> throw new UsageException("--current-router " + name + ":...: only llm-d (EndpointPickerConfig YAML), "
          + "sglang (router flags) and dynamo (KV router flags) take a configuration; name any other router alone");
    };
  }

  private interface FlagParser {
    RouterConfig parse(List<String> tokens, String where);
  }

  private static RouterConfig flagsOrFile(String cfg, String router, FlagParser p) {
    if (cfg.startsWith("-")) return p.parse(tokens(cfg), "--current-router " + router + ":");
    Path f = Path.of(cfg);
    if (!Files.isRegularFile(f)) {
      throw new UsageException("--current-router " + router + ":" + cfg + ": neither flags (starting with '-') nor a readable file");
    }
    try {
      StringBuilder sb = new StringBuilder();
      for (String line : Files.readAllLines(f)) {
        String l = line.strip();
        if (l.startsWith("#")) continue;
        if (l.endsWith("\\")) l = l.substring(0, l.length() - 1);
        sb.append(l).append(' ');
      }
      return p.parse(tokens(sb.toString()), f.toString() + ":");
    } catch (IOException e) {
      throw new UsageException("cannot read " + f + ": " + e.getMessage());
    }
  }

  /** Shell-like words: whitespace-separated, single or double quotes group; --flag=value splits. */
  static List<String> tokens(String s) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean in = false;
    char quote = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == quote) quote = 0;
        else cur.append(c);
      } else if (c == '\'' || c == '"') {
        quote = c;
        in = true;
      } else if (Character.isWhitespace(c)) {
        if (in) out.add(cur.toString());
        cur.setLength(0);
        in = false;
      } else {
        cur.append(c);
        in = true;
      }
    }
    if (quote != 0) throw new UsageException("unbalanced quote in router flags: " + s.strip());
    if (in) out.add(cur.toString());
    List<String> split = new ArrayList<>();
    for (String t : out) {
      int eq = t.indexOf('=');
      if (t.startsWith("--") && eq > 2) {
        split.add(t.substring(0, eq));
        split.add(t.substring(eq + 1));
      } else {
        split.add(t);
      }
    }
    return split;
  }

  /** Collects knobs as they are read. */
  private static final class Knobs {
    final String router;
    final List<RouterKnob> rows = new ArrayList<>();
    final List<RouterKnob> inert = new ArrayList<>();
    final Map<Setting, Double> values = new java.util.EnumMap<>(Setting.class);

    Knobs(String router) {
      this.router = router;
    }

    void set(String knob, Setting setting, double v, String source) {
      values.put(setting, v);
      rows.add(new RouterKnob(router, knob + " -> " + setting.field, fmt(v), source));
    }

    /** A choice the replay models as one fixed value (the policy, its picker, its mode). */
    void fixed(String knob, String value, String source) {
      rows.add(new RouterKnob(router, knob, value, source));
    }

    void inert(String what, String why) {
      inert.add(new RouterKnob(router, what, "no effect in the replay", why));
    }

    RouterConfig build(Policies p) {
      List<RouterKnob> all = new ArrayList<>(rows);
      all.addAll(inert);
      return new RouterConfig(p, all, values);
    }
  }

  static String fmt(double v) {
    if (Double.isInfinite(v)) return "Infinity";
    if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
    return String.format(Locale.ROOT, "%s", v);
  }

  // ---------------------------------------------------------------------------------------------
  /**
   * llm-d's EndpointPickerConfig (apix/config/v1alpha1/endpointpickerconfig_types.go): plugins
   * (name, type, parameters) and one scheduling profile whose plugin refs carry scorer weights
   * (default 1.0, pkg/epp/config/loader/defaults.go DefaultScorerWeight).
   */
  static final class Llmd {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final Set<String> SCORERS = Set.of("prefix-cache-scorer", "queue-scorer", "kv-cache-utilization-scorer",
        "kv-cache-scorer", "load-aware-scorer");
    static final Set<String> PREFIX_PARAMS = Set.of("autoTune", "blockSizeTokens", "blockSize", "hashBlockSize",
        "maxPrefixBlocksToMatch", "maxPrefixTokensToMatch", "lruCapacityPerServer");
    static final String MODELLED = "modelled: the scorers prefix-cache-scorer (with approx-prefix-cache-producer's "
        + "parameters), queue-scorer, kv-cache-utilization-scorer (kv-cache-scorer), load-aware-scorer, the picker "
        + "max-score-picker, single-profile-handler, decode-filter (every instance serves decode), and the data layer's "
        + "metrics-data-source and core-metrics-extractor";

    static RouterConfig parse(Path file) {
      String f = file.toString();
      JsonNode root;
      try {
        root = YAML.readTree(Files.readAllBytes(file));
      } catch (JsonProcessingException e) {
        long line = e.getLocation() == null ? -1 : e.getLocation().getLineNr();
        throw new UsageException(f + (line > 0 ? ":" + line : "") + ": not valid YAML: " + e.getOriginalMessage());
      } catch (IOException e) {
        throw new UsageException("cannot read llm-d configuration " + f + ": " + e.getMessage());
      }
      if (root == null || !root.isObject()) throw new UsageException(f + ": not an EndpointPickerConfig (expected a YAML mapping)");
      Knobs k = new Knobs("llm-d");
      for (var it = root.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        JsonNode v = root.get(key);
        switch (key) {
          case "apiVersion", "plugins", "schedulingProfiles" -> { }
          case "kind" -> {
            if (!"EndpointPickerConfig".equals(v.asText())) {
              throw new UsageException(f + ": kind '" + v.asText() + "' is not EndpointPickerConfig");
            }
          }
          case "featureGates" -> {
            if (v.size() > 0) throw new UsageException(f + ": featureGates " + v + " are not modelled (the replay models the "
                + "scheduling profile only); " + MODELLED);
          }
          case "dataLayer" -> k.inert("dataLayer", "metrics collection: the replay's router reads each instance's "
              + "state exactly at each request (no scrape interval)");
          case "parser" -> k.inert("parser", "request parsing: the trace carries the prompt's blocks");
          case "saturationDetector", "flowControl" -> throw new UsageException(f + ": " + key + " is not modelled (the "
              + "replay admits every request to the scheduler: no saturation shedding or flow-control queue); " + MODELLED);
          default -> throw new UsageException(f + ": unknown top-level field '" + key + "' (EndpointPickerConfig has "
              + "apiVersion, kind, featureGates, plugins, schedulingProfiles, saturationDetector, dataLayer, flowControl, parser)");
        }
      }
      JsonNode plugins = root.path("plugins");
      if (!plugins.isArray() || plugins.isEmpty()) throw new UsageException(f + ": 'plugins' must be a non-empty list");
      Map<String, String> typeOf = new LinkedHashMap<>();
      Map<String, JsonNode> paramsOf = new LinkedHashMap<>();
      for (int i = 0; i < plugins.size(); i++) {
        JsonNode p = plugins.get(i);
        String at = f + ": plugins[" + i + "]";
        for (var it = p.fieldNames(); it.hasNext(); ) {
          String key = it.next();
          if (!Set.of("name", "type", "parameters").contains(key)) {
            throw new UsageException(at + ": unknown field '" + key + "' (a plugin has name, type, parameters)");
          }
        }
        String type = p.path("type").asText("");
        if (type.isEmpty()) throw new UsageException(at + ": no 'type'");
        String name = p.path("name").asText(type);
        if (typeOf.containsKey(name)) throw new UsageException(at + ": a second plugin named '" + name + "'");
        JsonNode params = p.path("parameters");
        checkPlugin(at + " (" + type + ")", type, params, k);
        typeOf.put(name, type);
        paramsOf.put(name, params);
      }
      // the scheduling profile: the one given, or every scorer and picker with weight 1 (as the loader does)
      JsonNode profiles = root.path("schedulingProfiles");
      Map<String, Double> weightOf = new LinkedHashMap<>();
      Map<String, String> whereOf = new LinkedHashMap<>();
      boolean picker = false;
      if (profiles.isMissingNode() || profiles.isNull() || profiles.isEmpty()) {
        for (Map.Entry<String, String> e : typeOf.entrySet()) {
          if (SCORERS.contains(e.getValue())) {
            weightOf.put(e.getKey(), 1.0);
            whereOf.put(e.getKey(), "no schedulingProfiles: the loader puts every scorer in one default profile with "
                + "weight 1 (" + LLMD_DEFAULTS + " ensureSchedulingLayer, DefaultScorerWeight)");
          }
          if (e.getValue().equals("max-score-picker")) picker = true;
        }
      } else {
        if (!profiles.isArray() || profiles.size() != 1) {
          throw new UsageException(f + ": " + profiles.size() + " scheduling profiles; one is modelled (P/D profiles are "
              + "not: the replay routes each request to one instance)");
        }
        JsonNode prof = profiles.get(0);
        String pat = f + ": schedulingProfiles[0]";
        for (var it = prof.fieldNames(); it.hasNext(); ) {
          String key = it.next();
          if (!Set.of("name", "plugins").contains(key)) throw new UsageException(pat + ": unknown field '" + key + "'");
        }
        JsonNode refs = prof.path("plugins");
        if (!refs.isArray()) throw new UsageException(pat + ": 'plugins' must be a list of pluginRef entries");
        Set<String> typesSeen = new LinkedHashSet<>();
        for (int i = 0; i < refs.size(); i++) {
          JsonNode r = refs.get(i);
          String at = pat + ".plugins[" + i + "]";
          for (var it = r.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!Set.of("pluginRef", "weight").contains(key)) throw new UsageException(at + ": unknown field '" + key + "'");
          }
          String ref = r.path("pluginRef").asText("");
          if (!typeOf.containsKey(ref)) {
            throw new UsageException(at + ": pluginRef '" + ref + "' names no plugin in 'plugins' (" + String.join(", ", typeOf.keySet()) + ")");
          }
          String type = typeOf.get(ref);
          if (!typesSeen.add(canonical(type))) {
            throw new UsageException(at + ": a second " + type + " in the profile; one of each scorer is modelled");
          }
          if (SCORERS.contains(type)) {
            JsonNode w = r.path("weight");
            if (!w.isMissingNode() && !w.isNumber()) throw new UsageException(at + ": weight '" + w.asText() + "' is not a number");
            weightOf.put(ref, w.isMissingNode() ? 1.0 : w.asDouble());
            whereOf.put(ref, w.isMissingNode() ? "no weight given: DefaultScorerWeight 1.0 (" + LLMD_DEFAULTS + ")"
                : at + " weight");
          } else if (type.equals("max-score-picker")) {
            picker = true;
          } else if (type.equals("decode-filter")) {
            continue; // listed with its reason where the plugin was read
          } else {
            throw new UsageException(at + ": " + type + " cannot be in a scheduling profile (it is not a filter, scorer or picker)");
          }
        }
        for (Map.Entry<String, String> e : typeOf.entrySet()) {
          if (SCORERS.contains(e.getValue()) && !weightOf.containsKey(e.getKey())) {
            k.inert("plugin " + e.getKey() + " (" + e.getValue() + ")", "declared but in no scheduling profile, so it scores nothing");
          }
        }
      }
      double wPrefix = 0;
      double wQueue = 0;
      double wKv = 0;
      double wLoad = 0;
      String prefixRef = null;
      String loadRef = null;
      for (Map.Entry<String, Double> e : weightOf.entrySet()) {
        String type = typeOf.get(e.getKey());
        String src = whereOf.get(e.getKey());
        switch (canonical(type)) {
          case "prefix-cache-scorer" -> { wPrefix = e.getValue(); prefixRef = e.getKey(); k.set(type + " weight", Setting.LLMD_PREFIX_WEIGHT, wPrefix, src); }
          case "queue-scorer" -> { wQueue = e.getValue(); k.set(type + " weight", Setting.LLMD_QUEUE_WEIGHT, wQueue, src); }
          case "kv-cache-utilization-scorer" -> { wKv = e.getValue(); k.set(type + " weight", Setting.LLMD_KV_UTIL_WEIGHT, wKv, src); }
          case "load-aware-scorer" -> { wLoad = e.getValue(); loadRef = e.getKey(); k.set(type + " weight", Setting.LLMD_LOAD_AWARE_WEIGHT, wLoad, src); }
          default -> throw new IllegalStateException(type);
        }
      }
      String absent = "not in the scheduling profile: weight 0";
      if (prefixRef == null) k.set("prefix-cache-scorer weight", Setting.LLMD_PREFIX_WEIGHT, 0, absent);
      if (wQueue == 0 && !k.values.containsKey(Setting.LLMD_QUEUE_WEIGHT)) k.set("queue-scorer weight", Setting.LLMD_QUEUE_WEIGHT, 0, absent);
      if (wKv == 0 && !k.values.containsKey(Setting.LLMD_KV_UTIL_WEIGHT)) {
        k.set("kv-cache-utilization-scorer weight", Setting.LLMD_KV_UTIL_WEIGHT, 0, absent);
      }
      if (loadRef == null) k.set("load-aware-scorer weight", Setting.LLMD_LOAD_AWARE_WEIGHT, 0, absent);
      // load-aware threshold
      JsonNode th = loadRef == null ? null : paramsOf.get(loadRef).path("threshold");
      if (th != null && !th.isMissingNode() && th.asInt() > 0) {
        k.set("load-aware-scorer threshold", Setting.LLMD_LOAD_AWARE_THRESHOLD, th.asInt(), f + " plugin " + loadRef + " parameters.threshold");
      } else if (loadRef != null) {
        k.set("load-aware-scorer threshold", Setting.LLMD_LOAD_AWARE_THRESHOLD, 128, (th != null && !th.isMissingNode()
            ? "threshold " + th.asText() + " is not positive: the scorer falls back to " : "") + "QueueThresholdDefault 128 (" + LLMD_LOAD_AWARE + ")");
      }
      // the prefix scorer's cap: parameters on the scorer (older releases) or on the data producer
      if (prefixRef != null) {
        Map<String, JsonNode> pp = new LinkedHashMap<>();
        String ppFrom = null;
        for (Map.Entry<String, String> e : typeOf.entrySet()) {
          boolean producer = e.getValue().equals("approx-prefix-cache-producer");
          if (!producer && !e.getKey().equals(prefixRef)) continue;
          JsonNode params = paramsOf.get(e.getKey());
          for (var it = params.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (pp.containsKey(key) && !pp.get(key).equals(params.get(key))) {
              throw new UsageException(f + ": prefix parameter " + key + " set twice with different values ("
                  + ppFrom + " and plugin " + e.getKey() + ")");
            }
            pp.put(key, params.get(key));
            ppFrom = "plugin " + e.getKey();
          }
        }
        prefixCap(f, pp, ppFrom, k);
      }
      k.fixed("picker (argmax of the weighted score; ties round robin where the router shuffles)", "max-score-picker",
          picker ? f + " (in the scheduling profile)"
              : "none in the profile: the loader adds max-score-picker (" + LLMD_DEFAULTS + " ensureSchedulingLayer)");
      return k.build(Policies.LLM_D);
    }

    /** The older name kv-cache-scorer is the same scorer. */
    static String canonical(String type) {
      return type.equals("kv-cache-scorer") ? "kv-cache-utilization-scorer" : type;
    }

    static void checkPlugin(String at, String type, JsonNode params, Knobs k) {
      Set<String> allowed;
      switch (type) {
        case "prefix-cache-scorer", "approx-prefix-cache-producer" -> allowed = PREFIX_PARAMS;
        case "load-aware-scorer" -> allowed = Set.of("threshold");
        case "max-score-picker" -> allowed = Set.of("maxNumOfEndpoints");
        case "queue-scorer", "kv-cache-utilization-scorer", "kv-cache-scorer", "single-profile-handler" -> allowed = Set.of();
        case "decode-filter" -> {
          if (!params.isMissingNode() && !params.isNull() && params.size() > 0) {
            throw new UsageException(at + ": decode-filter takes no parameters");
          }
          k.inert(at.substring(at.indexOf("plugins[")), "every simulated instance serves prefill and decode, and the "
              + "decode filter keeps such pods (unlabelled, or role decode, prefill-decode or both: " + LLMD_SRC
              + " pkg/epp/framework/plugins/scheduling/filter/bylabel/roles.go)");
          return;
        }
        case "metrics-data-source", "core-metrics-extractor" -> {
          k.inert(at.substring(at.indexOf("plugins[")), "feeds the queue and KV-cache metrics the scorers read; the replay "
              + "reads them exactly at each request");
          return;
        }
        default -> throw new UsageException(at + ": plugin type '" + type + "' is not modelled; " + MODELLED);
      }
      if (!params.isMissingNode() && !params.isNull() && !params.isObject()) {
        throw new UsageException(at + ": 'parameters' must be a mapping");
      }
      for (var it = params.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!allowed.contains(key)) {
          throw new UsageException(at + ": parameter '" + key + "' is not modelled"
              + (allowed.isEmpty() ? " (" + type + " takes none)" : "; modelled: " + String.join(", ", new java.util.TreeSet<>(allowed)))
              + (key.equals("mode") || key.equals("indexerConfig") || key.equals("kvCacheRedisAddr")
                  ? " (the precise, KV-event prefix index is not modelled; the estimated one is)" : ""));
        }
      }
      if (type.equals("max-score-picker") && params.has("maxNumOfEndpoints")) {
        k.inert(at.substring(at.indexOf("plugins[")) + " maxNumOfEndpoints=" + params.get("maxNumOfEndpoints").asText(),
            "endpoints after the first are fallbacks for a failed request; no request fails in the replay");
      }
    }

    static void prefixCap(String f, Map<String, JsonNode> pp, String from, Knobs k) {
      boolean autoTune = !pp.containsKey("autoTune") || pp.get("autoTune").asBoolean(true);
      if (pp.containsKey("lruCapacityPerServer")) {
        if (!autoTune) {
          throw new UsageException(f + ": lruCapacityPerServer with autoTune false is not modelled (the replay's prefix "
              + "index mirrors each instance's KV cache exactly, as autoTune sizes it from the engine's num_gpu_blocks)");
        }
        k.inert("prefix lruCapacityPerServer=" + pp.get("lruCapacityPerServer").asText(), "autoTune (default on) sizes the "
            + "index from the engine's reported KV blocks; the replay's index is each instance's actual cache (" + LLMD_PREFIX + ")");
      }
      if (pp.containsKey("autoTune")) k.inert("prefix autoTune=" + autoTune, autoTune ? "the index follows the engine's "
          + "cache size, as the replay's does" : "(no lruCapacityPerServer given: the index capacity is the default 31250 "
          + "blocks, approximated by the instance's own cache)");
      double blockTokens;
      String blockSrc;
      if (pp.containsKey("blockSizeTokens")) {
        blockTokens = pp.get("blockSizeTokens").asDouble();
        blockSrc = f + " " + from + " blockSizeTokens";
      } else if (pp.containsKey("blockSize") || pp.containsKey("hashBlockSize")) {
        String key = pp.containsKey("blockSize") ? "blockSize" : "hashBlockSize";
        blockTokens = pp.get(key).asDouble() / 4.0;
        blockSrc = f + " " + from + " " + key + " (characters) / 4 characters per token (averageCharactersPerToken, " + LLMD_PREFIX + ")";
      } else {
        blockTokens = 16;
        blockSrc = "defaultBlockSizeTokens 16 (" + LLMD_PREFIX + ")";
      }
      if (!(blockTokens > 0)) throw new UsageException(f + ": the prefix block size must be > 0 (" + blockSrc + ")");
      double cap;
      String src;
      if (pp.containsKey("maxPrefixTokensToMatch") && pp.get("maxPrefixTokensToMatch").asDouble() > 0) {
        cap = pp.get("maxPrefixTokensToMatch").asDouble();
        src = f + " " + from + " maxPrefixTokensToMatch";
      } else {
        double blocks = pp.containsKey("maxPrefixBlocksToMatch") ? pp.get("maxPrefixBlocksToMatch").asDouble() : 256;
        String bsrc = pp.containsKey("maxPrefixBlocksToMatch") ? f + " " + from + " maxPrefixBlocksToMatch"
            : "defaultMaxPrefixBlocks 256 (" + LLMD_PREFIX + ")";
        if (!(blocks > 0)) throw new UsageException(f + ": maxPrefixBlocksToMatch must be > 0");
        cap = blocks * blockTokens;
        src = fmt(blocks) + " blocks [" + bsrc + "] x " + fmt(blockTokens) + " tokens [" + blockSrc + "]";
      }
      k.set("prefix-cache-scorer prompt tokens hashed", Setting.LLMD_PREFIX_MAX_TOKENS, cap, src);
    }
  }

  // ---------------------------------------------------------------------------------------------
  /** The SGLang router's flags (sgl-router/src/main.rs; with the --router- prefix of launch_server). */
  static final class Sglang {
    static final String MODELLED = "modelled: --policy cache_aware, --cache-threshold, --balance-abs-threshold, "
        + "--balance-rel-threshold (also with the --router- prefix)";
    static final Set<String> NO_EFFECT = Set.of("--host", "--port", "--worker-urls", "--log-dir", "--log-level",
        "--prometheus-port", "--prometheus-host", "--model-path", "--tokenizer-path");

    static RouterConfig parse(List<String> t, String where) {
      Knobs k = new Knobs("sglang");
      Map<String, String> given = new LinkedHashMap<>();
      int i = skipCommand(t, k);
      while (i < t.size()) {
        String raw = t.get(i);
        if (!raw.startsWith("--")) throw new UsageException(where + " '" + raw + "' is not a flag (expected --NAME)");
        String flag = raw.startsWith("--router-") ? "--" + raw.substring("--router-".length()) : raw;
        switch (flag) {
          case "--policy", "--cache-threshold", "--balance-abs-threshold", "--balance-rel-threshold" -> {
            given.put(flag, value(t, i, raw, where));
            i += 2;
          }
          case "--eviction-interval", "--max-tree-size" -> throw new UsageException(where + " " + raw + " is not modelled: "
              + "the replay's cache-aware router reads each instance's actual cache instead of the router's approximate "
              + "radix tree, so the tree's size and eviction period have no counterpart; " + MODELLED);
          default -> {
            if (NO_EFFECT.contains(flag)) {
              int j = i + 1;
              StringBuilder vals = new StringBuilder();
              while (j < t.size() && !t.get(j).startsWith("--")) vals.append(vals.length() == 0 ? "" : " ").append(t.get(j++));
              k.inert(raw + (vals.length() > 0 ? " " + vals : ""), "deployment only (address, logging, metrics endpoint, tokenizer): no routing decision depends on it");
              i = j;
            } else {
              throw new UsageException(where + " " + raw + " is not modelled; " + MODELLED);
            }
          }
        }
      }
      String policy = given.getOrDefault("--policy", "cache_aware");
      if (!policy.equals("cache_aware")) {
        throw new UsageException(where + " --policy " + policy + " is not the cache-aware router; name it alone "
            + "(--current-router round-robin or random); " + MODELLED);
      }
      if (given.containsKey("--balance-abs-threshold") && given.get("--balance-abs-threshold").contains(".")) {
        throw new UsageException(where + " --balance-abs-threshold " + given.get("--balance-abs-threshold") + " is not an integer");
      }
      num(k, given, where, "--cache-threshold", Setting.SGLANG_CACHE_THRESHOLD, 0.3, 0, 1);
      num(k, given, where, "--balance-abs-threshold", Setting.SGLANG_BALANCE_ABS, 64, 0, Integer.MAX_VALUE);
      num(k, given, where, "--balance-rel-threshold", Setting.SGLANG_BALANCE_REL, 1.5, 1, Double.MAX_VALUE);
      k.fixed("--policy -> replay policy sglang-cache-aware", "cache_aware",
          given.containsKey("--policy") ? where + " --policy" : "SGLang router default cache_aware (" + SGLANG_SRC + ")");
      return k.build(Policies.SGLANG_CACHE_AWARE);
    }

    static void num(Knobs k, Map<String, String> given, String where, String flag, Setting setting, double def, double min, double max) {
      if (given.containsKey(flag)) {
        double v = parseNumber(given.get(flag), where + " " + flag);
        if (v < min || v > max) throw new UsageException(where + " " + flag + " " + given.get(flag) + " is out of range [" + fmt(min) + ", " + fmt(max) + "]");
        k.set(flag, setting, v, where + " " + flag);
      } else {
        k.set(flag, setting, def, "SGLang router default " + fmt(def) + " (" + SGLANG_SRC + ")");
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  /** Dynamo's KV router flags (python -m dynamo.frontend; KvRouterConfig in lib/kv-router/src/scheduling/config.rs). */
  static final class Dynamo {
    static final String MODELLED = "modelled: --router-mode kv, --router-kv-overlap-score-credit, "
        + "--router-prefill-load-scale, --router-kv-overlap-score-weight (deprecated; also --kv-overlap-score-weight), "
        + "--router-temperature 0, --router-kv-events";

    static RouterConfig parse(List<String> t, String where) {
      Knobs k = new Knobs("dynamo");
      Map<String, String> given = new LinkedHashMap<>();
      int i = skipCommand(t, k);
      while (i < t.size()) {
        String raw = t.get(i);
        if (!raw.startsWith("--")) throw new UsageException(where + " '" + raw + "' is not a flag (expected --NAME)");
        switch (raw) {
          case "--router-mode", "--router-kv-overlap-score-credit", "--router-prefill-load-scale",
              "--router-temperature" -> {
            given.put(raw, value(t, i, raw, where));
            i += 2;
          }
          case "--router-kv-overlap-score-weight", "--kv-overlap-score-weight" -> {
            if (given.containsKey("weight")) throw new UsageException(where + " the overlap score weight is given twice");
            given.put("weight", value(t, i, raw, where));
            given.put("weightFlag", raw);
            i += 2;
          }
          case "--router-kv-events", "--kv-events", "--use-kv-events" -> {
            k.inert(raw, "the replay's router reads each instance's actual cache, as KV events report it (the default)");
            i++;
          }
          case "--no-router-kv-events", "--no-kv-events" -> throw new UsageException(where + " " + raw + " is not modelled: "
              + "without KV events Dynamo predicts each worker's cache from its own routing decisions with a TTL; the "
              + "replay's router reads the actual cache; " + MODELLED);
          case "--kv-cache-block-size" -> {
            String v = value(t, i, raw, where);
            k.inert(raw + " " + v, "must equal the engines' block size (Dynamo docs); the replay's router and engines "
                + "share the trace's block size");
            i += 2;
          }
          case "--http-host", "--http-port" -> {
            k.inert(raw + " " + value(t, i, raw, where), "deployment only: no routing decision depends on it");
            i += 2;
          }
          default -> throw new UsageException(where + " " + raw + " is not modelled; " + MODELLED);
        }
      }
      String mode = given.getOrDefault("--router-mode", "kv");
      if (!mode.equals("kv")) {
        throw new UsageException(where + " --router-mode " + mode + " is not the KV router; name it alone (--current-router "
            + "round-robin or random)");
      }
      k.fixed("--router-mode -> replay policy dynamo-kv", "kv", given.containsKey("--router-mode") ? where + " --router-mode"
          : "not given: Dynamo's default is round-robin, but a dynamo: configuration is read as the KV router");
      String temp = given.get("--router-temperature");
      if (temp != null && parseNumber(temp, where + " --router-temperature") != 0) {
        throw new UsageException(where + " --router-temperature " + temp + " is not modelled: only 0 (deterministic "
            + "argmin of the cost) is; softmax sampling is not");
      }
      k.fixed("--router-temperature (argmin of the cost; ties round robin)", "0",
          temp != null ? where + " --router-temperature" : "router_temperature default 0.0 (" + DYNAMO_SRC + ")");
      double credit = 1.0;
      String creditSrc = "overlap_score_credit default 1.0 (" + DYNAMO_SRC + ")";
      double scale = 1.0;
      String scaleSrc = "prefill_load_scale default 1.0 (" + DYNAMO_SRC + ")";
      if (given.containsKey("--router-kv-overlap-score-credit")) {
        credit = parseNumber(given.get("--router-kv-overlap-score-credit"), where + " --router-kv-overlap-score-credit");
        if (credit < 0 || credit > 1) throw new UsageException(where + " --router-kv-overlap-score-credit " + fmt(credit)
            + " is out of [0, 1] (Dynamo rejects it: " + DYNAMO_SRC + " validate_overlap_score_credit)");
        creditSrc = where + " --router-kv-overlap-score-credit";
      }
      if (given.containsKey("--router-prefill-load-scale")) {
        scale = parseNumber(given.get("--router-prefill-load-scale"), where + " --router-prefill-load-scale");
        if (scale < 0) throw new UsageException(where + " --router-prefill-load-scale must be >= 0");
        scaleSrc = where + " --router-prefill-load-scale";
      }
      if (given.containsKey("weight")) {
        String flag = given.get("weightFlag");
        if (given.containsKey("--router-prefill-load-scale")) {
          throw new UsageException(where + " " + flag + " and --router-prefill-load-scale both set the prefill load scale; give one");
        }
        double w = parseNumber(given.get("weight"), where + " " + flag);
        if (w < 0) throw new UsageException(where + " " + flag + " must be >= 0");
        scale = w;
        scaleSrc = where + " " + flag + " (deprecated: sets prefill_load_scale, "
            + DYNAMO_SRC + " apply_deprecated_overlap_score_weight_override)";
        if (w == 0) {
          if (given.containsKey("--router-kv-overlap-score-credit") && credit != 0) {
            throw new UsageException(where + " " + flag + " 0 sets the overlap credit to 0, but --router-kv-overlap-score-credit gives " + fmt(credit));
          }
          credit = 0;
          creditSrc = where + " " + flag + " 0 (deprecated weight 0 also sets overlap_score_credit 0, " + DYNAMO_SRC + ")";
        }
      }
      k.set("overlap_score_credit", Setting.DYNAMO_OVERLAP_CREDIT, credit, creditSrc);
      k.set("prefill_load_scale", Setting.DYNAMO_PREFILL_LOAD_SCALE, scale, scaleSrc);
      return k.build(Policies.DYNAMO_KV);
    }
  }

  /** Leading words that are not flags (the launch command, e.g. python -m dynamo.frontend) are skipped and listed. */
  static int skipCommand(List<String> t, Knobs k) {
    int i = 0;
    while (i < t.size() && !t.get(i).startsWith("--")) i++; // python -m MODULE too
    if (i > 0) k.inert("command " + String.join(" ", t.subList(0, i)), "the launch command, not a setting");
    return i;
  }

  static String value(List<String> t, int i, String flag, String where) {
    if (i + 1 >= t.size() || t.get(i + 1).startsWith("--")) throw new UsageException(where + " " + flag + " needs a value");
    return t.get(i + 1);
  }

  static double parseNumber(String s, String what) {
    try {
      double v = Double.parseDouble(s);
      if (!Double.isFinite(v)) throw new NumberFormatException();
      return v;
    } catch (NumberFormatException e) {
      throw new UsageException(what + ": '" + s + "' is not a number");
    }
  }
}
