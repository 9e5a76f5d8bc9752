/**
 * Session inference for traces without session fields (docs/trace-model.md section 6, rule in
 * docs/session-inference.md): three streaming passes over the arrival-ordered trace, each with
 * memory bounded by a time window rather than by the trace. {@link PrefixLinker} finds each
 * request's parent by prefix continuation (with a template-block test and a fork test),
 * {@link ContinuationChooser} picks which child of a request continues its session (the one
 * whose subtree stays active longest: a session that spawned sub-agents resumes after they
 * return), {@link SessionBuilder} assigns sessions and turns. {@link SessionInference} is the
 * Spark job around them; {@link InferenceAccuracy} scores a result against a generator's truth
 * file, next to the naive "longest shared prefix" baseline.
 */
package io.smetric.audit.infer;
