/**
 * Sweeps: the grid of simulations (policies x global ratios x rates x SMetric thresholds) and its
 * runners, sequential or one Spark task per simulation with the trace read from an Arrow IPC folder
 * once per executor JVM; the audit plan and its adaptive rounds, and the progress estimate of a
 * running sweep ({@link io.smetric.audit.replay.sweep.SweepProgress}).
 */
package io.smetric.audit.replay.sweep;
