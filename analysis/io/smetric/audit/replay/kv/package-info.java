/**
 * KV tiers of the simulated cluster (local HBM per instance, global store): the fast segment-level
 * LRU and the block-by-block reference LRU it must match exactly.
 */
package io.smetric.audit.replay.kv;
