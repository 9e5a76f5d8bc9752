package io.smetric.audit.cli;

import io.smetric.audit.common.UsageException;
import io.smetric.audit.generate.GeneratorConfig;
import io.smetric.audit.generate.Param;
import io.smetric.audit.generate.Preset;
import io.smetric.audit.generate.OutputFormat;
import io.smetric.audit.generate.TraceGeneration;
import io.smetric.audit.generate.WorkloadGenerator;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code generate}: writes a synthetic workload with ground truth (docs/generator.md). */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Writes a synthetic workload trace with ground truth (docs/generator.md).",
      "Truth per line (session, parent line, turn, trigger, fork, compacted) goes to",
      "<out>.truth.jsonl (for x.jsonl.gz: x.jsonl.truth.jsonl.gz).",
      "The same options and seed give the same bytes."
    })
public final class GenerateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--preset", defaultValue = "agent", paramLabel = "agent|chat|single-shot",
      description = "Workload model (default: ${DEFAULT-VALUE}).")
  String preset;

  @Option(names = "--requests", paramLabel = "N", description = "Number of requests to write (required).")
  Long requests;

  @Option(names = "--seed", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--format", defaultValue = "smetric", paramLabel = "smetric|bailian|mooncake",
      description = "Output format (default: ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--out", paramLabel = "FILE", description = "Output JSONL file; gzip if it ends with .gz (required).")
  Path out;

  @Option(names = "--block-size", paramLabel = "B",
      description = "Tokens per hashed block (default: 16 for smetric and bailian, 512 for mooncake).")
  Integer blockSize;

  @Option(names = "--instances-hint", paramLabel = "I",
      description = "Set the session arrival rate so that arrivals per minute per instance are about "
          + "requests_per_instance_minute (default when --rate is absent: 32 instances).")
  Integer instancesHint;

  @Option(names = "--rate", paramLabel = "SESSIONS_PER_S",
      description = "Root-session arrival rate per second (Poisson); excludes --instances-hint.")
  Double rate;

  @Option(names = "--set", paramLabel = "KEY=VALUE",
      description = "Override a preset parameter (repeatable); see --list-params.")
  List<String> sets = new ArrayList<>();

  @Option(names = "--list-params", description = "Print the preset's parameters (after --set) with ranges and meaning, then exit.")
  boolean listParams;

  @Option(names = "--overwrite", description = "Replace an existing output file.")
  boolean overwrite;

  @Option(names = "--debug", description = "Print stack traces of errors.")
  boolean debug;

  static final int DEFAULT_INSTANCES = 32;

  @Override
  public Integer call() throws Exception {
    PrintWriter o = spec.commandLine().getOut();
    Preset p = Preset.byName(preset);
    if (p == null) throw new UsageException("--preset: unknown '" + preset + "' (agent, chat, single-shot)");
    GeneratorConfig cfg = p.config();
    for (String s : sets) cfg = cfg.with(s);
    cfg.validate();
    if (listParams) {
      o.printf(Locale.ROOT, "# preset %s%n", p.cliName());
      for (Param q : Param.values()) {
        o.printf(Locale.ROOT, "%-32s %-12s %-22s %s%n", q.key(), format(cfg, q), q.range(), q.doc());
      }
      o.flush();
      return 0;
    }
    OutputFormat f = OutputFormat.byName(format);
    if (f == null) throw new UsageException("--format: unknown '" + format + "' (smetric, bailian, mooncake)");
    if (requests == null) throw new UsageException("--requests is required");
    if (requests < 1) throw new UsageException("--requests must be >= 1, got " + requests);
    if (out == null) throw new UsageException("--out is required");
    int b = blockSize == null ? f.defaultBlockSize() : blockSize;
    if (b < 1) throw new UsageException("--block-size must be >= 1, got " + b);
    if (rate != null && instancesHint != null) throw new UsageException("--rate and --instances-hint exclude each other");
    double sessionRate;
    if (rate != null) {
      if (!(rate > 0) || rate.isInfinite()) throw new UsageException("--rate must be > 0, got " + rate);
      sessionRate = rate;
    } else {
      int inst = instancesHint == null ? DEFAULT_INSTANCES : instancesHint;
      if (inst < 1) throw new UsageException("--instances-hint must be >= 1, got " + inst);
      sessionRate = inst * cfg.get(Param.REQUESTS_PER_INSTANCE_MINUTE) / 60.0 / cfg.expectedRequestsPerRootSession();
    }
    long t0 = System.nanoTime();
    WorkloadGenerator g = new WorkloadGenerator(cfg, seed, b, sessionRate);
    WorkloadGenerator.Stats st = TraceGeneration.write(g, requests, f, out, overwrite);
    double secs = (System.nanoTime() - t0) / 1e9;
    o.printf(Locale.ROOT, "wrote %s (%s, preset %s, seed %d, block size %d, %.4f sessions/s)%n", out, f.cliName(),
        p.cliName(), seed, b, sessionRate);
    o.printf(Locale.ROOT, "truth %s%n", TraceGeneration.truthPathFor(out));
    o.printf(Locale.ROOT,
        "%d requests, %d sessions (%d sub-agent), %d compactions, span %.1f s, mean input %.0f tokens, "
            + "mean output %.0f tokens, %d block ids (%d distinct), %.1f s%n",
        st.requests, st.sessions, st.forkSessions, st.compactions, st.lastArrivalS,
        (double) st.inputTokens / st.requests, (double) st.outputTokens / st.requests, st.blockIds, st.blocks, secs);
    o.flush();
    return 0;
  }

  private static String format(GeneratorConfig cfg, Param q) {
    double v = cfg.get(q);
    return q.isInteger() ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
  }
}
