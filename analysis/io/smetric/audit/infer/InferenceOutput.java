package io.smetric.audit.infer;

import static io.smetric.audit.contract.AuditLayout.INFERENCE_SUMMARY_FILE;
import static io.smetric.audit.contract.AuditLayout.TRACE_DIR;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.InferenceSummary;
import java.io.UncheckedIOException;
import org.apache.spark.sql.SaveMode;

/**
 * Writes an inference result into an output folder: {@code trace/} (the canonical dataset with
 * inferred sessions, sorted by arrival), {@code inference-links/} (per request: the link kind,
 * shared and template depths, the naive baseline's parent and session) and
 * {@code inference-summary.json}. Used by the infer-sessions command and by ingest's
 * {@code --infer-sessions}.
 */
public final class InferenceOutput {
  public static final String LINKS_DIR = "inference-links";

  private InferenceOutput() {}

  public static void write(SessionInference.Result r, OutputDir out) {
    r.trace().write().mode(SaveMode.ErrorIfExists).parquet(out.child(TRACE_DIR));
    r.links().orderBy(org.apache.spark.sql.functions.col(io.smetric.audit.contract.Canonical.SEQ))
        .write().mode(SaveMode.ErrorIfExists).parquet(out.child(LINKS_DIR));
    out.writeString(INFERENCE_SUMMARY_FILE, json(summary(r).toJson()));
  }

  /** The summary the inference hands on (written as inference-summary.json). */
  public static InferenceSummary summary(SessionInference.Result r) {
    return new InferenceSummary(InferenceSummary.SESSIONS_MODE, r.method(),
        new InferenceSummary.Parameters(r.options().windowS(), r.options().templateFanout()), r.requests(), r.sessions(),
        r.roots(), r.continuations(),
        new InferenceSummary.Forks(r.forks(), r.forksByBranch(), r.forksByExtension()), r.templateOnlyRoots(),
        r.templateBranchPoints(), r.maxIndexEntries(), InferenceSummary.TRIGGER);
  }

  public static String json(ObjectNode n) {
    try {
      return Json.MAPPER.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
