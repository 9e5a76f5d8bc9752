package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InferSessionsCommandTest {
  @TempDir Path tmp;

  static String[] run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
    return new String[] {"" + code, out.toString(), err.toString()};
  }

  @Test
  void inferSessions_writesTraceLinksSummary_andRefusesExistingOutput() throws Exception {
    Traces.Builder b = Traces.builder().blockSize(16);
    b.req("0", null, null, null, Canonical.TRIGGER_UNKNOWN, 0, 40, 10, 1, 2, 3);
    b.req("1", null, null, null, Canonical.TRIGGER_UNKNOWN, 5, 56, 10, 1, 2, 4, 5); // extends 0
    Path canon = tmp.resolve("canon");
    b.toDataset(TestSpark.get()).write().parquet(canon.resolve("trace").toString());
    Path truth = tmp.resolve("t.truth.jsonl");
    Files.writeString(truth,
        "{\"line\":0,\"session_id\":\"s0\",\"parent_line\":null,\"turn\":0,\"trigger\":\"user\",\"fork\":false,\"compacted\":false}\n"
            + "{\"line\":1,\"session_id\":\"s0\",\"parent_line\":0,\"turn\":1,\"trigger\":\"tool\",\"fork\":false,\"compacted\":false}\n");
    Path out = tmp.resolve("inf");
    String[] r = run("infer-sessions", canon.toString(), "--out", out.toString(), "--truth", truth.toString());
    assertEquals("" + ExitCodes.OK, r[0], r[2]);
    assertTrue(r[1].contains("2 requests -> 1 sessions"), r[1]);
    assertTrue(r[1].contains("rule                     100.00%   100.00%"), r[1]);
    assertTrue(Files.exists(out.resolve("inference-summary.json")));
    assertTrue(Files.exists(out.resolve("inference-accuracy.json")));
    assertTrue(Files.isDirectory(out.resolve("trace")));
    assertTrue(Files.isDirectory(out.resolve("inference-links")));
    String[] again = run("infer-sessions", canon.toString(), "--out", out.toString());
    assertEquals("" + ExitCodes.OUTPUT_EXISTS, again[0], again[2]);
  }

  @Test
  void badWindow_isUsageError() {
    String[] r = run("infer-sessions", tmp.toString(), "--out", tmp.resolve("o").toString(), "--window-s", "0");
    assertEquals("" + ExitCodes.USAGE, r[0], r[2]);
  }
}
