/**
 * The synthetic workload generator ({@code smetric-audit generate}): a seeded, streaming
 * discrete-event model of coding-agent sessions (shared framework system prompts, Poisson session
 * arrivals, heavy-tailed turns, tool-triggered follow-ups that append to the prompt, history
 * compaction, sub-agent forks) and two controls (chat, single-shot), written as smetric, Bailian
 * or Mooncake JSONL with a ground-truth side file. Parameters, formats and the statistics each
 * preset is meant to hit are documented in docs/generator.md.
 */
package io.smetric.audit.generate;
