package io.smetric.audit;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.smetric.audit.contract.Canonical;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The hub-and-spoke rule of docs/architecture.md, checked on the compiled main classes (tests
 * excluded, imported once): the hub (contract, common) imports no stage; each stage imports only
 * the hub and libraries, never another stage; the generator imports only the hub and only the CLI
 * imports it; only the CLI imports stages, and no command uses another command; no cycles between
 * top-level packages. A last test keeps each package in the source folder the layout gives it, so
 * the folders show the rule.
 */
class ArchitectureTest {
  static final String ROOT = "io.smetric.audit";
  /** The hub every stage may import. */
  static final String[] HUB = {ROOT + ".contract..", ROOT + ".common.."};
  /** The stages, each a spoke: a package (with sub-packages) that reaches the others only through files. */
  static final List<String> STAGES = List.of("ingest", "hasher", "infer", "characterize", "measured", "replay", "report");
  static final String CLI = ROOT + ".cli..";
  static final String GENERATE = ROOT + ".generate..";

  /** Which source folder holds each top-level package (docs/architecture.md, "Layout"). */
  static final Map<String, String> FOLDER =
      Map.ofEntries(
          Map.entry("contract", "src/main/java"), Map.entry("common", "src/main/java"),
          Map.entry("cli", "src/main/java"), Map.entry("generate", "src/main/java"),
          Map.entry("ingest", "ingest"), Map.entry("hasher", "block-hasher"),
          Map.entry("infer", "analysis"), Map.entry("characterize", "analysis"),
          Map.entry("measured", "analysis"), Map.entry("replay", "analysis"),
          Map.entry("report", "reports"));

  /**
   * The main classes only, read once from the folder (or jar) that holds them: scanning the class
   * path for the package would open every Spark jar. Classes outside are kept as names, not read
   * (src/test/resources/archunit.properties).
   */
  static final JavaClasses MAIN =
      new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importUrl(Canonical.class.getProtectionDomain().getCodeSource().getLocation());

  static String pkg(String stage) {
    return ROOT + "." + stage + "..";
  }

  @Test
  void mainClasses_areImported() {
    // a wrong import path would make every rule below pass on nothing
    assertTrue(MAIN.size() > 300, "imported " + MAIN.size() + " classes");
    for (String p : FOLDER.keySet()) {
      assertTrue(MAIN.stream().anyMatch(c -> c.getPackageName().startsWith(ROOT + "." + p)), "no class in " + p);
    }
  }

  @Test
  void everyClass_livesInAKnownPackage() {
    // a new top-level package must be placed (hub, stage, generator or CLI) before the rules cover it
    classes().should().resideInAnyPackage(FOLDER.keySet().stream().map(ArchitectureTest::pkg).toArray(String[]::new))
        .because("every package is the hub, a stage, the generator or the CLI (docs/architecture.md)")
        .check(MAIN);
  }

  @Test
  void hub_importsNoStageGeneratorOrCli() {
    noClasses().that().resideInAnyPackage(HUB)
        .should().dependOnClassesThat(resideInAPackage(ROOT + "..").and(not(resideInAnyPackage(HUB))))
        .because("the contract and the common helpers are what every stage shares; they know no stage")
        .check(MAIN);
  }

  @Test
  void eachStage_importsOnlyTheHub() {
    holdAll(STAGES.stream().map(ArchitectureTest::stageRule).toList());
  }

  static ArchRule stageRule(String stage) {
    List<String> allowed = new ArrayList<>(List.of(HUB));
    allowed.add(pkg(stage));
    return noClasses().that().resideInAPackage(pkg(stage))
        .should().dependOnClassesThat(resideInAPackage(ROOT + "..").and(not(resideInAnyPackage(allowed.toArray(String[]::new)))))
        .because("a stage meets the others only through the files named in the contract; the CLI composes stages");
  }

  @Test
  void generator_importsOnlyTheHub_andOnlyTheCliImportsIt() {
    holdAll(List.of(
        noClasses().that().resideInAPackage(GENERATE)
            .should().dependOnClassesThat(resideInAPackage(ROOT + "..").and(not(resideInAnyPackage(HUB[0], HUB[1], GENERATE))))
            .because("the generator writes input traces; it stands apart from the pipeline"),
        classes().that().resideInAPackage(GENERATE)
            .should().onlyHaveDependentClassesThat().resideInAnyPackage(GENERATE, CLI)));
  }

  @Test
  void onlyTheCli_importsStages() {
    holdAll(STAGES.stream()
        .map(stage -> classes().that().resideInAPackage(pkg(stage))
            .should().onlyHaveDependentClassesThat().resideInAnyPackage(pkg(stage), CLI)
            .because("the CLI is the top: it alone composes stages"))
        .toList());
  }

  @Test
  void commands_doNotCallOtherCommands() {
    // the audit composes stage jobs, not commands; what two commands print alike is in StagePrint
    List<JavaClass> commands = MAIN.stream()
        .filter(c -> c.getPackageName().equals(ROOT + ".cli") && c.getSimpleName().endsWith("Command") && c.isTopLevelClass())
        .toList();
    assertTrue(commands.size() > 5, "found " + commands.size() + " commands");
    holdAll(commands.stream()
        .map(c -> noClasses().that().resideInAPackage(ROOT + ".cli").and().haveNameMatching(Pattern.quote(c.getName()) + "(\\$.*)?")
            .should().dependOnClassesThat(DescribedPredicate.describe("another command",
                (JavaClass t) -> t.getPackageName().equals(ROOT + ".cli") && t.getSimpleName().endsWith("Command")
                    && !t.getName().equals(c.getName())))
            .because("commands never call commands: the CLI composes stage jobs"))
        .toList());
  }

  /** Evaluates every rule and reports all violations together (not only the first rule's). */
  static void holdAll(List<ArchRule> rules) {
    List<String> failures = new ArrayList<>();
    for (ArchRule r : rules) {
      EvaluationResult e = r.evaluate(MAIN);
      if (e.hasViolation()) failures.add(e.getFailureReport().toString());
    }
    assertEquals(List.of(), failures);
  }

  @Test
  void topLevelPackages_haveNoCycles() {
    slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void eachPackage_livesInItsFolder() {
    Path repo = Path.of(System.getProperty("smetric.repo", "."));
    Map<String, List<String>> found = new TreeMap<>();
    for (String folder : List.of("src/main/java", "ingest", "block-hasher", "analysis", "reports")) {
      Path base = repo.resolve(folder).resolve(ROOT.replace('.', '/'));
      if (!Files.isDirectory(base)) continue;
      try (Stream<Path> s = Files.list(base)) {
        s.filter(Files::isDirectory).forEach(p -> found.computeIfAbsent(p.getFileName().toString(), k -> new ArrayList<>()).add(folder));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    Map<String, List<String>> expected = new TreeMap<>();
    FOLDER.forEach((p, f) -> expected.put(p, List.of(f)));
    assertEquals(expected, found);
  }
}
