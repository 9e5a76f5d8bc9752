package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VllmBenchJsonTest {

  @Test
  void publishedRun_summaryOnly_meanLengthsAndClosedLoop() {
    Path f = Fixtures.resource("vllm-bench/qwen3-14b-awq-a100-issue1536.json");
    assertEquals(MeasurementReader.Format.VLLM_BENCH_JSON, MeasurementReader.detect(f));
    List<Measurement> ms = MeasurementReader.read(f);
    assertEquals(1, ms.size());
    Measurement m = ms.get(0);
    assertEquals(Kind.LOAD_STAGE, m.kind());
    assertEquals("qwen3-14b-awq/unknown-hardware", m.group());
    assertEquals(new Stat(3.34537, 3.452, Double.NaN, 3.69697), m.measured().ttft());
    assertEquals(0.02063, m.measured().tpot().mean(), 1e-12);
    assertEquals(0.02094, m.measured().tpot().p50(), 1e-12);
    assertTrue(Double.isNaN(m.measured().itl().mean()) && Double.isNaN(m.measured().e2e().mean()));
    assertEquals(0.13, m.measured().requestsPerS());
    assertEquals(2174.16, m.measured().totalTokensPerS());
    assertEquals(30, m.measured().completed());
    assertEquals(0, m.measured().failed(), "num_prompts 30 - completed 30");
    SampledWorkload w = (SampledWorkload) m.workload();
    assertEquals(30, w.requests());
    assertEquals(16000, w.inputTokens()[29], "480,000 input tokens / 30 requests");
    assertEquals(200, w.outputTokens()[0], "6,000 / 30");
    assertEquals(SampledWorkload.Arrival.GAMMA, w.arrival());
    assertEquals(1.0, w.rate());
    assertEquals(1, w.concurrency());
    assertEquals("vllm", m.engine().engine());
  }

  @Test
  void detailedResult_perRequestLengths_infRate(@TempDir Path dir) throws Exception {
    // hand-made, in the shape --save-detailed writes (not a real run)
    Path f = Fixtures.write(dir, "r.json", "{\"backend\":\"vllm\",\"model_id\":\"org/M\",\"num_prompts\":3,"
        + "\"request_rate\":\"inf\",\"burstiness\":1.0,\"max_concurrency\":null,\"duration\":2.0,\"completed\":3,\"failed\":0,"
        + "\"total_input_tokens\":600,\"total_output_tokens\":30,\"request_throughput\":1.5,\"output_throughput\":15.0,"
        + "\"total_token_throughput\":315.0,\"mean_ttft_ms\":100,\"median_ttft_ms\":90,\"p90_ttft_ms\":150,\"p99_ttft_ms\":160,"
        + "\"mean_e2el_ms\":900,\"median_e2el_ms\":880,\"p99_e2el_ms\":1000,"
        + "\"input_lens\":[100,200,300],\"output_lens\":[5,10,15],\"ttfts\":[0.1,0.09,0.11]}");
    Measurement m = MeasurementReader.read(f).get(0);
    SampledWorkload w = (SampledWorkload) m.workload();
    assertArrayEquals(new int[] {100, 200, 300}, w.inputTokens());
    assertArrayEquals(new int[] {5, 10, 15}, w.outputTokens());
    assertEquals(SampledWorkload.Arrival.ALL_AT_ONCE, w.arrival());
    assertNull(w.concurrency());
    assertEquals(new Stat(0.1, 0.09, 0.15, 0.16), m.measured().ttft());
    assertEquals(0.9, m.measured().e2e().mean(), 1e-12);
    for (var r : w.synthesize(1)) assertEquals(0.0, r.arrivalS());
  }

  @Test
  void mismatchedLists_nameTheField(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "r.json", "{\"completed\":2,\"duration\":1.0,\"request_throughput\":2.0,\"request_rate\":\"inf\","
        + "\"input_lens\":[10,20],\"output_lens\":[1]}");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals("output_lens", e.field());
    assertTrue(e.oneLine().startsWith(f.toString()), e.oneLine());
  }

  @Test
  void badRequestRate_namesTheField(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "r.json", "{\"completed\":2,\"duration\":1.0,\"request_throughput\":2.0,\"request_rate\":\"fast\","
        + "\"total_input_tokens\":20,\"total_output_tokens\":2}");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals("request_rate", e.field());
  }
}
