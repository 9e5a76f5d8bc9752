package io.smetric.audit.infer;

import static io.smetric.audit.contract.AuditLayout.INFERENCE_SUMMARY_FILE;
import static io.smetric.audit.contract.AuditLayout.TRACE_DIR;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
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
    out.writeString(INFERENCE_SUMMARY_FILE, json(summary(r)));
  }

  public static ObjectNode summary(SessionInference.Result r) {
    ObjectNode s = Json.object();
    s.put("sessions_mode", "inferred");
    s.put("method", r.method());
    ObjectNode p = s.putObject("parameters");
    p.put("window_s", r.options().windowS());
    p.put("template_fanout", r.options().templateFanout());
    s.put("requests", r.requests());
    s.put("sessions", r.sessions());
    s.put("root_sessions", r.roots());
    s.put("continuations", r.continuations());
    ObjectNode f = s.putObject("fork_sessions");
    f.put("total", r.forks());
    f.put("by_branching_inside_a_prompt", r.forksByBranch());
    f.put("by_extending_a_request_whose_session_went_on", r.forksByExtension());
    s.put("roots_sharing_only_template_blocks", r.templateOnlyRoots());
    s.put("template_branch_points", r.templateBranchPoints());
    s.put("max_index_entries", r.maxIndexEntries());
    s.put("trigger", "unknown (not inferable from content)");
    return s;
  }

  public static String json(ObjectNode n) {
    try {
      return Json.MAPPER.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
