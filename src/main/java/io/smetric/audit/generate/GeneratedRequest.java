package io.smetric.audit.generate;

import java.util.Arrays;

/**
 * One generated request with its ground truth, handed to a {@link RequestSink}. The generator
 * reuses one instance (and the session's id buffers) for every request: a sink must copy what it
 * keeps, e.g. with {@link #ids()}.
 */
public final class GeneratedRequest {
  public static final String USER = "user";
  public static final String TOOL = "tool";
  public static final String SUBAGENT = "subagent";

  /** 0-based position in arrival order; also the request's id ({@code r<line>}). */
  long line;
  /** 0-based session number, in order of the session's first request ({@code s<n>}). */
  long session;
  /** Line of the request this one continues, or -1 (a root session's turn 0). */
  long parentLine;
  int turn;
  String trigger;
  double arrivalS;
  int inputTokens;
  int outputTokens;
  int blockSize;
  /** Framework (shared system prompt) index, or -1 when the preset has none. */
  int framework;
  /** text, search, image or file (emitted only by the bailian format). */
  String type;
  /** The session is a single-request auxiliary call (its prompt starts with the framework's auxiliary prompt). */
  boolean aux;
  /** The session is a sub-agent forked from another session's request. */
  boolean fork;
  /** The prompt replaced the history by a summary: it shares only the system prompt with its parent. */
  boolean compacted;
  IdList blocks;

  public long line() { return line; }

  public long session() { return session; }

  public long parentLine() { return parentLine; }

  public int turn() { return turn; }

  public String trigger() { return trigger; }

  public double arrivalS() { return arrivalS; }

  public int inputTokens() { return inputTokens; }

  public int outputTokens() { return outputTokens; }

  public int blockSize() { return blockSize; }

  public int framework() { return framework; }

  public String type() { return type; }

  public boolean fork() { return fork; }

  public boolean aux() { return aux; }

  public boolean compacted() { return compacted; }

  public int blockCount() { return blocks.count; }

  /** A copy of the per-block source ids. */
  public long[] ids() {
    return Arrays.copyOf(blocks.ids, blocks.count);
  }
}
