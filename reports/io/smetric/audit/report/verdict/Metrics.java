package io.smetric.audit.report.verdict;

import io.smetric.audit.contract.Metric;
import java.util.Map;
import java.util.TreeMap;

/** The named metrics a verdict is judged on; a missing name reads as not computed. */
public final class Metrics {
  private final Map<String, Metric> values = new TreeMap<>();
  private final Map<String, String> conditions = new TreeMap<>();

  public Metrics put(String name, Metric v) {
    values.put(name, v);
    return this;
  }

  public Metrics put(String name, double v) {
    return put(name, Metric.of(v));
  }

  public Metric get(String name) {
    Metric v = values.get(name);
    return v != null ? v : Metric.na("not computed in this audit");
  }

  /**
   * A measured condition for the criterion on this metric, replacing the criterion's generic
   * condition text when it fails (e.g. "a global KV tier of at least 0.4x ... is deployed").
   */
  public Metrics putCondition(String name, String condition) {
    conditions.put(name, condition);
    return this;
  }

  /**
   * A judgement of the criterion on this metric made over more than its one value (e.g. the
   * replay gain over the conditions sweep's documented ranges): the engine takes its status and
   * reason instead of comparing the value with the threshold; a PASS with a condition makes the
   * fit conditional.
   */
  public record Judgement(CriterionResult.Status status, String reason, String condition) {}

  private final Map<String, Judgement> judgements = new TreeMap<>();

  public Metrics putJudgement(String name, Judgement j) {
    judgements.put(name, j);
    return this;
  }

  public Judgement judgement(String name) {
    return judgements.get(name);
  }

  /** The measured condition for a metric, or null. */
  public String condition(String name) {
    return conditions.get(name);
  }

  public Map<String, Metric> all() {
    return values;
  }
}
