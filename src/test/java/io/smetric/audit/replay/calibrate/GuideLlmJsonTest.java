package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GuideLlmJsonTest {

  @Test
  void guidellmsOwnTestReport_synchronousBenchmark() {
    Path f = Fixtures.resource("guidellm/benchmarks_stripped.json");
    assertEquals(MeasurementReader.Format.GUIDELLM, MeasurementReader.detect(f));
    var ms = MeasurementReader.read(f);
    assertEquals(1, ms.size());
    Measurement m = ms.get(0);
    // values as in the file: metrics.*.successful, request_totals, duration
    assertEquals(0.016792535781860348, m.measured().ttft().mean(), 1e-15);
    assertEquals(0.01638054847717285, m.measured().ttft().p50(), 1e-15);
    assertEquals(0.018505334854125977, m.measured().ttft().p90(), 1e-15);
    assertEquals(0.021281957626342773, m.measured().ttft().p99(), 1e-15);
    assertEquals(0.00490300272307966, m.measured().tpot().mean(), 1e-15);
    assertEquals(0.004941609043733832, m.measured().itl().mean(), 1e-15);
    assertEquals(0.6444743664368339, m.measured().e2e().mean(), 1e-15);
    assertEquals(0.6891846656799316, m.measured().e2e().p99(), 1e-15);
    assertEquals(46, m.measured().completed());
    assertEquals(1, m.measured().failed(), "one request incomplete at the end");
    assertEquals(46 / 29.997201442718506, m.measured().requestsPerS(), 1e-12);
    assertEquals(5888 / 29.997201442718506, m.measured().outputTokensPerS(), 1e-9);
    assertEquals((11827 + 5888) / 29.997201442718506, m.measured().totalTokensPerS(), 1e-9);
    SampledWorkload w = (SampledWorkload) m.workload();
    assertEquals(1, w.concurrency(), "synchronous = one request at a time");
    assertEquals(SampledWorkload.Arrival.ALL_AT_ONCE, w.arrival());
    assertEquals(47, w.requests());
    assertEquals(257, w.inputTokens()[0], "11,827 prompt tokens / 46 = 257.1");
    assertEquals(128, w.outputTokens()[0]);
    assertEquals("example_model/unknown-hardware", m.group());
  }

  @Test
  void unsupportedStrategy_namesTheJsonPath(@TempDir Path dir) throws Exception {
    String text = Files.readString(Fixtures.resource("guidellm/benchmarks_stripped.json"))
        .replace("\"strategy\": {\"type_\": \"synchronous\"}", "\"strategy\": {\"type_\": \"trace\"}");
    assertTrue(text.contains("\"type_\": \"trace\""), "fixture layout changed");
    Path f = Fixtures.write(dir, "benchmarks.json", text);
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals("benchmarks[0].args.strategy.type_", e.field());
  }
}
