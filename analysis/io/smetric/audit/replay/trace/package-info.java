/**
 * The replay's compact in-memory trace: columnar arrays in replay order with every prompt folded
 * into a radix tree of segments (runs of blocks that arrive and age together), and its loader
 * from canonical Parquet.
 */
package io.smetric.audit.replay.trace;
