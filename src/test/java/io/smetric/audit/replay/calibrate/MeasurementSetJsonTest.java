package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MeasurementSetJsonTest {

  @Test
  void shippedH100Runs_24StagesOf16Experiments_withEngineFacts() {
    List<Measurement> ms = MeasurementReader.readResource("inference-sim-h100/runs.json");
    assertEquals(24, ms.size());
    Set<String> groups = ms.stream().map(Measurement::group).collect(Collectors.toSet());
    assertEquals(Set.of("llama-2-7b/h100-sxm/tp1/vllm-0.15.1", "llama-2-70b/h100-sxm/tp4/vllm-0.15.1",
        "codellama-34b/h100-sxm/tp2/vllm-0.15.1", "mixtral-8x7b/h100-sxm/tp2/vllm-0.15.1"), groups);
    Measurement mix = ms.stream().filter(m -> m.id().equals("20260218-130541-mixtral-8x7b-v0-1-tp2-general/stage0"))
        .findFirst().orElseThrow();
    assertEquals(27511L, mix.engine().numGpuBlocks(), "440,176 GPU KV tokens / 16");
    assertEquals(Boolean.TRUE, mix.engine().prefixCaching());
    assertEquals("0.15.1", mix.engine().version());
    assertEquals(8L << 30, mix.engine().cpuOffloadBytes());
    assertTrue(mix.notes().stream().anyMatch(n -> n.contains("2.0121")), mix.notes().toString());
    for (Measurement m : ms) assertTrue(m.workload() instanceof SharedPrefixWorkload, m.id());
    assertTrue(MeasurementReader.shippedSets().contains("inference-sim-h100/runs.json"));
  }

  @Test
  void writeThenRead_givesTheSameMeasurements(@TempDir Path dir) {
    List<Measurement> ms = new java.util.ArrayList<>(MeasurementReader.readResource("inference-sim-h100/runs.json").subList(0, 3));
    ms.addAll(MeasurementReader.readResource("qwen-speed-benchmark/qwen3-moe-h20-speed.csv").subList(0, 2));
    ms.add(new Measurement("s", "src", "g", Kind.STEP, null, null, null, new StepTiming(10, 55.5, 3, 900, 0.02)));
    ms.add(new Measurement("v", "src", "g", Kind.LOAD_STAGE, EngineConfig.named("vllm", "0.9"),
        new SampledWorkload(new int[] {5, 6}, new int[] {1, 0}, 2, SampledWorkload.Arrival.GAMMA, 3.0, 0.5, 4, 10.0, 16),
        Metrics.NONE, null));
    ms.add(new Measurement("t", "src", "g", Kind.LOAD_STAGE, null, ms.get(ms.size() - 1).workload(), Metrics.NONE, null,
        null, null, List.of(), 21600.0));
    assertEquals(300.0, ms.get(0).requestTimeoutS());
    Path f = dir.resolve("set.json");
    MeasurementReader.write(ms, f);
    assertEquals(MeasurementReader.Format.MEASUREMENT_SET, MeasurementReader.detect(f));
    assertEquals(ms, MeasurementReader.read(f));
  }

  @Test
  void unknownWorkloadType_namesThePath(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("set.json");
    Files.writeString(f, "{\"format\":\"smetric-measurements/1\",\"measurements\":[{\"id\":\"a\",\"group\":\"g\","
        + "\"kind\":\"LOAD_STAGE\",\"workload\":{\"type\":\"replay\"}}]}");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertEquals("measurements[0].workload.type", e.field());
  }

  @Test
  void unknownFormat_listsWhatIsSupported(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("x.json");
    Files.writeString(f, "{\"hello\": 1}");
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertTrue(e.getMessage().contains("GuideLLM") && e.getMessage().contains("vllm bench serve"), e.getMessage());
  }
}
