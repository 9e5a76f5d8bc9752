package io.smetric.audit.replay.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smetric.audit.model.TraceRecord;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import io.smetric.audit.testing.Traces;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuditPlanTest {
  /** Two requests 10 s apart with 32 + 48 = 80 prompt tokens (16-token blocks). */
  private static ReplayTrace trace() {
    List<TraceRecord> r = Traces.builder().simple("a", "A", 0, 0.0, 1, 2).simple("b", "A", 1, 10.0, 1, 2, 3).records();
    return ReplayTraceBuilder.fromRecords(r, false);
  }

  @Test
  void rateReference_cachelessPrefillSaturation_handArithmetic() {
    ReplaySettings s = new ReplaySettings();
    s.instances = 4;
    // per instance: 8192 / (0.015 + 1.1e-4 x 8192) = 8192 / 0.91612 = 8942.06 tokens/s
    // trace: 80 tokens / 10 s = 8 tokens/s -> x_ref = 4 x 8942.06 / 8 = 4471.03
    assertEquals(4 * 8192 / (0.015 + 1.1e-4 * 8192) / 8.0, AuditPlan.rateReference(trace(), s), 1e-9);
  }

  @Test
  void plan_countsAndRates() {
    ReplaySettings s = new ReplaySettings();
    s.instances = 4;
    AuditPlan p = AuditPlan.of(trace(), s);
    // 4471.03 x {0.125, 0.25, 0.375, 0.5, 1} rounded to 4 significant digits
    assertEquals(List.of(558.9, 1118.0, 1677.0, 2236.0, 4471.0), p.rates());
    // 9 x 5 x 5 + 3 x 5 x 5 + (4 + 3) x 5 = 335, ids 0..334
    assertEquals(335, p.specs().size());
    assertEquals(334, p.specs().get(334).runId());
    long sens = p.specs().stream().filter(x -> x.policy().equals("smetric")
        && (x.overload() != 1.5 || x.hitRatio() != 0.5)).count();
    assertEquals(35, sens);
  }
}
