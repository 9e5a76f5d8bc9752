/**
 * Sweeps: the grid of simulations (policies x global ratios x rates x SMetric thresholds) and its
 * runners, sequential or one Spark task per simulation with the trace read from an Arrow IPC folder
 * once per executor JVM; the audit plan and its adaptive rounds, and the progress estimate of a
 * running sweep ({@link io.smetric.audit.replay.sweep.SweepProgress}); the capacity search, the
 * instances a router needs at the trace's own pace ({@link io.smetric.audit.replay.sweep.Capacity},
 * {@link io.smetric.audit.replay.sweep.CapacitySearch}).
 */
package io.smetric.audit.replay.sweep;
