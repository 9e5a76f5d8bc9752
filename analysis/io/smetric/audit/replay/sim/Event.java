package io.smetric.audit.replay.sim;

/**
 * The simulator's event types, as the ints {@link EventQueue} carries (no boxing, no allocation
 * per event). Each names what its two int arguments hold.
 */
final class Event {
  private Event() {}

  /** An instance's scheduled step(s) end: a = instance, b = step generation (older ones are stale). */
  static final int STEP_END = 0;
  /** The next fetch on the global-tier links may complete: b = the link model's version (older ones are stale). */
  static final int LINK = 1;
  /** A fetch's bytes have landed and its lookup latency passed: a = instance, b = request. */
  static final int FETCH_DONE = 2;
  /** A follow-up whose previous request has just finished is sent (closed loop): a = request. */
  static final int RELEASE = 3;
  /**
   * Closed loop with an agent timeout: the response of request a is not complete the agent timeout
   * after it was sent; the agent stops waiting for it (its waiters are sent).
   */
  static final int TIMEOUT = 5;
  /** A sent request reaches the engine's scheduler (after the profile's frontend latency): a = request. */
  static final int ENGINE_ARRIVE = 6;
  /** ReplaySettings.requestTimeoutS after request a was sent: the client aborts it if not complete. */
  static final int ABORT = 7;
}
