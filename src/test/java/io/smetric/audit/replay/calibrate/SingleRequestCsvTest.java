package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SingleRequestCsvTest {

  @Test
  void shippedQwenTable_bf16Rows_giveEndToEndFromTheSpeedDefinition() {
    List<Measurement> ms = MeasurementReader.readResource("qwen-speed-benchmark/qwen3-moe-h20-speed.csv");
    assertEquals(38, ms.size(), "18 SGLang + 8 Transformers Qwen3-30B-A3B rows, 12 Qwen3-235B-A22B rows");
    // speed_benchmark.md L832 at ac72724: 30720 input tokens, BF16, 1283.94 tok/s = (30720 + 2048) / E2E
    Measurement m = ms.stream().filter(x -> x.source().endsWith("#L832")).findFirst().orElseThrow();
    assertEquals("qwen3-30b-a3b/h20-96gb/tp1/sglang-0.4.6.post1/bf16", m.group());
    assertEquals(Kind.SINGLE_REQUEST, m.kind());
    assertEquals(new SingleRequestWorkload(30720, 2048, 16), m.workload());
    assertEquals(32768 / 1283.94, m.measured().e2e().mean(), 1e-9);
    assertEquals(25.5214, m.measured().e2e().mean(), 1e-4);
    assertTrue(Double.isNaN(m.measured().ttft().mean()), "the table has no TTFT");
    assertEquals("sglang", m.engine().engine());
    assertEquals("0.4.6.post1", m.engine().version());
    assertEquals(1, m.engine().tensorParallel());
    // the 235B BF16 rows ran on 8 GPUs (TP=8), L977: 129042 input tokens at 1639.54 tok/s
    Measurement big = ms.stream().filter(x -> x.source().endsWith("#L977")).findFirst().orElseThrow();
    assertEquals(8, big.engine().tensorParallel());
    assertEquals((129042 + 2048) / 1639.54, big.measured().e2e().mean(), 1e-9);
  }

  @Test
  void ttftAndE2eColumns_areReadAsSeconds_andGroupDefaultsToFileName(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "my-h20.csv", "input_tokens,output_tokens,ttft_s,e2e_s\n1000,100,0.25,1.5\n");
    List<Measurement> ms = MeasurementReader.read(f);
    assertEquals(1, ms.size());
    assertEquals("my-h20", ms.get(0).group());
    assertEquals(0.25, ms.get(0).measured().ttft().mean());
    assertEquals(1.5, ms.get(0).measured().e2e().mean());
    assertEquals(f + ":2", ms.get(0).id());
  }

  @Test
  void badNumber_namesFileLineAndColumn(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "t.csv", "input_tokens,output_tokens,tokens_per_s\n1,2048,137.18\n6144,2048,fast\n");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals(f.toString(), e.file());
    assertEquals(3, e.line());
    assertEquals("tokens_per_s", e.field());
    assertTrue(e.oneLine().contains("'fast'"), e.oneLine());
  }

  @Test
  void e2eAndRateThatDisagree_areAnErrorOnThatLine(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "t.csv", "input_tokens,output_tokens,tokens_per_s,e2e_s\n1,2048,137.18,20\n");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals(2, e.line());
    assertTrue(e.getMessage().contains("14.9") && e.getMessage().contains("20.0"), e.getMessage());
  }

  @Test
  void tableWithoutTiming_isRejectedNamingTheHeader(@TempDir Path dir) throws Exception {
    Path f = Fixtures.write(dir, "t.csv", "input_tokens,output_tokens,note\n1,2,x\n");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals(1, e.line());
    assertTrue(e.getMessage().contains("[input_tokens, output_tokens, note]"), e.getMessage());
  }
}
