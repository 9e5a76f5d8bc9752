/**
 * The block-hasher: turns a provider's raw chat logs (OpenAI chat-completions requests, ShareGPT
 * conversations, SWE-agent trajectories) into the canonical hashed trace without any text leaving
 * the machine. A chat template renders each prompt, a real tokenizer (jtokkit o200k/cl100k, or a
 * Hugging Face tokenizer.json through DJL) tokenises it message by message, and 16-token blocks get
 * chained SipHash-2-4 ids under a secret salt; see docs/block-hasher.md.
 */
package io.smetric.audit.hasher;
