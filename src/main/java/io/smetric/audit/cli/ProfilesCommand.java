package io.smetric.audit.cli;

import io.smetric.audit.common.OutputExistsException;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.calibrate.MeasurementReplay;
import io.smetric.audit.replay.derive.CrossValidation;
import io.smetric.audit.replay.derive.Efficiency;
import io.smetric.audit.replay.derive.GpuSpec;
import io.smetric.audit.replay.derive.ModelFacts;
import io.smetric.audit.replay.derive.ProfileDeriver;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code profiles [NAME|FILE]}: the shipped model profiles, or one profile in full with the source of every number. */
@Command(name = "profiles", mixinStandardHelpOptions = true, subcommands = ProfilesCommand.Derive.class,
    description = {"Lists the shipped model profiles (model, hardware, engine; error on the fitted runs, leave-one-out",
        "and held-out runs apart; the regime they were checked in), or prints one profile in full (YAML)",
        "with the source of every number. Use one with --profile NAME|FILE.",
        "`profiles derive` makes a profile for any model and GPU from its config.json (below)."})
public final class ProfilesCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "0..1", paramLabel = "NAME|FILE", description = "A profile to print in full.")
  String profile;

  @Override
  public Integer call() {
    PrintWriter w = spec.commandLine().getOut();
    if (profile != null) {
      ModelProfile p = ModelProfile.resolve(profile);
      w.print(p.toYaml());
      List<String> missing = p.unsourcedFields();
      if (!missing.isEmpty()) w.println("# no source given for: " + String.join(", ", missing));
      // the validation record in words, as YAML comments so the output stays a loadable profile
      java.io.StringWriter text = new java.io.StringWriter();
      StagePrint.validationRecord(new PrintWriter(text), p.validation);
      text.toString().lines().forEach(l -> w.println("# " + l));
      w.flush();
      return 0;
    }
    for (String n : ModelProfile.catalogue()) {
      ModelProfile p = ModelProfile.named(n);
      w.printf(Locale.ROOT, "%-26s %s on %s, %s%s%n", n, p.model, p.hardware, p.engine,
          n.equals(ModelProfile.DEFAULT_NAME) ? " (default)" : "");
      w.printf(Locale.ROOT, "%-26s %s%n", "", p.validation == null || p.validation.summary == null
          ? "not validated" : p.validation.summary);
      if (p.validation != null && p.validation.regime != null) {
        w.printf(Locale.ROOT, "%-26s checked in: %s%n", "", p.validation.regime.summary);
      }
    }
    w.println("(fit = in-sample; leave-one-out = the fitted runs, each predicted without itself; held-out = runs the fit");
    w.println(" never saw. `smetric-audit profiles NAME` prints one with the source of every number; docs/validation.md)");
    w.flush();
    return 0;
  }

  /**
   * {@code profiles derive}: a profile for any model and GPU from the model's config.json, the GPU
   * table and the efficiency factors learned from the shipped calibrated profiles; its error is the
   * shipped cross-validation's ({@code --cross-validate} recomputes it). Nested here, not a command
   * class of its own, because it is a part of {@code profiles}.
   */
  @Command(name = "derive", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Derives a profile from a Hugging Face config.json (layers, heads, KV heads, head size, hidden and",
          "intermediate sizes, experts; Llama, Mistral, Mixtral, Qwen2/Qwen3(-MoE), DeepSeek-V2/V3 MLA) and a GPU of the",
          "table (measurements/facts/gpus.csv), with efficiency factors learned from the shipped calibrated profiles.",
          "Every number carries its source; the error is stated by cross-validation (docs/validation.md).",
          "The output loads with --profile FILE and is a starting point for calibrate --base FILE.",
          "--cross-validate derives each calibrated shipped profile from the others and replays its runs (~30 s)."})
  public static final class Derive implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--model", paramLabel = "CONFIG.json", description = "The model's Hugging Face config.json.")
    Path model;

    @Option(names = "--gpu", paramLabel = "NAME", description = "A GPU of the table: H20, H100 SXM, H200, A100 80GB, L4, L40S, MI300X.")
    String gpu;

    @Option(names = "--tp", defaultValue = "1", paramLabel = "N", description = "Tensor-parallel GPUs per instance (default: ${DEFAULT-VALUE}).")
    int tp;

    @Option(names = "--engine", defaultValue = "vllm", paramLabel = "vllm|sglang",
        description = "Engine whose limits the profile takes (default: ${DEFAULT-VALUE}).")
    String engine;

    @Option(names = "--name", paramLabel = "NAME", description = "The profile's name (default: derived-MODEL-GPU-tpN).")
    String name;

    @Option(names = "--model-name", paramLabel = "TEXT", description = "The model as the profile names it (default: _name_or_path, else the file name).")
    String modelName;

    @Option(names = "--out", paramLabel = "FILE", description = "Profile to write (.yaml/.yml, else JSON); with --cross-validate the record (JSON).")
    Path out;

    @Option(names = "--overwrite", description = "Replace an existing file.")
    boolean overwrite;

    @Option(names = "--cross-validate", description = "Recompute the cross-validation (replays every calibrated profile's runs).")
    boolean crossValidate;

    @Override
    public Integer call() throws IOException {
      PrintWriter w = spec.commandLine().getOut();
      if (out != null && Files.exists(out) && !overwrite) throw OutputExistsException.file(out.toString());
      if (crossValidate) return crossValidate(w);
      if (model == null || gpu == null || out == null) throw new UsageException("profiles derive needs --model CONFIG.json, --gpu NAME and --out FILE");
      if (!Files.isRegularFile(model)) throw new UsageException("config not found: " + model);
      GpuSpec g = GpuSpec.named(gpu);
      ModelFacts facts = ModelFacts.read(model);
      String mn = modelName != null ? modelName : nameOrPath(model);
      Efficiency eff = Efficiency.learnShipped(List.of());
      ModelProfile derived = ProfileDeriver.derive(new ProfileDeriver.Request(facts, mn, g, tp, engine, name), eff);
      CrossValidation.Result cv = CrossValidation.shipped();
      ModelProfile p = derived.with(b -> b.validation = CrossValidation.label(cv));
      String lower = out.getFileName().toString().toLowerCase(Locale.ROOT);
      String text = lower.endsWith(".yaml") || lower.endsWith(".yml") ? p.toYaml() : p.toJson();
      if (out.toAbsolutePath().getParent() != null) Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, text, StandardCharsets.UTF_8);

      w.println("model: " + facts.describe());
      for (String n : facts.notes()) w.println("  note: " + n);
      w.printf(Locale.ROOT, "  weights %.2f GB (%.2fB parameters); read by every step %.2f GB; routed experts %.2f GB%n",
          facts.weightBytes() / 1e9, facts.totalParams() / 1e9, facts.denseReadBytes() / 1e9, facts.expertBytes() / 1e9);
      if (facts.moe()) {
        // the experts a decode step reads grow with its batch: f(T) of all routed experts (uniform routing)
        StringBuilder reads = new StringBuilder();
        for (int batch : new int[] {1, 8, 32, 128}) {
          double share = 1 - Math.pow(1 - (double) facts.expertsPerToken() / facts.experts(), batch);
          reads.append(String.format(Locale.ROOT, "%s%d: %.1f GB", reads.length() == 0 ? "" : ", ", batch,
              (facts.denseReadBytes() + share * facts.expertBytes()) / 1e9));
        }
        w.println("  weights a decode step reads, by batch size (experts touched under uniform routing): " + reads);
      }
      w.printf(Locale.ROOT, "  KV %,d B per token%s; %.3g GFLOP per token (prefill or decode); %.4g FLOP per attention pair%n", facts.kvBytesPerToken(),
          facts.kvReplication(tp) > 1 ? " (x" + facts.kvReplication(tp) + " replicated over TP" + tp + ")" : "",
          facts.flopsPerToken() / 1e9, facts.attentionFlopsPerPair());
      w.printf(Locale.ROOT, "gpu: %d x %s: %.0f GB, %.0f GB/s, %.1f TFLOP/s BF16 dense each (%s)%n", tp, g.name(), g.memoryGB(),
          g.hbmGBps(), g.bf16Tflops(), g.source());
      w.println("efficiency learned from " + String.join(", ", eff.from()) + ":");
      w.println("  prefill MFU " + eff.describe(Efficiency.PREFILL_MFU, "%.3f"));
      w.println("  attention MFU " + eff.describe(Efficiency.ATTENTION_MFU, "%.3f"));
      w.println("  KV read efficiency " + eff.describe(Efficiency.KV_READ, "%.3f"));
      w.println("  step base per layer [s] " + eff.describe(Efficiency.STEP_PER_LAYER, "%.3g"));
      w.println("  per decoding sequence [s] " + eff.describe(Efficiency.PER_SEQ, "%.3g"));
      w.println("  frontend latency [s] " + eff.describe(Efficiency.FRONTEND, "%.3g"));
      w.printf(Locale.ROOT, "coefficients: a %.3g s, b %.3g s/token, e %.3g s/pair, c %.3g s, d %.3g s/context token, frontend %.3g s;"
          + " R %.3g s, W %.3g s; KV capacity %,d tokens; max batch %d, token budget %d%n", p.stepBaseS, p.prefillPerTokenS,
          p.prefillAttentionPerPairS, p.decodePerSeqS, p.decodePerContextTokenS, p.frontendLatencyS, p.denseReadS(), p.expertReadS(),
          p.kvCapacityTokens, p.maxBatch, p.tokenBudget);
      w.printf(Locale.ROOT, "  so: a batch-1 decode step %.2f ms at a short context; prefill of 8,192 uncached tokens %.2f s%n",
          1e3 * p.stepS(0, 0, 1, 0, 0), p.stepS(8192, 8192.0 * 8192 / 2, 0, 0, 0));
      w.println(p.validation.summary);
      w.println("wrote " + out + " (" + p.name + "; every number with its source: smetric-audit profiles " + out + ")");
      List<String> missing = p.unsourcedFields();
      if (!missing.isEmpty()) w.println("no source given for: " + String.join(", ", missing));
      w.flush();
      return 0;
    }

    private Integer crossValidate(PrintWriter w) throws IOException {
      CrossValidation.Result r = CrossValidation.run(MeasurementReplay.Options.DEFAULT, m -> {
        spec.commandLine().getErr().println(m);
        spec.commandLine().getErr().flush();
      });
      w.println("cross-validation: " + r.method());
      w.printf(Locale.ROOT, "%-26s %5s %7s %7s %7s %8s  %s%n", "left out", "runs", "E2E", "TPOT", "TTFT", "largest", "factors learned from the others");
      for (CrossValidation.LeftOut l : r.rows()) {
        StringBuilder f = new StringBuilder();
        l.factors().forEach((k, v) -> f.append(k).append(' ').append(String.format(Locale.ROOT, "%.3g", v)).append(", "));
        w.printf(Locale.ROOT, "%-26s %5d %7s %7s %7s %7.1f%%  %s%n", l.profile(), l.measurements(), pct(l.e2e()), pct(l.tpot()), pct(l.ttft()),
            100 * l.maxAbsError(), f.length() > 2 ? f.substring(0, f.length() - 2) : "");
      }
      w.printf(Locale.ROOT, "%-26s %5s %7s %7s %7s%n", "all numbers (median)", r.points(), pct(r.e2e()), pct(r.tpot()), pct(r.ttft()));
      if (out != null) {
        Files.writeString(out, CrossValidation.toJson(r), StandardCharsets.UTF_8);
        w.println("wrote " + out);
      }
      w.flush();
      return 0;
    }

    private static String pct(Double v) {
      return v == null ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
    }

    /** The config's _name_or_path, else its file name (or folder name for config.json). */
    private static String nameOrPath(Path config) {
      try {
        com.fasterxml.jackson.databind.JsonNode n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(config.toFile());
        if (n.path("_name_or_path").isTextual() && !n.path("_name_or_path").asText().isBlank()) return n.path("_name_or_path").asText();
      } catch (IOException e) {
        // ModelFacts.read has already reported an unreadable file
      }
      String f = config.getFileName().toString();
      if (f.equals("config.json") && config.toAbsolutePath().getParent() != null) {
        return config.toAbsolutePath().getParent().getFileName().toString();
      }
      return f.endsWith(".json") ? f.substring(0, f.length() - 5) : f;
    }
  }
}
