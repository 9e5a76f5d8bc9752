package io.smetric.audit.replay.policy;

/** Trace properties a policy needs (Caffeine's simulator calls them characteristics). */
public enum Need {
  /** Prompt block hashes (any cache-aware scoring). */
  BLOCKS,
  /** Session ids. */
  SESSIONS,
  /** Turn numbers (SMetric's turn > 0 test). */
  TURNS
}
