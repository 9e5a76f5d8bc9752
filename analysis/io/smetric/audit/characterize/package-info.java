/**
 * Workload characterization (docs/trace-model.md sections 2-5 and 7, docs/characterization.md):
 * ideal prefix reuse and where it comes from, reuse intervals, session structure, request/instance
 * ratio. Each Spark job is a small class with options, {@code execute()} under a named job group
 * and an immutable result; {@link io.smetric.audit.characterize.Characterization} runs them all
 * and {@code CharacterizationJson} assembles characterization.json, whose metrics that a trace cannot support are
 * {@link io.smetric.audit.contract.Metric} values carrying the reason instead of a number.
 */
package io.smetric.audit.characterize;
