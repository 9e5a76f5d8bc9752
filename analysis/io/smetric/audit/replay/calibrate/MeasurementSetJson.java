package io.smetric.audit.replay.calibrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The project's normalised measurement set, {@code {"format": "smetric-measurements/1",
 * "measurements": [...]}}: every {@link Measurement} field by name (NaN and unknown as null), the
 * workload tagged by {@code type} ({@code single_request}, {@code shared_prefix}, {@code sampled}).
 * Keys it does not know (e.g. {@code reported}, the raw values a conversion started from) are kept
 * for the reader of the file and ignored here.
 */
final class MeasurementSetJson {
  static final String FORMAT = "smetric-measurements/1";

  private MeasurementSetJson() {}

  static boolean looksLike(JsonNode n) {
    return n.isObject() && n.has("format") && n.get("format").asText().startsWith("smetric-measurements/");
  }

  static List<Measurement> read(String file, JsonNode root) {
    JsonIn j = new JsonIn(file);
    String format = root.get("format").asText();
    if (!FORMAT.equals(format)) throw j.bad("format", "'" + format + "' is not supported (this version reads " + FORMAT + ")");
    JsonNode list = root.get("measurements");
    if (list == null || !list.isArray()) throw j.bad("measurements", "missing or not an array");
    List<Measurement> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) out.add(measurement(j, list.get(i), "measurements[" + i + "]."));
    return out;
  }

  private static Measurement measurement(JsonIn j, JsonNode m, String p) {
    if (m == null || !m.isObject()) throw j.bad(p, "must be an object");
    Kind kind;
    String k = j.requiredText(m, "kind", p);
    try {
      kind = Kind.valueOf(k.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw j.bad(p + "kind", "'" + k + "' is not one of SINGLE_REQUEST, LOAD_STAGE, STEP");
    }
    JsonNode e = j.optObject(m, "engine", p);
    String ep = p + "engine.";
    EngineConfig engine = e == null ? EngineConfig.UNKNOWN : new EngineConfig(j.optText(e, "engine"), j.optText(e, "version"),
        j.optInt(e, "tensorParallel", ep, 1), j.optInt(e, "maxNumSeqs", ep, 1), j.optInt(e, "maxNumBatchedTokens", ep, 1),
        j.optInt(e, "blockSize", ep, 1), j.optBool(e, "prefixCaching", ep), j.optBool(e, "chunkedPrefill", ep),
        e.hasNonNull("gpuMemoryUtilization") ? j.requiredNum(e, "gpuMemoryUtilization", ep) : null,
        j.optLong(e, "numGpuBlocks", ep), j.optInt(e, "maxModelLen", ep, 1), j.optLong(e, "cpuOffloadBytes", ep));
    JsonNode me = j.optObject(m, "measured", p);
    String mp = p + "measured.";
    Metrics metrics = me == null ? Metrics.NONE : new Metrics(stat(j, me, "ttft", mp), stat(j, me, "tpot", mp),
        stat(j, me, "itl", mp), stat(j, me, "e2e", mp), j.num(me, "requestsPerS", mp), j.num(me, "outputTokensPerS", mp),
        j.num(me, "totalTokensPerS", mp), me.hasNonNull("completed") ? j.requiredCount(me, "completed", mp) : 0,
        me.hasNonNull("failed") ? j.requiredCount(me, "failed", mp) : 0);
    JsonNode s = j.optObject(m, "step", p);
    StepTiming step = null;
    if (s != null) {
      String sp = p + "step.";
      step = new StepTiming((int) j.requiredCount(s, "prefillTokens", sp), j.nonNegative(s, "prefillPairs", sp),
          (int) j.requiredCount(s, "decodeSeqs", sp), j.requiredCount(s, "decodeContextTokens", sp), j.requiredNum(s, "stepS", sp));
    }
    if (kind == Kind.STEP && step == null) throw j.bad(p + "step", "missing for a STEP measurement");
    JsonNode w = j.optObject(m, "workload", p);
    WorkloadSpec workload = w == null ? null : workload(j, w, p + "workload.");
    if (kind != Kind.STEP && workload == null) throw j.bad(p + "workload", "missing: a " + kind + " measurement needs its workload");
    List<String> notes = new ArrayList<>();
    JsonNode n = m.get("notes");
    if (n != null && n.isArray()) n.forEach(x -> notes.add(x.asText()));
    return new Measurement(j.requiredText(m, "id", p), j.optText(m, "source"), j.requiredText(m, "group", p), kind, engine,
        workload, metrics, step, j.optText(m, "model"), j.optText(m, "hardware"), notes,
        j.optPositive(m, "requestTimeoutS", p));
  }

  private static WorkloadSpec workload(JsonIn j, JsonNode w, String p) {
    String type = j.requiredText(w, "type", p);
    try {
      switch (type) {
        case "single_request":
          return new SingleRequestWorkload((int) j.requiredCount(w, "inputTokens", p), (int) j.requiredCount(w, "outputTokens", p),
              blockSize(j, w, p));
        case "shared_prefix": {
          JsonNode st = w.get("stages");
          if (st == null || !st.isArray()) throw j.bad(p + "stages", "missing or not an array");
          List<SharedPrefixWorkload.LoadStage> stages = new ArrayList<>();
          for (int i = 0; i < st.size(); i++) {
            String sp = p + "stages[" + i + "].";
            stages.add(new SharedPrefixWorkload.LoadStage(j.requiredNum(st.get(i), "rate", sp), j.requiredNum(st.get(i), "durationS", sp)));
          }
          double gap = w.hasNonNull("interStageGapS") ? j.requiredNum(w, "interStageGapS", p) : 0.0;
          return new SharedPrefixWorkload((int) j.requiredCount(w, "groups", p), (int) j.requiredCount(w, "promptsPerGroup", p),
              (int) j.requiredCount(w, "systemPromptTokens", p), (int) j.requiredCount(w, "questionTokens", p),
              (int) j.requiredCount(w, "outputTokens", p), enumOf(SharedPrefixWorkload.MultiTurn.class, j, w, "multiTurn", p),
              enumOf(SharedPrefixWorkload.LoadType.class, j, w, "loadType", p), stages, gap, j.optInt(w, "measuredStage", p, 0),
              blockSize(j, w, p));
        }
        case "sampled": {
          int[] in = j.intArray(w, "inputTokens", p);
          int[] out = j.intArray(w, "outputTokens", p);
          if (in == null || out == null) throw j.bad(p + (in == null ? "inputTokens" : "outputTokens"), "missing");
          double rate = j.num(w, "rate", p);
          double burst = w.hasNonNull("burstiness") ? j.requiredNum(w, "burstiness", p) : 1.0;
          return new SampledWorkload(in, out, w.hasNonNull("sharedPrefixTokens") ? (int) j.requiredCount(w, "sharedPrefixTokens", p) : 0,
              enumOf(SampledWorkload.Arrival.class, j, w, "arrival", p), rate, burst, j.optInt(w, "concurrency", p, 1),
              j.num(w, "durationS", p), blockSize(j, w, p));
        }
        default:
          throw j.bad(p + "type", "'" + type + "' is not one of single_request, shared_prefix, sampled");
      }
    } catch (IllegalArgumentException e) {
      throw j.bad(p.substring(0, p.length() - 1), e.getMessage());
    }
  }

  private static int blockSize(JsonIn j, JsonNode w, String p) {
    Integer b = j.optInt(w, "blockSize", p, 1);
    return b == null ? 16 : b;
  }

  private static <E extends Enum<E>> E enumOf(Class<E> type, JsonIn j, JsonNode w, String field, String p) {
    String v = j.requiredText(w, field, p);
    try {
      return Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw j.bad(p + field, "'" + v + "' is not one of " + java.util.Arrays.toString(type.getEnumConstants()));
    }
  }

  private static Stat stat(JsonIn j, JsonNode me, String name, String p) {
    JsonNode s = j.optObject(me, name, p);
    if (s == null) return Stat.NONE;
    String sp = p + name + ".";
    return new Stat(j.num(s, "mean", sp), j.num(s, "p50", sp), j.num(s, "p90", sp), j.num(s, "p99", sp));
  }

  /** The set as JSON (the same tree {@link #read} reads). */
  static ObjectNode write(List<Measurement> ms) {
    ObjectNode root = Json.object();
    root.put("format", FORMAT);
    ArrayNode list = root.putArray("measurements");
    for (Measurement m : ms) {
      ObjectNode o = list.addObject();
      o.put("id", m.id());
      o.put("source", m.source());
      o.put("group", m.group());
      o.put("kind", m.kind().name());
      o.put("model", m.model());
      o.put("hardware", m.hardware());
      if (m.requestTimeoutS() != null) o.put("requestTimeoutS", m.requestTimeoutS());
      ArrayNode notes = o.putArray("notes");
      m.notes().forEach(notes::add);
      EngineConfig e = m.engine();
      ObjectNode en = o.putObject("engine");
      en.put("engine", e.engine());
      en.put("version", e.version());
      en.put("tensorParallel", e.tensorParallel());
      en.put("maxNumSeqs", e.maxNumSeqs());
      en.put("maxNumBatchedTokens", e.maxNumBatchedTokens());
      en.put("blockSize", e.blockSize());
      en.put("prefixCaching", e.prefixCaching());
      en.put("chunkedPrefill", e.chunkedPrefill());
      en.put("gpuMemoryUtilization", e.gpuMemoryUtilization());
      en.put("numGpuBlocks", e.numGpuBlocks());
      en.put("maxModelLen", e.maxModelLen());
      en.put("cpuOffloadBytes", e.cpuOffloadBytes());
      Metrics mt = m.measured();
      ObjectNode me = o.putObject("measured");
      putStat(me, "ttft", mt.ttft());
      putStat(me, "tpot", mt.tpot());
      putStat(me, "itl", mt.itl());
      putStat(me, "e2e", mt.e2e());
      putNum(me, "requestsPerS", mt.requestsPerS());
      putNum(me, "outputTokensPerS", mt.outputTokensPerS());
      putNum(me, "totalTokensPerS", mt.totalTokensPerS());
      me.put("completed", mt.completed());
      me.put("failed", mt.failed());
      if (m.step() == null) {
        o.putNull("step");
      } else {
        StepTiming s = m.step();
        ObjectNode so = o.putObject("step");
        so.put("prefillTokens", s.prefillTokens());
        so.put("prefillPairs", s.prefillPairs());
        so.put("decodeSeqs", s.decodeSeqs());
        so.put("decodeContextTokens", s.decodeContextTokens());
        so.put("stepS", s.stepS());
      }
      if (m.workload() == null) o.putNull("workload");
      else writeWorkload(o.putObject("workload"), m.workload());
    }
    return root;
  }

  private static void writeWorkload(ObjectNode w, WorkloadSpec spec) {
    if (spec instanceof SingleRequestWorkload s) {
      w.put("type", "single_request");
      w.put("inputTokens", s.inputTokens());
      w.put("outputTokens", s.outputTokens());
      w.put("blockSize", s.blockSize());
    } else if (spec instanceof SharedPrefixWorkload s) {
      w.put("type", "shared_prefix");
      w.put("groups", s.groups());
      w.put("promptsPerGroup", s.promptsPerGroup());
      w.put("systemPromptTokens", s.systemPromptTokens());
      w.put("questionTokens", s.questionTokens());
      w.put("outputTokens", s.outputTokens());
      w.put("multiTurn", s.multiTurn().name());
      w.put("loadType", s.loadType().name());
      ArrayNode st = w.putArray("stages");
      for (SharedPrefixWorkload.LoadStage ls : s.loadStages()) st.addObject().put("rate", ls.rate()).put("durationS", ls.durationS());
      w.put("measuredStage", s.measuredStage());
      w.put("interStageGapS", s.interStageGapS());
      w.put("blockSize", s.blockSize());
    } else if (spec instanceof SampledWorkload s) {
      w.put("type", "sampled");
      ArrayNode in = w.putArray("inputTokens");
      for (int v : s.inputTokens()) in.add(v);
      ArrayNode out = w.putArray("outputTokens");
      for (int v : s.outputTokens()) out.add(v);
      w.put("sharedPrefixTokens", s.sharedPrefixTokens());
      w.put("arrival", s.arrival().name());
      putNum(w, "rate", s.rate());
      w.put("burstiness", s.burstiness());
      w.put("concurrency", s.concurrency());
      putNum(w, "durationS", s.durationS());
      w.put("blockSize", s.blockSize());
    }
  }

  private static void putStat(ObjectNode o, String name, Stat s) {
    ObjectNode so = o.putObject(name);
    putNum(so, "mean", s.mean());
    putNum(so, "p50", s.p50());
    putNum(so, "p90", s.p90());
    putNum(so, "p99", s.p99());
  }

  private static void putNum(ObjectNode o, String name, double v) {
    if (Double.isNaN(v)) o.putNull(name);
    else o.put(name, v);
  }
}
