package io.smetric.audit.generate;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The three workloads of docs/generator.md. {@code agent} models coding agents as the SMetric
 * paper (arXiv 2607.08565, section 2.1) characterises its two production traces; {@code chat} and
 * {@code single-shot} are the controls where session-first routing should not pay. Each preset is
 * a complete set of {@link Param} values; the reasons for every default are in
 * docs/generator.md, next to the statistics each preset is meant to hit.
 */
public enum Preset {
  AGENT("agent"),
  CHAT("chat"),
  SINGLE_SHOT("single-shot");

  private final String cliName;

  Preset(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  public static Preset byName(String name) {
    for (Preset p : values()) if (p.cliName.equals(name.toLowerCase(Locale.ROOT))) return p;
    return null;
  }

  /** This preset's complete parameter set. */
  public GeneratorConfig config() {
    Map<Param, Double> v = new EnumMap<>(Param.class);
    common(v);
    switch (this) {
      case AGENT -> agent(v);
      case CHAT -> chat(v);
      case SINGLE_SHOT -> singleShot(v);
    }
    return new GeneratorConfig(this, v);
  }

  private static void common(Map<Param, Double> v) {
    v.put(Param.REQUESTS_PER_INSTANCE_MINUTE, 45.0);
    v.put(Param.WARMUP_S, 3600.0);
    v.put(Param.FRAMEWORK_ZIPF, 1.0);
    v.put(Param.SYSTEM_PROMPT_SPREAD, 0.6);
    v.put(Param.AUX_PROB, 0.0);
    v.put(Param.AUX_SYSTEM_PROMPT_TOKENS, 600.0);
    v.put(Param.AUX_TOKENS_MEDIAN, 800.0);
    v.put(Param.AUX_TOKENS_SIGMA, 1.0);
    v.put(Param.TASK_TOKENS_SIGMA, 1.0);
    v.put(Param.OUTPUT_TOKENS_MAX, 8192.0);
    v.put(Param.TOOL_OUTPUT_TOKENS_MEDIAN, 900.0);
    v.put(Param.TOOL_OUTPUT_TOKENS_SIGMA, 1.3);
    v.put(Param.TOOL_OUTPUT_TOKENS_MAX, 25_000.0);
    v.put(Param.USER_MESSAGE_TOKENS_MEDIAN, 80.0);
    v.put(Param.USER_MESSAGE_TOKENS_SIGMA, 1.0);
    v.put(Param.USER_MESSAGE_TOKENS_MAX, 4000.0);
    v.put(Param.TTFT_S, 0.6);
    v.put(Param.DECODE_TPS, 50.0);
    v.put(Param.TOOL_TIME_MEDIAN_S, 1.5);
    v.put(Param.TOOL_TIME_SIGMA, 1.2);
    v.put(Param.TOOL_APPROVAL_PROB, 0.0);
    v.put(Param.APPROVAL_TIME_MEDIAN_S, 20.0);
    v.put(Param.APPROVAL_TIME_SIGMA, 1.2);
    v.put(Param.USER_THINK_MEDIAN_S, 60.0);
    v.put(Param.USER_THINK_SIGMA, 1.0);
    v.put(Param.COMPACT_PROB, 0.0);
    v.put(Param.CONTEXT_LIMIT_TOKENS, 128_000.0);
    v.put(Param.COMPACT_SUMMARY_TOKENS_MEDIAN, 3000.0);
    v.put(Param.COMPACT_SUMMARY_TOKENS_SIGMA, 0.5);
    v.put(Param.FORK_PROB, 0.0);
    v.put(Param.FORK_PARALLEL_PROB, 0.2);
    v.put(Param.FORK_PARALLEL_MAX, 3.0);
    v.put(Param.FORK_FULL_CONTEXT_PROB, 0.5);
    v.put(Param.FORK_INSTRUCTION_TOKENS_MEDIAN, 400.0);
    v.put(Param.FORK_INSTRUCTION_TOKENS_SIGMA, 0.8);
    v.put(Param.FORK_TURNS_ALPHA, 1.5);
    v.put(Param.FORK_MAX_TURNS, 60.0);
    v.put(Param.MAX_FORK_DEPTH, 1.0);
    v.put(Param.FORK_SPAWN_DELAY_S, 0.5);
    v.put(Param.FORK_JOIN_DELAY_S, 0.5);
    v.put(Param.TYPE_SEARCH_PROB, 0.02);
    v.put(Param.TYPE_IMAGE_PROB, 0.01);
    v.put(Param.TYPE_FILE_PROB, 0.02);
  }

  private static void agent(Map<Param, Double> v) {
    v.put(Param.WARMUP_S, 28_800.0);
    v.put(Param.FRAMEWORKS, 4.0);
    v.put(Param.SYSTEM_PROMPT_TOKENS, 10_000.0);
    v.put(Param.AUX_PROB, 0.6);
    v.put(Param.TASK_TOKENS_MEDIAN, 4000.0);
    v.put(Param.TASK_TOKENS_MAX, 30_000.0);
    v.put(Param.TURNS_ALPHA, 0.9);
    v.put(Param.MAX_TURNS, 300.0);
    v.put(Param.TOOL_PROB, 0.92);
    v.put(Param.OUTPUT_TOKENS_MEDIAN, 250.0);
    v.put(Param.OUTPUT_TOKENS_SIGMA, 1.0);
    v.put(Param.TOOL_OUTPUT_TOKENS_MEDIAN, 2500.0);
    v.put(Param.TOOL_APPROVAL_PROB, 0.3);
    v.put(Param.APPROVAL_TIME_MEDIAN_S, 150.0);
    v.put(Param.APPROVAL_TIME_SIGMA, 1.0);
    v.put(Param.USER_THINK_MEDIAN_S, 300.0);
    v.put(Param.USER_THINK_SIGMA, 1.2);
    v.put(Param.COMPACT_PROB, 0.01);
    v.put(Param.CONTEXT_LIMIT_TOKENS, 40_000.0);
    v.put(Param.FORK_PROB, 0.3);
    v.put(Param.FORK_PARALLEL_PROB, 0.2);
    v.put(Param.FORK_PARALLEL_MAX, 4.0);
    v.put(Param.FORK_FULL_CONTEXT_PROB, 0.6);
  }

  private static void chat(Map<Param, Double> v) {
    v.put(Param.FRAMEWORKS, 3.0);
    v.put(Param.SYSTEM_PROMPT_TOKENS, 600.0);
    v.put(Param.TASK_TOKENS_MEDIAN, 300.0);
    v.put(Param.TASK_TOKENS_MAX, 8000.0);
    v.put(Param.TURNS_ALPHA, 2.5);
    v.put(Param.MAX_TURNS, 12.0);
    v.put(Param.TOOL_PROB, 0.0);
    v.put(Param.OUTPUT_TOKENS_MEDIAN, 350.0);
    v.put(Param.OUTPUT_TOKENS_SIGMA, 0.8);
    v.put(Param.USER_THINK_MEDIAN_S, 150.0);
    v.put(Param.CONTEXT_LIMIT_TOKENS, 32_000.0);
    v.put(Param.WARMUP_S, 1800.0);
    v.put(Param.TYPE_SEARCH_PROB, 0.05);
    v.put(Param.TYPE_IMAGE_PROB, 0.03);
    v.put(Param.TYPE_FILE_PROB, 0.03);
  }

  private static void singleShot(Map<Param, Double> v) {
    v.put(Param.FRAMEWORKS, 0.0);
    v.put(Param.SYSTEM_PROMPT_TOKENS, 0.0);
    v.put(Param.TASK_TOKENS_MEDIAN, 1500.0);
    v.put(Param.TASK_TOKENS_MAX, 32_000.0);
    v.put(Param.TURNS_ALPHA, 2.0);
    v.put(Param.MAX_TURNS, 1.0);
    v.put(Param.TOOL_PROB, 0.0);
    v.put(Param.OUTPUT_TOKENS_MEDIAN, 300.0);
    v.put(Param.OUTPUT_TOKENS_SIGMA, 0.9);
    v.put(Param.TYPE_SEARCH_PROB, 0.03);
    v.put(Param.WARMUP_S, 0.0);
  }
}
