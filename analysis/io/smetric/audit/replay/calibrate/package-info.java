/**
 * Real measurements for calibrating and validating the replay: the records they are read into
 * ({@link io.smetric.audit.replay.calibrate.Measurement} and its parts), readers for the formats
 * users have ({@link io.smetric.audit.replay.calibrate.MeasurementReader}: single-request tables,
 * {@code vllm bench serve} results, inference-perf stage reports, GuideLLM reports, per-step timing
 * tables, and the project's own normalised set), and workload synthesis
 * ({@link io.smetric.audit.replay.calibrate.WorkloadSpec}) so that a measured run can be replayed
 * with the same arrivals, lengths and prefix sharing; the fit, its validation record (fit,
 * leave-one-out and held-out checks apart) and the regime the runs were in
 * ({@link io.smetric.audit.replay.calibrate.MeasurementRegime}); and the same fit on a recorded
 * trace of the user's own cluster, an earlier time slice fitted and the last one held out
 * ({@link io.smetric.audit.replay.TraceCalibration}). Sources and formats: docs/validation.md.
 */
package io.smetric.audit.replay.calibrate;
