package io.smetric.audit.generate;

import java.util.Locale;

/**
 * Every tunable of the workload model, with its valid range and a one-line meaning. Defaults live
 * in {@link Preset}; docs/generator.md gives each default and the reason for it. Token counts are
 * model tokens; times are seconds; "lognormal(median, sigma)" draws are rounded and clamped to
 * [1, the matching {@code _max}].
 */
public enum Param {
  // --- arrivals ---
  REQUESTS_PER_INSTANCE_MINUTE("requests_per_instance_minute", false, 0.001, 1e6,
      "with --instances-hint: target arrivals per minute per instance (paper: 43 and 48); sets the session rate"),
  WARMUP_S("warmup_s", false, 0, 1e7,
      "the model runs this long before the trace window opens, so the window starts in steady state "
          + "(sessions in flight, request rate at its level); requests before the window are not written"),
  // --- frameworks (agent products / chat apps) and their shared system prompts ---
  FRAMEWORKS("frameworks", true, 0, 1000,
      "number of frameworks; each has one fixed system prompt shared by all its sessions (0 = none)"),
  FRAMEWORK_ZIPF("framework_zipf", false, 0, 10,
      "framework popularity: framework k (0-based) is chosen with weight 1/(k+1)^s"),
  SYSTEM_PROMPT_TOKENS("system_prompt_tokens", true, 0, 1_000_000,
      "mean system prompt length over frameworks"),
  SYSTEM_PROMPT_SPREAD("system_prompt_spread", false, 0, 1.99,
      "framework k of K gets mean*(1 + spread*(k/(K-1) - 1/2)) tokens (evenly spread, no randomness)"),
  // --- auxiliary one-shot calls (titles, summaries, commit messages, classifiers) ---
  AUX_PROB("aux_prob", false, 0, 1,
      "share of root sessions that are single-request auxiliary calls of a framework (short prompt, no follow-ups)"),
  AUX_SYSTEM_PROMPT_TOKENS("aux_system_prompt_tokens", true, 0, 1_000_000,
      "each framework's fixed prompt for auxiliary calls (shared by its auxiliary calls)"),
  AUX_TOKENS_MEDIAN("aux_tokens_median", true, 1, 1_000_000, "unique text of an auxiliary call: lognormal median"),
  AUX_TOKENS_SIGMA("aux_tokens_sigma", false, 0, 5, "lognormal sigma of an auxiliary call's text"),
  // --- first request of a root session ---
  TASK_TOKENS_MEDIAN("task_tokens_median", true, 1, 1_000_000,
      "session-specific text after the system prompt in turn 0 (task, environment, opened files): lognormal median"),
  TASK_TOKENS_SIGMA("task_tokens_sigma", false, 0, 5, "lognormal sigma of the task text"),
  TASK_TOKENS_MAX("task_tokens_max", true, 1, 10_000_000, "cap of the task text"),
  // --- session length ---
  TURNS_ALPHA("turns_alpha", false, 0.05, 20,
      "requests per root session: floor of Pareto(1, alpha), so P(turns >= t) = t^-alpha"),
  MAX_TURNS("max_turns", true, 1, 1_000_000, "cap of requests per root session"),
  // --- follow-ups ---
  TOOL_PROB("tool_prob", false, 0, 1,
      "probability that a follow-up is triggered by a tool result (else by the user)"),
  OUTPUT_TOKENS_MEDIAN("output_tokens_median", true, 1, 1_000_000, "response length: lognormal median"),
  OUTPUT_TOKENS_SIGMA("output_tokens_sigma", false, 0, 5, "lognormal sigma of the response length"),
  OUTPUT_TOKENS_MAX("output_tokens_max", true, 1, 10_000_000, "cap of the response length"),
  TOOL_OUTPUT_TOKENS_MEDIAN("tool_output_tokens_median", true, 1, 1_000_000,
      "tool result appended to a tool-triggered follow-up: lognormal median"),
  TOOL_OUTPUT_TOKENS_SIGMA("tool_output_tokens_sigma", false, 0, 5, "lognormal sigma of tool results"),
  TOOL_OUTPUT_TOKENS_MAX("tool_output_tokens_max", true, 1, 10_000_000, "cap of a tool result"),
  USER_MESSAGE_TOKENS_MEDIAN("user_message_tokens_median", true, 1, 1_000_000,
      "user message appended to a user-triggered follow-up: lognormal median"),
  USER_MESSAGE_TOKENS_SIGMA("user_message_tokens_sigma", false, 0, 5, "lognormal sigma of user messages"),
  USER_MESSAGE_TOKENS_MAX("user_message_tokens_max", true, 1, 10_000_000, "cap of a user message"),
  // --- timing: a follow-up arrives at parent arrival + response time + tool/user delay ---
  TTFT_S("ttft_s", false, 0, 3600, "fixed part of a response's duration (queueing and prefill)"),
  DECODE_TPS("decode_tps", false, 0.001, 1e9, "decode speed: response duration = ttft_s + output_tokens/decode_tps"),
  TOOL_TIME_MEDIAN_S("tool_time_median_s", false, 0, 1e6, "tool execution time: lognormal median"),
  TOOL_TIME_SIGMA("tool_time_sigma", false, 0, 5, "lognormal sigma of tool execution time"),
  TOOL_APPROVAL_PROB("tool_approval_prob", false, 0, 1,
      "probability that a tool call waits for a human approval before it runs"),
  APPROVAL_TIME_MEDIAN_S("approval_time_median_s", false, 0, 1e6, "approval wait: lognormal median"),
  APPROVAL_TIME_SIGMA("approval_time_sigma", false, 0, 5, "lognormal sigma of the approval wait"),
  USER_THINK_MEDIAN_S("user_think_median_s", false, 0, 1e7,
      "time a user takes to read and answer before a user-triggered follow-up: lognormal median"),
  USER_THINK_SIGMA("user_think_sigma", false, 0, 5, "lognormal sigma of the user's think time"),
  // --- history compaction ---
  COMPACT_PROB("compact_prob", false, 0, 1,
      "probability per follow-up that the agent compacts its history into a summary"),
  CONTEXT_LIMIT_TOKENS("context_limit_tokens", true, 1, 100_000_000,
      "a follow-up whose prompt would exceed this is compacted instead (auto-compaction)"),
  COMPACT_SUMMARY_TOKENS_MEDIAN("compact_summary_tokens_median", true, 1, 1_000_000,
      "summary that replaces the history after compaction: lognormal median"),
  COMPACT_SUMMARY_TOKENS_SIGMA("compact_summary_tokens_sigma", false, 0, 5, "lognormal sigma of the summary"),
  // --- sub-agent forks ---
  FORK_PROB("fork_prob", false, 0, 1,
      "probability per follow-up point (a request that is not its session's last) that the response spawns sub-agents"),
  FORK_PARALLEL_PROB("fork_parallel_prob", false, 0, 1,
      "probability that a spawn starts several sub-agents at once (else exactly one)"),
  FORK_PARALLEL_MAX("fork_parallel_max", true, 2, 64, "a parallel spawn starts uniform 2..max sub-agents"),
  FORK_FULL_CONTEXT_PROB("fork_full_context_prob", false, 0, 1,
      "probability that a sub-agent inherits the parent's whole prompt (else a uniform cut after the system prompt)"),
  FORK_INSTRUCTION_TOKENS_MEDIAN("fork_instruction_tokens_median", true, 1, 1_000_000,
      "instruction appended after the inherited context in a sub-agent's turn 0: lognormal median"),
  FORK_INSTRUCTION_TOKENS_SIGMA("fork_instruction_tokens_sigma", false, 0, 5, "lognormal sigma of the instruction"),
  FORK_TURNS_ALPHA("fork_turns_alpha", false, 0.05, 20, "requests per sub-agent session: discrete Pareto alpha"),
  FORK_MAX_TURNS("fork_max_turns", true, 1, 1_000_000, "cap of requests per sub-agent session"),
  MAX_FORK_DEPTH("max_fork_depth", true, 0, 16, "sub-agents of depth >= this never spawn (1: no nested sub-agents)"),
  FORK_SPAWN_DELAY_S("fork_spawn_delay_s", false, 0, 1e6, "from the end of the spawning response to the sub-agent's turn 0"),
  FORK_JOIN_DELAY_S("fork_join_delay_s", false, 0, 1e6,
      "from the end of the last sub-agent to the parent's next request (its tool result is the sub-agents' answers)"),
  // --- request type (emitted only by the bailian format) ---
  TYPE_SEARCH_PROB("type_search_prob", false, 0, 1, "probability that a request's type is 'search'"),
  TYPE_IMAGE_PROB("type_image_prob", false, 0, 1, "probability that a request's type is 'image'"),
  TYPE_FILE_PROB("type_file_prob", false, 0, 1, "probability that a request's type is 'file'");

  final String key;
  final boolean integer;
  final double min;
  final double max;
  final String doc;

  Param(String key, boolean integer, double min, double max, String doc) {
    this.key = key;
    this.integer = integer;
    this.min = min;
    this.max = max;
    this.doc = doc;
  }

  public String key() {
    return key;
  }

  public boolean isInteger() {
    return integer;
  }

  public String doc() {
    return doc;
  }

  public static Param byKey(String key) {
    for (Param p : values()) if (p.key.equals(key)) return p;
    return null;
  }

  /** The valid range as text, for error messages and --list-params. */
  public String range() {
    return "[" + fmt(min) + ", " + fmt(max) + "]";
  }

  String fmt(double v) {
    if (integer || v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
    return String.format(Locale.ROOT, "%s", v);
  }
}
