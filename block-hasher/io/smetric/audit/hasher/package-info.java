/**
 * The block-hasher: turns a provider's raw chat and agent logs (OpenAI chat-completions requests
 * and gateway payloads, ShareGPT conversations, SWE-agent and mini-SWE-agent trajectories, Claude
 * Code and Codex CLI session logs, OpenTelemetry GenAI spans, records with a message list under
 * any key such as tau-bench's results) into the canonical hashed trace
 * without any text leaving the machine. One reader class per log format, registered in the
 * {@link io.smetric.audit.hasher.LogFormat} enum by constructor. A chat template renders each
 * prompt, a real tokenizer (jtokkit o200k/cl100k, or a Hugging Face tokenizer.json through DJL)
 * tokenises it message by message, and 16-token blocks get chained SipHash-2-4 ids under a secret
 * salt; see docs/block-hasher.md.
 */
package io.smetric.audit.hasher;
