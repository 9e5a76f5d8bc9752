package io.smetric.audit.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.contract.ReplayTables;
import io.smetric.audit.contract.ReplayTables.RunMetrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.Row;

/**
 * The replay's {@code runs} table as the report needs it: one {@link Run} per simulation, with
 * the selections the charts share (the best run per policy and global-tier capacity, the runs
 * at the replay's default guard thresholds). Everything here is a few hundred rows at most.
 */
public final class ReplayRuns {
  /** The SMetric family, in the order the ablation chart draws them. */
  public static final List<String> SMETRIC_FAMILY =
      List.of("smetric", "smetric-basic", "smetric-overload-only", "smetric-eviction-only");

  /** One simulation: its grid point and metrics (null where not applicable). */
  public record Run(int runId, String policy, double globalRatio, double rateScale, Double overload, Double hitRatio,
      Row row, String notApplicable) {
    public Double metric(String name) {
      return Rows.d(row, name);
    }

    double tps() {
      Double t = metric(RunMetrics.TPS_WITHIN_SLO);
      return t == null ? Double.NEGATIVE_INFINITY : t;
    }
  }

  private final List<Run> runs;
  private final double defaultOverload;
  private final double defaultHitRatio;

  public ReplayRuns(List<Row> rows, JsonNode replayJson) {
    List<Run> rs = new ArrayList<>();
    for (Row r : rows) {
      // the main sweep only: bootstrap replicates and condition variants have their own blocks
      boolean hasRep = java.util.Arrays.asList(r.schema().fieldNames()).contains(ReplayTables.REPLICATE);
      if (hasRep && !r.isNullAt(r.fieldIndex(ReplayTables.REPLICATE)) && r.getInt(r.fieldIndex(ReplayTables.REPLICATE)) != 0) continue;
      if (hasRep && Rows.s(r, ReplayTables.VARIANT) != null) continue;
      rs.add(new Run(r.getInt(r.fieldIndex(ReplayTables.RUN_ID)), Rows.s(r, ReplayTables.POLICY),
          Rows.d(r, ReplayTables.GLOBAL_RATIO), Rows.d(r, ReplayTables.RATE_SCALE), Rows.d(r, ReplayTables.OVERLOAD),
          Rows.d(r, ReplayTables.HIT_RATIO), r, Rows.s(r, ReplayTables.NOT_APPLICABLE)));
    }
    rs.sort(Comparator.comparingInt(Run::runId));
    this.runs = rs;
    io.smetric.audit.contract.SettingsBlock settings = io.smetric.audit.contract.SettingsBlock.of(replayJson);
    this.defaultOverload = settings == null || settings.overload() == null ? 1.5 : settings.overload();
    this.defaultHitRatio = settings == null || settings.hitRatio() == null ? 0.5 : settings.hitRatio();
  }

  public List<Run> all() {
    return runs;
  }

  public boolean isEmpty() {
    return runs.isEmpty();
  }

  public double defaultOverload() {
    return defaultOverload;
  }

  public double defaultHitRatio() {
    return defaultHitRatio;
  }

  /** Policies in first-run order. */
  public List<String> policies() {
    LinkedHashMap<String, Boolean> p = new LinkedHashMap<>();
    for (Run r : runs) p.put(r.policy(), true);
    return new ArrayList<>(p.keySet());
  }

  public List<Double> globalRatios() {
    TreeSet<Double> g = new TreeSet<>();
    for (Run r : runs) g.add(r.globalRatio());
    return new ArrayList<>(g);
  }

  public List<Double> rates() {
    TreeSet<Double> g = new TreeSet<>();
    for (Run r : runs) g.add(r.rateScale());
    return new ArrayList<>(g);
  }

  /** Whether a run uses the replay's default guard thresholds (or the policy reads none). */
  public boolean atDefaults(Run r) {
    return (r.overload() == null || r.overload().equals(defaultOverload))
        && (r.hitRatio() == null || r.hitRatio().equals(defaultHitRatio));
  }

  /**
   * The run with the highest TPS within SLO for a policy at a global ratio, over the offered-rate
   * sweep, at the default guard thresholds when such a run exists (else over every setting).
   */
  public Run best(String policy, double globalRatio) {
    Run best = null;
    Run bestDefault = null;
    for (Run r : runs) {
      if (!r.policy().equals(policy) || r.globalRatio() != globalRatio) continue;
      if (best == null || r.tps() > best.tps()) best = r;
      if (atDefaults(r) && (bestDefault == null || r.tps() > bestDefault.tps())) bestDefault = r;
    }
    return bestDefault != null ? bestDefault : best;
  }

  /** The best run per policy at one global ratio (policies without a run there are left out). */
  public Map<String, Run> bestByPolicy(double globalRatio) {
    Map<String, Run> m = new LinkedHashMap<>();
    for (String p : policies()) {
      Run b = best(p, globalRatio);
      if (b != null) m.put(p, b);
    }
    return m;
  }
}
