package io.smetric.audit.replay.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InferencePerfReportTest {
  private static final String RUN = "inference-perf/20260218-130541-mixtral-8x7b-v0-1-tp2-general";

  @Test
  void realRunFolder_twoStages_perTokenTpotAndTheWorkloadThatRan() {
    List<Measurement> ms = MeasurementReader.read(Fixtures.resource(RUN));
    assertEquals(2, ms.size());
    Measurement s0 = ms.get(0);
    assertEquals(Kind.LOAD_STAGE, s0.kind());
    assertTrue(s0.id().endsWith("stage_0_lifecycle_metrics.json"));
    // stage_0_lifecycle_metrics.json: successes.latency.*
    assertEquals(new Stat(0.06389182570371, 0.05577650247141719, 0.06383050605654716, 0.38307668406516676), s0.measured().ttft());
    assertEquals(new Stat(4.795965222046943, 4.742835994344205, 4.8291387227363884, 7.300831228913769), s0.measured().e2e());
    // per-line TPOT 9.517 ms converted with n = 248 (ignore_eos, output_len): x 497/247
    assertEquals(0.009517080688992752 * 497 / 247, s0.measured().tpot().mean(), 1e-15);
    assertEquals(0.009599162030860153 * 497 / 247, s0.measured().tpot().p90(), 1e-15);
    assertEquals(0.009517062911631678 * 497 / 247, s0.measured().itl().mean(), 1e-15);
    assertTrue(Double.isNaN(s0.measured().itl().p50()));
    // ... which is what (E2E - TTFT) / (n - 1) says independently
    assertEquals((4.795965222046943 - 0.06389182570371) / 247, s0.measured().tpot().mean(), 0.001 * s0.measured().tpot().mean());
    assertEquals(4800, s0.measured().completed());
    assertEquals(0, s0.measured().failed());
    assertEquals(7.947880760455628, s0.measured().requestsPerS());
    // results/config.yaml, not profile.yaml: 10 x 10 single-turn prompts
    SharedPrefixWorkload w = (SharedPrefixWorkload) s0.workload();
    assertEquals(10, w.groups());
    assertEquals(10, w.promptsPerGroup());
    assertEquals(SharedPrefixWorkload.MultiTurn.NONE, w.multiTurn());
    // 100 + 447 nominal scaled to the measured 570.68: 104.33 -> 104, 466.35 -> 466
    assertEquals(104, w.systemPromptTokens());
    assertEquals(466, w.questionTokens());
    assertEquals(248, w.outputTokens());
    assertEquals(List.of(new SharedPrefixWorkload.LoadStage(8, 600), new SharedPrefixWorkload.LoadStage(20, 600)), w.loadStages());
    assertEquals(0, w.measuredStage());
    // longest stage-0 request 11.325 s + interval 1 s + lead 1 s
    assertEquals(11.325093973428011 + 2.0, w.interStageGapS(), 1e-12);
    assertEquals(1, ((SharedPrefixWorkload) ms.get(1).workload()).measuredStage());
    // exp-config.yaml one folder up
    assertEquals(2, s0.engine().tensorParallel());
    assertEquals(128, s0.engine().maxNumSeqs());
    assertEquals(2048, s0.engine().maxNumBatchedTokens());
    assertEquals(4096, s0.engine().maxModelLen());
    assertEquals("vllm", s0.engine().engine());
    assertEquals("mistralai/Mixtral-8x7B-v0.1", s0.model());
    assertEquals("mixtral-8x7b-v0.1/unknown-hardware/tp2/vllm", s0.group());
  }

  @Test
  void readerAndShippedNormalisedSet_agreeOnTheSameStage() {
    Measurement fromReport = MeasurementReader.read(Fixtures.resource(RUN + "/results/stage_1_lifecycle_metrics.json")).get(0);
    Measurement shipped = MeasurementReader.readResource("inference-sim-h100/runs.json").stream()
        .filter(m -> m.id().equals("20260218-130541-mixtral-8x7b-v0-1-tp2-general/stage1")).findFirst().orElseThrow();
    assertEquals(shipped.measured().ttft(), fromReport.measured().ttft());
    assertEquals(shipped.measured().e2e(), fromReport.measured().e2e());
    assertEquals(shipped.measured().tpot().mean(), fromReport.measured().tpot().mean(), 1e-15);
    assertEquals(shipped.workload(), fromReport.workload());
    // config.yaml: load.request_timeout null -> aiohttp's default session timeout, as shipped
    assertEquals(300.0, fromReport.requestTimeoutS());
    assertEquals(shipped.requestTimeoutS(), fromReport.requestTimeoutS());
  }

  /** A timeout the run set is taken as it is; a non-positive one names its field. */
  @Test
  void requestTimeout_setInConfig_orBad() {
    JsonIn c = new JsonIn("config.yaml");
    java.util.List<String> notes = new java.util.ArrayList<>();
    com.fasterxml.jackson.databind.node.ObjectNode cfg = io.smetric.audit.common.Json.object();
    cfg.putObject("load").put("request_timeout", 45.5);
    assertEquals(45.5, InferencePerfReport.requestTimeout(cfg, c, notes));
    assertEquals(List.of(), notes);
    ((com.fasterxml.jackson.databind.node.ObjectNode) cfg.get("load")).put("request_timeout", 0);
    BadInputException e = assertThrows(BadInputException.class, () -> InferencePerfReport.requestTimeout(cfg, c, notes));
    assertEquals("load.request_timeout", e.field());
  }

  @Test
  void stageFileWithoutConfig_saysWhatIsMissing(@TempDir Path dir) throws Exception {
    Path stage = dir.resolve("stage_0_lifecycle_metrics.json");
    Files.copy(Fixtures.resource(RUN + "/results/stage_0_lifecycle_metrics.json"), stage);
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(stage));
    assertEquals(stage.toString(), e.file());
    assertTrue(e.getMessage().contains("config.yaml"), e.getMessage());
  }

  @Test
  void summaryFile_isRefusedWithTheReason(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("summary_lifecycle_metrics.json");
    Files.copy(Fixtures.resource(RUN + "/results/stage_0_lifecycle_metrics.json"), f);
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(f));
    assertTrue(e.getMessage().contains("not a stage file"), e.getMessage());
  }

  @Test
  void unsupportedLoadType_namesTheConfigField(@TempDir Path dir) throws Exception {
    Path results = Files.createDirectories(dir.resolve("results"));
    Files.copy(Fixtures.resource(RUN + "/results/stage_0_lifecycle_metrics.json"), results.resolve("stage_0_lifecycle_metrics.json"));
    String cfg = Files.readString(Fixtures.resource(RUN + "/results/config.yaml")).replace("type: constant", "type: concurrent");
    Files.writeString(results.resolve("config.yaml"), cfg);
    BadInputException e = assertThrows(BadInputException.class, () -> MeasurementReader.read(dir));
    assertEquals("load.type", e.field());
    assertTrue(e.file().endsWith("config.yaml"), e.file());
  }
}
