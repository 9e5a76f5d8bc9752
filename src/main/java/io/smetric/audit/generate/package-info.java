/**
 * The synthetic workload generator ({@code smetric-audit generate}): a seeded, streaming
 * discrete-event model of coding-agent sessions (shared framework system prompts, Poisson session
 * arrivals, heavy-tailed turns, tool-triggered follow-ups that append to the prompt, history
 * compaction, sub-agent forks) and two controls (chat, single-shot), written as smetric, Bailian
 * or Mooncake JSONL with a ground-truth side file. Parameters, formats and the statistics each
 * preset is meant to hit are documented in docs/generator.md.
 *
 * <p>Not a pipeline stage: it makes input for the pipeline. It imports only the hub, and only the
 * CLI imports it (ArchitectureTest); it lives in src/main/java beside the hub, not in ingest/.
 */
package io.smetric.audit.generate;
