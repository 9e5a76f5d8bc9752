package io.smetric.audit.report.verdict;

/** How much a failed criterion weighs in the verdict. */
public enum Level {
  /** A precondition of session-first routing: failing it means the routing does not fit. */
  CRITICAL,
  /** Failing it leaves a fit that holds only under a stated condition. */
  CONDITION,
  /** Reported with the evidence; never changes the verdict. */
  INFO,
  /**
   * A precondition of the replay criteria, measured at their operating point (the paper's regime,
   * enough data): failing it makes the replay criteria not applicable, with the reason, instead
   * of letting a replay outside the paper's regime decide (AuditCriteria.addReplay); or of the
   * workload criteria (enough sessions, AuditCriteria.addCharacterization).
   */
  PRECONDITION
}
