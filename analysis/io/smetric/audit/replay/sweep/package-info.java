/**
 * Sweeps: the grid of simulations (policies x global ratios x rates x SMetric thresholds) and its
 * runners, sequential or one Spark task per simulation with the trace broadcast once per executor.
 */
package io.smetric.audit.replay.sweep;
