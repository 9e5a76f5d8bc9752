/**
 * The hub: what the stages agree on, and all they share besides the helpers in {@code common}
 * (docs/architecture.md). The canonical request record and its Spark schema (docs/trace-model.md
 * section 1), the prefix-chaining of block ids, the names of the files and folders through which
 * stages meet ({@link io.smetric.audit.contract.AuditLayout}), and the names of the result tables
 * and columns one stage writes and another reads (the characterization's tables and columns, the
 * measured-cache table's columns, the replay's tables in {@code ReplayTables}), and the typed stage
 * outputs written and read through one serde ({@code Metric}, {@code IngestSummary}). Every stage
 * imports this package; it imports no stage (ArchitectureTest).
 */
package io.smetric.audit.contract;
