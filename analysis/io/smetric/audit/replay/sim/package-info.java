/**
 * The discrete-event simulator: routing at arrival, continuous batching with chunked prefill per
 * instance, the global-tier link, and the metrics of one run.
 */
package io.smetric.audit.replay.sim;
