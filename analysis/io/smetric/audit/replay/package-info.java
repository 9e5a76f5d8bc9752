/**
 * Policy replay: a discrete-event cluster simulator that scores SMetric (arXiv 2607.08565,
 * Figure 13) against today's routing policies on a canonical trace. {@link
 * io.smetric.audit.replay.ReplaySettings} is the commented reference configuration, {@link
 * io.smetric.audit.replay.ModelProfile} the step-time cost model, {@link
 * io.smetric.audit.replay.ReplayJob} the action that runs a sweep, {@code ReplayPlanning} what
 * the sweep simulates round by round (package-private), {@link io.smetric.audit.replay.ReplayWriter}
 * what writes its tables and replay.json.
 */
package io.smetric.audit.replay;
