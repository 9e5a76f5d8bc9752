package io.smetric.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the pipeline's dependency direction true: ingest and block-hasher -> analysis -> reports.
 * Every source file's imports and fully qualified references to project packages are checked
 * against the packages its stage folder may use.
 */
class StageDependencyTest {
  private static final Path REPO = Path.of(System.getProperty("smetric.repo", "."));

  /** Which stage owns each project package (the package folder under io/smetric/audit). */
  private static final Map<String, Set<String>> MAY_USE =
      Map.of(
          "ingest", Set.of("ingest"),
          "block-hasher", Set.of("ingest", "block-hasher"),
          "analysis", Set.of("ingest", "block-hasher", "analysis"),
          "reports", Set.of("ingest", "block-hasher", "analysis", "reports"));

  private static final Pattern REF = Pattern.compile("io\\.smetric\\.audit\\.([a-z_]+)");

  @Test
  void stageSources_referenceOnlyUpstreamStages() {
    Map<String, String> owner = packageOwners();
    List<String> violations = new ArrayList<>();
    int files = 0;
    for (String stage : MAY_USE.keySet()) {
      for (Path f : javaFiles(REPO.resolve(stage))) {
        files++;
        String text = read(f);
        Matcher m = REF.matcher(text);
        while (m.find()) {
          String pkgOwner = owner.get(m.group(1));
          if (pkgOwner != null && !MAY_USE.get(stage).contains(pkgOwner)) {
            violations.add(REPO.relativize(f) + " uses io.smetric.audit." + m.group(1) + " (" + pkgOwner + ")");
          }
        }
      }
    }
    assertTrue(files > 5, "expected to scan the stage sources, found " + files);
    assertEquals(List.of(), violations);
  }

  @Test
  void eachProjectPackage_livesInExactlyOneStage() {
    Map<String, String> owner = packageOwners();
    assertTrue(owner.containsKey("model") && owner.get("model").equals("ingest"));
  }

  private static Map<String, String> packageOwners() {
    Map<String, String> owner = new java.util.HashMap<>();
    for (String stage : MAY_USE.keySet()) {
      Path base = REPO.resolve(stage).resolve("io/smetric/audit");
      if (!Files.isDirectory(base)) continue;
      try (Stream<Path> s = Files.list(base)) {
        s.filter(Files::isDirectory).forEach(p -> {
          String prev = owner.put(p.getFileName().toString(), stage);
          if (prev != null && !prev.equals(stage)) {
            throw new AssertionError("package " + p.getFileName() + " is split across " + prev + " and " + stage);
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return owner;
  }

  private static List<Path> javaFiles(Path root) {
    if (!Files.isDirectory(root)) return List.of();
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.toString().endsWith(".java")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
