package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.replay.ModelProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `profiles derive` from the command line: a loadable profile out, bad input named. */
class ProfilesDeriveCommandTest {
  @TempDir Path tmp;

  @Test
  void derive_writesALoadableProfile_andPrintsTheLearnedFactors() throws Exception {
    Path cfg = tmp.resolve("config.json");
    Files.writeString(cfg, """
        {"_name_or_path": "Qwen/Qwen3-32B", "model_type": "qwen3", "num_hidden_layers": 64, "hidden_size": 5120,
         "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 25600,
         "vocab_size": 151936, "tie_word_embeddings": false}""");
    Path out = tmp.resolve("q32.yaml");
    CliTest.Run r = CliTest.run("profiles", "derive", "--model", cfg.toString(), "--gpu", "H100", "--tp", "2", "--out", out.toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());
    assertTrue(r.out().contains("KV 262,144 B per token"), r.out()); // 64 x 2 x 8 x 128 x 2
    assertTrue(r.out().contains("prefill MFU"), r.out());
    assertTrue(r.out().contains("derived, cross-validated error"), r.out());
    ModelProfile p = ModelProfile.load(out);
    assertEquals("derived-qwen3-32b-h100-sxm-tp2", p.name);
    assertEquals(6700.0, p.hbmGBps, 0);
    CliTest.Run again = CliTest.run("profiles", "derive", "--model", cfg.toString(), "--gpu", "H100", "--out", out.toString());
    assertEquals(ExitCodes.OUTPUT_EXISTS, again.code());
    CliTest.Run show = CliTest.run("profiles", out.toString());
    assertEquals(ExitCodes.OK, show.code(), show.err());
    assertTrue(show.out().contains("cross-validated: median |error|"), show.out());
  }

  @Test
  void derive_moe_printsTheWeightsADecodeStepReadsByBatch() {
    Path cfg = Path.of("src/main/resources/io/smetric/audit/replay/measurements/facts/configs/mixtral-8x7b-v0.1.json");
    CliTest.Run r = CliTest.run("profiles", "derive", "--model", cfg.toString(), "--gpu", "H100", "--tp", "2",
        "--out", tmp.resolve("mx.json").toString());
    assertEquals(ExitCodes.OK, r.code(), r.err());
    // 2.95 GB read every step + (1 - (6/8)^T) x 90.19 GB of experts: T = 1 -> 25.5 GB, T = 8 -> 84.1 GB
    assertTrue(r.out().contains("1: 25.5 GB, 8: 84.1 GB"), r.out());
    assertEquals(2, ModelProfile.load(tmp.resolve("mx.json")).expertsPerToken);
  }

  @Test
  void derive_missingField_isBadInputNamingFileAndField() throws Exception {
    Path cfg = tmp.resolve("gpt2.json");
    Files.writeString(cfg, "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_embd\": 768, \"vocab_size\": 50257}");
    CliTest.Run r = CliTest.run("profiles", "derive", "--model", cfg.toString(), "--gpu", "L4", "--out", tmp.resolve("x.yaml").toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code(), r.out());
    assertTrue(r.err().contains("gpt2.json") && r.err().contains("num_hidden_layers"), r.err());
    CliTest.Run gpu = CliTest.run("profiles", "derive", "--model", cfg.toString(), "--gpu", "V100", "--out", tmp.resolve("y.yaml").toString());
    assertEquals(ExitCodes.USAGE, gpu.code());
    assertTrue(gpu.err().contains("unknown GPU 'V100'"), gpu.err());
  }
}
