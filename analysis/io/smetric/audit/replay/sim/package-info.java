/**
 * The discrete-event simulator: the step scheduler ({@code Simulator}: routing at arrival,
 * continuous batching with chunked prefill per instance), the arrival model ({@code Arrivals}: open
 * or closed loop), the global-tier read path ({@code GlobalLinks}), and the metrics of one run
 * ({@code SimOutcome}).
 */
package io.smetric.audit.replay.sim;
