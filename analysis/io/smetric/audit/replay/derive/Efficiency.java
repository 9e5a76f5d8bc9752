package io.smetric.audit.replay.derive;

import io.smetric.audit.replay.ModelProfile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The efficiency factors that turn a model's and a GPU's facts into step-cost coefficients, learned
 * from calibrated profiles: each profile's coefficient divided by what the facts give at 100%
 * (achieved share of the BF16 peak for prefill and for prefill attention, achieved share of the
 * peak bandwidth for the decode's KV reads, fixed step cost per layer), and the coefficients that
 * are not physics (per decoding sequence, frontend latency) as they are. Only coefficients a
 * profile's source calls {@code fitted} are learned from (the prefill cost b also when
 * {@code derived}: no shipped profile fits it, docs/validation.md Sources 9); each factor is the
 * median over the profiles that have it, its range their smallest to largest.
 */
public record Efficiency(List<String> from, Map<String, Factor> factors) {

  public static final String PREFILL_MFU = "prefillMfu";
  public static final String ATTENTION_MFU = "attentionMfu";
  public static final String KV_READ = "kvReadEfficiency";
  public static final String STEP_PER_LAYER = "stepBasePerLayerS";
  public static final String PER_SEQ = "decodePerSeqS";
  public static final String FRONTEND = "frontendLatencyS";
  public static final String HBM_WEIGHTS = "hbmEfficiency";

  /** One factor: the median of the profiles' values, their range, and each profile's value. */
  public record Factor(String name, double value, double low, double high, Map<String, Double> byProfile, String note) {}

  /** A shipped profile with the facts it was made for (profiles/derive-basis.csv). */
  public record Basis(String profile, String config, String gpu, int tp, String engine) {
    public ModelFacts facts() {
      return ModelFacts.resource(config);
    }

    public GpuSpec gpuSpec() {
      return GpuSpec.named(gpu);
    }
  }

  static final String BASIS = "/io/smetric/audit/replay/profiles/derive-basis.csv";

  /** The shipped calibrated profiles and their facts, in file order. */
  public static List<Basis> basis() {
    List<Basis> out = new ArrayList<>();
    for (List<String> f : ResourceTable.rows(BASIS, 5)) {
      out.add(new Basis(f.get(0), f.get(1), f.get(2), Integer.parseInt(f.get(3)), f.get(4)));
    }
    return out;
  }

  /** Learned from every shipped calibrated profile except those named in {@code leaveOut}. */
  public static Efficiency learnShipped(List<String> leaveOut) {
    List<Basis> use = basis().stream().filter(b -> !leaveOut.contains(b.profile())).toList();
    List<ModelProfile> ps = use.stream().map(b -> ModelProfile.named(b.profile())).toList();
    return learn(use, ps);
  }

  /** Learned from these profiles, each with its basis (same order). */
  public static Efficiency learn(List<Basis> basis, List<ModelProfile> profiles) {
    Map<String, Map<String, Double>> vals = new LinkedHashMap<>();
    for (String f : List.of(PREFILL_MFU, ATTENTION_MFU, KV_READ, STEP_PER_LAYER, PER_SEQ, FRONTEND, HBM_WEIGHTS)) {
      vals.put(f, new LinkedHashMap<>());
    }
    for (int i = 0; i < basis.size(); i++) {
      Basis b = basis.get(i);
      ModelProfile p = profiles.get(i);
      ModelFacts m = b.facts();
      GpuSpec g = b.gpuSpec();
      double peak = g.bf16Tflops() * 1e12 * b.tp();
      double bw = g.hbmGBps() * 1e9 * b.tp();
      if (has(p, "prefillPerTokenS", "fitted", "derived") && p.prefillPerTokenS > 0) {
        vals.get(PREFILL_MFU).put(b.profile(), m.flopsPerToken() / (p.prefillPerTokenS * peak));
      }
      if (has(p, "prefillAttentionPerPairS", "fitted") && p.prefillAttentionPerPairS > 0) {
        vals.get(ATTENTION_MFU).put(b.profile(), m.attentionFlopsPerPair() / (p.prefillAttentionPerPairS * peak));
      }
      if (has(p, "decodePerContextTokenS", "fitted") && p.decodePerContextTokenS > 0) {
        vals.get(KV_READ).put(b.profile(), (double) m.kvBytesPerToken() * m.kvReplication(b.tp()) / (p.decodePerContextTokenS * bw));
      }
      if (has(p, "stepBaseS", "fitted")) vals.get(STEP_PER_LAYER).put(b.profile(), p.stepBaseS / m.layers());
      if (has(p, "decodePerSeqS", "fitted")) vals.get(PER_SEQ).put(b.profile(), p.decodePerSeqS);
      if (has(p, "frontendLatencyS", "fitted")) vals.get(FRONTEND).put(b.profile(), p.frontendLatencyS);
      vals.get(HBM_WEIGHTS).put(b.profile(), p.hbmEfficiency);
    }
    Map<String, Factor> out = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, Double>> e : vals.entrySet()) {
      Map<String, Double> v = e.getValue();
      if (v.isEmpty()) continue;
      double[] xs = v.values().stream().mapToDouble(Double::doubleValue).sorted().toArray();
      out.put(e.getKey(), new Factor(e.getKey(), median(xs), xs[0], xs[xs.length - 1], v, null));
    }
    return new Efficiency(basis.stream().map(Basis::profile).toList(), out);
  }

  public Factor get(String name) {
    return factors.get(name);
  }

  /** "0.371 (median of qwen3-30b-a3b-h20 0.372, llama-2-7b-h100-tp1 0.365, ...)" */
  public String describe(String name, String format) {
    Factor f = factors.get(name);
    if (f == null) return "none of " + String.join(", ", from) + " has it fitted";
    List<String> parts = new ArrayList<>();
    f.byProfile().forEach((k, v) -> parts.add(k + " " + String.format(Locale.ROOT, format, v)));
    return String.format(Locale.ROOT, format, f.value()) + " (median of " + String.join(", ", parts) + ")";
  }

  private static boolean has(ModelProfile p, String field, String... kinds) {
    ModelProfile.Source s = p.sources == null ? null : p.sources.get(field);
    return s != null && s.kind != null && Arrays.asList(kinds).contains(s.kind);
  }

  static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
