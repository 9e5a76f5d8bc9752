package io.smetric.audit.replay.trace;

import org.apache.hadoop.conf.Configuration;

/**
 * The executor-side copy of a sweep's trace: the first task of a sweep on an executor JVM reads
 * the {@link TraceFile} folder, the others (concurrent or later) share that one instance. Only
 * one trace is held at a time (a later sweep of another trace replaces it), and the driver
 * {@link #evict evicts} it when its sweep is over (in local mode the driver JVM is the executor).
 */
public final class TraceCache {
  private static String path;
  private static ReplayTrace trace;

  private TraceCache() {}

  public static synchronized ReplayTrace get(String dir, Configuration conf) {
    if (trace == null || !dir.equals(path)) {
      trace = null; // let the old one go before reading the new one
      path = null;
      trace = TraceFile.read(dir, conf);
      path = dir;
    }
    return trace;
  }

  public static synchronized void evict(String dir) {
    if (dir.equals(path)) {
      trace = null;
      path = null;
    }
  }
}
