/**
 * The discrete-event simulator: the step scheduler ({@code Simulator}: routing at arrival,
 * continuous batching with chunked prefill per instance), the arrival model ({@code Arrivals}: open
 * or closed loop), the global-tier read path ({@code GlobalLinks}), and the metrics of one run
 * ({@code SimOutcome}). The scheduler's collaborators: what a policy sees when it routes
 * ({@code RoutingView}), the imbalance load accounting ({@code LoadWindows}), when decoding
 * sequences take KV blocks ({@code DecodeBlocks}) and when decode-only steps end
 * ({@code DecodeStretches}).
 */
package io.smetric.audit.replay.sim;
