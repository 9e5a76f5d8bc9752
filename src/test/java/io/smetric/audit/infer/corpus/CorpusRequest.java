package io.smetric.audit.infer.corpus;

/**
 * One emitted request of a corpus member: what a Mooncake-format line shows (timestamp in ms,
 * lengths, block ids) and the ground truth that line does not show. {@link #contentClass} is filled
 * by {@link Revealability} from the emitted trace alone (plus the truth's parents and families).
 */
public final class CorpusRequest {
  public int line;
  public long timestampMs;
  public int inputTokens;
  public int outputTokens;
  /** Block ids, sequential in order of first appearance; equal id at position i = equal prefix. */
  public int[] hashIds;

  public String session;
  /** Line of the true parent, -1 for none in the trace. */
  public int parentLine = -1;
  public int turn;
  public String trigger;
  /** The session tree (root session and every sub-agent under it), also across the trace start. */
  public String family;
  /** Why this request exists (its link's cause): see {@link LinkClass}. */
  public String linkClass;
  /** Turn 0 of a sub-agent session. */
  public boolean fork;
  /** The prompt rewrote history that its parent's prompt had (compaction, sliding window, truncation). */
  public boolean compacted;
  /** What content can reveal about this request's link: see {@link Revealability}. */
  public String contentClass;
}
