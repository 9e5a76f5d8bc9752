package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.contract.HashSummary;
import io.smetric.audit.contract.InferenceSummary;
import io.smetric.audit.contract.IngestSummary;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * What the report reads of an audit folder, read once: the stages' JSON outputs (each null when
 * the stage did not run or left nothing) and the folder itself for the tables the charts read.
 * The judge, the audit.json builder and the page all take their inputs from here.
 *
 * @param folder the audit folder (tables, label, where the report is written)
 * @param characterization characterization/characterization.json
 * @param replay replay/replay.json
 * @param provenance provenance.json (command line, inputs and their checksums, parameters)
 * @param ingest ingest/ingest-summary.json, else the copy the characterization carries
 * @param inferred inferred/inference-summary.json when sessions were inferred
 * @param sessionsInferred whether the audit inferred sessions (inferred/ exists)
 * @param hashed hashed/hash-summary.json when the audit started from raw chat logs
 */
public record StageOutputs(AuditFolder folder, CharacterizationSummary characterization, JsonNode replay, JsonNode provenance,
    IngestSummary ingest, InferenceSummary inferred, boolean sessionsInferred, HashSummary hashed) {

  /** The block-hasher's summary when the audit started from raw chat logs. */
  static final String HASH_SUMMARY = "hashed/hash-summary.json";

  /** Reads every stage output the report uses from {@code f}. */
  public static StageOutputs read(AuditFolder f) {
    JsonNode chJson = f.json(AuditLayout.CHARACTERIZATION_JSON);
    CharacterizationSummary ch = chJson == null ? null : CharacterizationSummary.read(chJson, AuditLayout.CHARACTERIZATION_JSON);
    JsonNode file = f.json(AuditLayout.INGEST_SUMMARY);
    IngestSummary ingest = file == null ? null : IngestSummary.read(file, AuditLayout.INGEST_SUMMARY);
    // the copy is an ingest summary only when it is one (else it says why there is none)
    if (ingest == null && ch != null && ch.dataQuality() != null) {
      ingest = ch.dataQuality().ingestSummary(AuditLayout.CHARACTERIZATION_JSON);
    }
    boolean inferred = f.exists(AuditLayout.INFERRED);
    return new StageOutputs(f, ch, f.json(AuditLayout.REPLAY_JSON), f.json(AuditLayout.PROVENANCE), ingest,
        inferred ? inference(f) : null, inferred, hash(f));
  }

  private static HashSummary hash(AuditFolder f) {
    JsonNode n = f.json(HASH_SUMMARY);
    return n == null ? null : HashSummary.read(n, HASH_SUMMARY);
  }

  private static InferenceSummary inference(AuditFolder f) {
    JsonNode n = f.json(AuditLayout.INFERENCE_SUMMARY);
    return n == null ? null : InferenceSummary.read(n, AuditLayout.INFERENCE_SUMMARY);
  }

  /** The replay's runs table, or null without a replay or without that table. */
  ReplayRuns replayRuns() {
    if (replay == null) return null;
    List<Row> rows = folder.table(AuditLayout.REPLAY_RUNS);
    return rows == null ? null : new ReplayRuns(rows, replay);
  }
}
