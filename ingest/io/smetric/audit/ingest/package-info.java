/**
 * Ingest: reads SMetric-style, Bailian and Mooncake JSONL, Azure or canonical CSV and canonical
 * Parquet (plain or compressed, any Hadoop file system) into the one canonical Parquet dataset
 * every later stage reads, quarantining each bad record with its file, line, field and reason.
 */
package io.smetric.audit.ingest;
