package io.smetric.audit.notebooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.common.Json;
import io.smetric.audit.testing.SharedAudits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every JShell notebook in notebooks-java/ with the built jar, as a researcher would
 * (notebooks-java/run.sh), and fails if a snippet does not compile, throws, or the notebook does
 * not reach its closing "NOTEBOOK OK" line. JShell itself keeps going after a failed snippet, so
 * its output is what is checked. A notebook that reads an audit folder (-Daudit) is given the
 * local-mode Mooncake audit of {@link SharedAudits} rather than auditing a sample itself.
 */
class NotebooksIT {
  private static final Path REPO = Path.of(System.getProperty("smetric.repo", "."));
  @TempDir Path tmp;

  @TestFactory
  Stream<DynamicTest> everyNotebook_runsCleanly() throws IOException {
    List<Path> notebooks;
    try (Stream<Path> s = Files.list(REPO.resolve("notebooks-java"))) {
      notebooks = s.filter(p -> p.toString().endsWith(".jsh")).sorted().toList();
    }
    assertFalse(notebooks.isEmpty(), "no notebooks found");
    return notebooks.stream().map(nb -> DynamicTest.dynamicTest(nb.getFileName().toString(), () -> run(nb)));
  }

  private void run(Path nb) throws Exception {
    Path out = tmp.resolve(nb.getFileName().toString().replace(".jsh", ""));
    Path log = tmp.resolve(nb.getFileName() + ".log");
    List<String> cmd = new ArrayList<>(List.of("bash", REPO.resolve("notebooks-java/run.sh").toString(), nb.toString(),
        "-Dout=" + out));
    // A notebook that starts from an audit folder gets the local-mode Mooncake audit this JVM
    // shares with StandaloneClusterIT (computed once), as a researcher passes -Daudit=out/audit.
    String verdict = null;
    if (Files.readString(nb).contains("System.getProperty(\"audit\")")) {
      Path audit = SharedAudits.mooncakeLocal();
      cmd.add("-Daudit=" + audit);
      verdict = Json.MAPPER.readTree(audit.resolve("audit.json").toFile()).get("verdict").asText();
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(REPO.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("SMETRIC_XMX", "1500m");
    Process p = pb.start();
    if (!p.waitFor(600, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError(nb + " did not finish in 600 s:\n" + Files.readString(log));
    }
    String text = Files.readString(log);
    assertEquals(0, p.exitValue(), text);
    for (String line : text.split("\n")) {
      assertFalse(line.startsWith("Exception ") || line.startsWith("Error:") || line.startsWith("|  Error"),
          nb + " failed at: " + line + "\n" + text);
    }
    assertTrue(text.contains("NOTEBOOK OK"), nb + " did not finish:\n" + text);
    if (verdict != null) assertTrue(text.contains("verdict: " + verdict + "\n"), nb + " did not read the given audit:\n" + text);
  }
}
