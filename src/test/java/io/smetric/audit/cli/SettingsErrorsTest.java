package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.UsageException;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.TraceValidation;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bad policy knob is refused on the paths that build replay settings, with the message the
 * settings' validation always gave, now that the settings no longer call the policies' check
 * themselves and each path passes it (issue 30 item 2). The order of the first error named is the
 * settings' own: a bad knob is reported before a bad CDF point count (PolicyConfigTest).
 */
class SettingsErrorsTest {
  @TempDir static Path tmp;

  @Test
  void replayConfigFile_withABadKnob_isAUsageErrorNamingIt() throws Exception {
    Path cfg = tmp.resolve("bad.yaml");
    Files.writeString(cfg, "sessionHashVnodes: 0\n");
    // refused before the input is read: the input need not exist
    CliTest.Run r = CliTest.run("replay", tmp.resolve("no-such-trace").toString(), "--config", cfg.toString(),
        "--out", tmp.resolve("o1").toString());
    assertEquals(ExitCodes.USAGE, r.code(), r.err());
    assertTrue(r.err().contains("replay settings: sessionHashVnodes must be >= 1"), r.err());
  }

  @Test
  void replayConfigFile_withABadKnobAndABadCdf_namesTheKnobFirst() throws Exception {
    Path cfg = tmp.resolve("two.json");
    Files.writeString(cfg, "{\"overload\": -1, \"cdfPoints\": 1}");
    CliTest.Run r = CliTest.run("replay", tmp.resolve("no-such-trace").toString(), "--config", cfg.toString(),
        "--out", tmp.resolve("o2").toString());
    assertEquals(ExitCodes.USAGE, r.code(), r.err());
    assertTrue(r.err().contains("replay settings: overload must be >= 0 (Infinity disables the guard)"), r.err());
  }

  @Test
  void asRecordedSettings_ofValidateCalibrateAndShadow_checksTheKnobs() {
    ReplaySettings s = ReplaySettings.defaults().with(sb -> sb.hitRatio = 1.5);
    UsageException e = assertThrows(UsageException.class, () -> TraceValidation.asRecordedSettings(s, 2));
    assertEquals("replay settings: hitRatio must be in [0, 1]", e.getMessage());
  }
}
