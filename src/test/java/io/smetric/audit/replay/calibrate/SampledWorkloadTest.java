package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smetric.audit.contract.TraceRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class SampledWorkloadTest {

  @Test
  void uniformArrivals_areOneEveryInverseRate() {
    List<TraceRecord> rs = SampledWorkload.uniform(5, 100, 10, SampledWorkload.Arrival.UNIFORM, 4.0, 1.0, null, Double.NaN, 16)
        .synthesize(1);
    assertEquals(List.of(0.0, 0.25, 0.5, 0.75, 1.0), rs.stream().map(TraceRecord::arrivalS).toList());
  }

  @Test
  void gammaArrivals_meanGapIsInverseRate_forPoissonAndBurstyShapes() {
    for (double burstiness : new double[] {1.0, 0.25, 4.0}) {
      List<TraceRecord> rs = SampledWorkload.uniform(20001, 50, 5, SampledWorkload.Arrival.GAMMA, 10.0, burstiness, null,
          Double.NaN, 16).synthesize(3);
      assertEquals(0.0, rs.get(0).arrivalS(), "vllm bench sends the first request at once");
      double meanGap = rs.get(20000).arrivalS() / 20000;
      assertEquals(0.1, meanGap, 0.004, "burstiness " + burstiness);
      double var = 0;
      for (int i = 1; i <= 20000; i++) {
        double g = rs.get(i).arrivalS() - rs.get(i - 1).arrivalS();
        var += (g - meanGap) * (g - meanGap);
      }
      double cv2 = var / 20000 / (meanGap * meanGap);
      assertEquals(1.0 / burstiness, cv2, 0.1 / burstiness, "squared coefficient of variation of Gamma(shape) = 1/shape");
    }
  }

  @Test
  void sharedPrefix_givesEveryRequestTheSameLeadingBlocks() {
    SampledWorkload w = new SampledWorkload(new int[] {40, 40, 20}, new int[] {1, 1, 1}, 32, SampledWorkload.Arrival.ALL_AT_ONCE,
        Double.NaN, 1.0, 8, Double.NaN, 16);
    List<TraceRecord> rs = w.synthesize(5);
    assertEquals(rs.get(0).blocks()[1], rs.get(1).blocks()[1], "32 shared tokens = 2 full blocks");
    assertNotEquals(rs.get(0).blocks()[2], rs.get(1).blocks()[2]);
    assertEquals(rs.get(0).blocks()[0], rs.get(2).blocks()[0]);
    assertEquals(8, w.concurrency());
  }

  @Test
  void rateArrivalWithoutRate_isRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> SampledWorkload.uniform(3, 10, 1, SampledWorkload.Arrival.GAMMA, Double.NaN, 1.0, null, Double.NaN, 16));
  }
}
