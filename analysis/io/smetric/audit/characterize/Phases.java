package io.smetric.audit.characterize;

/**
 * Wall time per phase of a characterization, printed to stderr when the system property
 * {@code smetric.phases} is set (what docs/benchmarks.md's breakdowns come from); otherwise nothing.
 */
public final class Phases {
  private Phases() {}

  private static final boolean ON = System.getProperty("smetric.phases") != null;
  private static long last = System.nanoTime();

  /** Prints the time since the previous mark (or since this class loaded) under {@code what}. */
  public static synchronized void mark(String what) {
    if (!ON) return;
    long now = System.nanoTime();
    System.err.printf("phase %-24s %8.3f s (JVM up %.3f s)%n", what, (now - last) / 1e9,
        java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
    last = now;
  }
}
