package io.smetric.audit.report.verdict;

import java.util.Map;
import java.util.TreeMap;

/** The named metrics a verdict is judged on; a missing name reads as not computed. */
public final class Metrics {
  private final Map<String, MetricValue> values = new TreeMap<>();

  public Metrics put(String name, MetricValue v) {
    values.put(name, v);
    return this;
  }

  public Metrics put(String name, double v) {
    return put(name, MetricValue.of(v));
  }

  public MetricValue get(String name) {
    MetricValue v = values.get(name);
    return v != null ? v : MetricValue.na("not computed in this audit");
  }

  public Map<String, MetricValue> all() {
    return values;
  }
}
