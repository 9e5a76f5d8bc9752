package io.smetric.audit.cli;

import io.smetric.audit.characterize.Characterization;
import io.smetric.audit.common.UsageException;
import picocli.CommandLine.Option;

/**
 * The characterization's options {@code analyze} and {@code audit} share (a picocli mixin), with
 * their defaults defined here once: the template threshold of the reuse-source split and the
 * reuse-interval threshold (docs/characterization.md; 100 s is the paper's, Observation 4).
 */
public final class CharacterizationOptions {
  static final int DEFAULT_TEMPLATE_MIN_SESSIONS = 3;
  static final double DEFAULT_INTERVAL_THRESHOLD_S = 100;

  @Option(names = "--template-min-sessions", paramLabel = "K", defaultValue = "" + DEFAULT_TEMPLATE_MIN_SESSIONS,
      description = "Characterization: a block is a system-prompt (template) block when it occurs in the turn-0 requests "
          + "of at least K root sessions (default: ${DEFAULT-VALUE}).")
  int templateMinSessions;

  @Option(names = "--interval-threshold", paramLabel = "SECONDS", defaultValue = "" + DEFAULT_INTERVAL_THRESHOLD_S,
      description = "Characterization: the reuse-interval threshold, for the share of reuse within it (default: "
          + "${DEFAULT-VALUE} s, the paper's).")
  double intervalThreshold;

  /** The characterization's options for a cluster of {@code instances}. */
  Characterization.Options options(int instances) {
    return new Characterization.Options(instances, templateMinSessions, intervalThreshold);
  }

  void validate() {
    if (templateMinSessions < 1) throw new UsageException("--template-min-sessions must be >= 1, got " + templateMinSessions);
    if (!(intervalThreshold >= 0)) throw new UsageException("--interval-threshold must be >= 0, got " + intervalThreshold);
  }
}
