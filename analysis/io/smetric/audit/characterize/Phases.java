package io.smetric.audit.characterize;

/**
 * Wall time per phase of a characterization, printed to stderr when the system property
 * {@code smetric.phases} is set (what docs/lab/benchmarks.md's breakdowns come from); otherwise nothing.
 */
public final class Phases {
  private Phases() {}

  private static final boolean ON = System.getProperty("smetric.phases") != null;
  private static long last = System.nanoTime();
  private static long lastCpu;

  /** Prints the time since the previous mark (or since this class loaded) under {@code what}. */
  public static synchronized void mark(String what) {
    if (!ON) return;
    long now = System.nanoTime();
    long cpu = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
    System.err.printf("phase %-24s %8.3f s wall, %8.3f s process CPU (JVM up %.3f s, CPU %.3f s)%n", what,
        (now - last) / 1e9, (cpu - lastCpu) / 1e9,
        java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1e3, cpu / 1e9);
    last = now;
    lastCpu = cpu;
  }

  /** Prints the CPU time of the calling thread under {@code what}. */
  public static void threadCpu(String what) {
    if (!ON) return;
    System.err.printf("thread %-23s %8.3f s CPU%n", what,
        java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e9);
  }
}
