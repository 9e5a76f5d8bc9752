package io.smetric.audit.infer.corpus;

/** The truth's {@code link_class}: why a request has (or lacks) its parent. */
public final class LinkClass {
  private LinkClass() {}

  /** Turn 0 of a root session: no parent. */
  public static final String ROOT = "root";
  /** The session's next turn: history kept (response echoed in full or in part) + tool or user message. */
  public static final String CONTINUATION = "continuation";
  /** The spawner's next turn after its synchronous sub-agents returned (results as tool output). */
  public static final String JOIN = "join";
  /** Sub-agent turn 0 that inherits the spawner's whole prompt and the spawning call, + instruction. */
  public static final String FORK_WITH_CALL = "fork_with_call";
  /** Sub-agent turn 0 that inherits the spawner's whole prompt (not the call), + instruction. */
  public static final String FORK_FULL = "fork_full";
  /** Sub-agent turn 0 that inherits the spawner's template and its first m messages (any m), + instruction. */
  public static final String FORK_CUT = "fork_cut";
  /** Sub-agent turn 0 with its own sub-agent template + instruction: shares no history. */
  public static final String FORK_FRESH = "fork_fresh";
  /** Template + summary: the history is replaced. */
  public static final String COMPACTION = "compaction";
  /** Template + task (first message) + summary. */
  public static final String COMPACTION_KEEP_TASK = "compaction_keep_task";
  /** Template (+ task if pinned) + the most recent messages only. */
  public static final String SLIDING_WINDOW = "sliding_window";
  /** Old tool outputs replaced by placeholders; the rest of the history kept. */
  public static final String HISTORY_EDIT = "history_edit";
  /** The true parent was sent before the trace starts: seen mid-session, no parent in the trace. */
  public static final String MID_TRACE_START = "mid_trace_start";
}
