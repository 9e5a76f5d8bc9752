/**
 * Reports: {@link io.smetric.audit.report.ReportJob} judges an audit folder and writes its
 * self-contained index.html (inline style, no script, no network), the XChart PNG charts beside
 * it and audit.json; {@link io.smetric.audit.report.CompareReport} sets several audits side by
 * side. One class per job: reading the stage outputs (StageOutputs), judging (AuditJudge), one
 * class per chart family, building audit.json (AuditJson), laying out the page (AuditPage).
 * Everything is read and written through Hadoop FileSystem, so an audit may live on any file
 * system Spark can reach (docs/report.md). A stage like the others: it finds the stage outputs
 * by the names in the contract (AuditLayout, CharacterizationTables, Cols, MeasuredCacheCols)
 * and imports no other stage (ArchitectureTest).
 */
package io.smetric.audit.report;
