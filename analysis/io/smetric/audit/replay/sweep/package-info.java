/**
 * Sweeps: the grid of simulations (policies x global ratios x rates x SMetric thresholds) and its
 * runners, sequential or one Spark task per simulation with the trace read from an Arrow IPC folder
 * once per executor JVM.
 */
package io.smetric.audit.replay.sweep;
