package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.CharacterizationSummary;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Criterion;
import io.smetric.audit.report.verdict.Metrics;
import io.smetric.audit.report.verdict.Verdict;
import io.smetric.audit.report.verdict.VerdictEngine;
import java.util.List;

/**
 * The report's judge (docs/verdict.md): reads the criteria's metrics out of an audit's stage
 * outputs and evaluates them into the verdict. A stage that did not run makes its metrics not
 * applicable with the reason in the user's words ({@link #replayAbsentReason}); nothing here draws
 * or writes anything.
 */
final class AuditJudge {
  private AuditJudge() {}

  /** The verdict of the audit whose outputs are {@code in}; {@code replayAbsent} as {@link #replayAbsentReason}. */
  static Verdict judge(StageOutputs in, String replayAbsent, List<Criterion> criteria) {
    Metrics m = new Metrics();
    AuditCriteria.addCharacterization(m, in.characterization(), criteria);
    AuditCriteria.addReplay(m, in.replay(), replayAbsent, criteria);
    return VerdictEngine.evaluate(m, criteria);
  }

  /** Why an audit has no replay.json, in the user's words; null when it has one. */
  static String replayAbsentReason(StageOutputs in) {
    if (in.replay() != null) return null;
    JsonNode prov = in.provenance();
    CharacterizationSummary ch = in.characterization();
    JsonNode p = prov == null ? null : prov.path("parameters");
    if (p != null && (p.path("no_replay").asBoolean(false) || p.path("replay").asText("").equals("false"))) {
      return "the replay was skipped (--no-replay)";
    }
    if (ch != null && ch.trace() != null && !ch.trace().hasBlocks()) {
      return "the trace has no block hashes, so the KV cache cannot be replayed";
    }
    if (in.folder().exists(AuditLayout.REPLAY)) return "the replay folder has no replay.json (an interrupted replay?)";
    return AuditCriteria.NO_REPLAY;
  }

  /** The threshold of the (first) criterion on {@code metric}, or {@code dflt} when no criterion judges it. */
  static double threshold(List<Criterion> criteria, String metric, double dflt) {
    return criteria.stream().filter(c -> c.metric().equals(metric)).mapToDouble(Criterion::threshold).findFirst().orElse(dflt);
  }
}
