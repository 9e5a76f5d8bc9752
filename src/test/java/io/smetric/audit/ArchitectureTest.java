package io.smetric.audit;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.replay.ModelProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The hub-and-spoke rule of docs/architecture.md, checked on the compiled main classes (tests
 * excluded, imported once): the hub (contract, common) imports no stage; each stage imports only
 * the hub and libraries, never another stage; the generator imports only the hub and only the CLI
 * imports it; only the CLI imports stages, and no command uses another command; no cycles between
 * top-level packages. A last test keeps each package in the source folder the layout gives it, so
 * the folders show the rule. Inside the replay, its packages are layers (trace, kv, policy, sim,
 * sweep and calibrate, each using only those below it); and the CLI sees of each stage only its
 * jobs, their options and their results (issue 30 item 4).
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

  static final String REPLAY = ROOT + ".replay";
  /** The replay's configuration, in its top package: read by every layer, built by the commands. */
  static final DescribedPredicate<JavaClass> REPLAY_SETTINGS = DescribedPredicate.describe("the replay's settings",
      c -> c.getPackageName().equals(REPLAY)
          && Set.of("ReplaySettings", "ModelProfile", "RouterKnob", "RecordedRouting").contains(outermost(c).getSimpleName()));
  /**
   * The rest of the replay's top package: the actions the CLI runs (ReplayJob with its ReplayPlanning
   * and ReplayWriter, TraceValidation, TraceCalibration, ShadowRouting, RecordTrace).
   */
  static final DescribedPredicate<JavaClass> REPLAY_ACTIONS = DescribedPredicate.describe("the replay's actions",
      c -> c.getPackageName().equals(REPLAY) && !REPLAY_SETTINGS.test(c));

  static JavaClass outermost(JavaClass c) {
    JavaClass o = c.getBaseComponentType();
    while (o.getEnclosingClass().isPresent()) o = o.getEnclosingClass().get();
    return o;
  }

  /**
   * The replay's layers, bottom up: the compact trace; the KV tiers that hold its blocks; the routing
   * policies, which see a ClusterView and never the tiers (policy/package-info); the simulator; and
   * beside each other on top, the sweeps and the calibration (which replays measured runs through
   * the simulator), with derive (profiles from facts, checked by calibration) above calibrate. The
   * settings sit above the trace (RecordedRouting is keyed by its requests) and below the policies;
   * the actions use them all, and no layer uses an action.
   */
  static ArchRule replayLayers() {
    return layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("trace").definedBy(REPLAY + ".trace..")
        .layer("kv").definedBy(REPLAY + ".kv..")
        .layer("settings").definedBy(REPLAY_SETTINGS)
        .layer("policy").definedBy(REPLAY + ".policy..")
        .layer("sim").definedBy(REPLAY + ".sim..")
        .layer("sweep").definedBy(REPLAY + ".sweep..")
        .layer("calibrate").definedBy(REPLAY + ".calibrate..")
        .layer("derive").definedBy(REPLAY + ".derive..")
        .layer("actions").definedBy(REPLAY_ACTIONS)
        .whereLayer("trace").mayNotAccessAnyLayer()
        .whereLayer("kv").mayOnlyAccessLayers("trace")
        .whereLayer("settings").mayOnlyAccessLayers("trace")
        .whereLayer("policy").mayOnlyAccessLayers("trace", "settings")
        .whereLayer("sim").mayOnlyAccessLayers("trace", "kv", "settings", "policy")
        .whereLayer("sweep").mayOnlyAccessLayers("trace", "kv", "settings", "policy", "sim")
        .whereLayer("calibrate").mayOnlyAccessLayers("trace", "kv", "settings", "policy", "sim")
        .whereLayer("derive").mayOnlyAccessLayers("trace", "kv", "settings", "policy", "sim", "calibrate")
        .whereLayer("actions").mayOnlyAccessLayers("trace", "kv", "settings", "policy", "sim", "sweep", "calibrate")
        // no exception: the settings do not check the policies' knobs themselves, whoever validates them
        // passes the policies' check (ReplaySettings.validate(Policies::checkConfigs), issue 30 item 2)
        .because("the replay is layered trace -> kv -> policy -> sim -> sweep and calibrate (docs/architecture.md)");
  }

  @Test
  void replay_isLayered() {
    replayLayers().check(MAIN);
  }

  /**
   * A routing policy reads its knobs from its own configuration record (Policies.SMetricConfig, ...),
   * built from the settings by the registry, never from the settings themselves (issue 30 item 2).
   */
  static ArchRule policiesReadOnlyTheirConfiguration() {
    return noClasses().that().implement(REPLAY + ".policy.Policy")
        .should().dependOnClassesThat().haveFullyQualifiedName(REPLAY + ".ReplaySettings")
        .because("each policy is constructed from its configuration record (policy.Policies), not the settings");
  }

  @Test
  void policies_readOnlyTheirConfiguration() {
    policiesReadOnlyTheirConfiguration().check(MAIN);
  }

  @Test
  void replay_everyClassIsInALayer() {
    // a new sub-package of the replay must be placed in the layers before the rule covers it
    List<String> known = List.of("trace", "kv", "policy", "sim", "sweep", "calibrate", "derive");
    List<String> unplaced = MAIN.stream()
        .filter(c -> c.getPackageName().startsWith(REPLAY + "."))
        .map(c -> c.getPackageName().substring(REPLAY.length() + 1).split("\\.")[0])
        .filter(p -> !known.contains(p)).distinct().toList();
    assertEquals(List.of(), unplaced);
  }

  static final String SETTINGS = REPLAY + ".ReplaySettings";

  /**
   * The replay's settings are an immutable value built by the commands (issue 30 item 2): every
   * field of ReplaySettings is final and only ReplaySettings itself (its constructor from its
   * Builder) sets one; the mutable schema a command fills is ReplaySettings.Builder.
   */
  static List<ArchRule> settingsRules() {
    return List.of(
        fields().that().areDeclaredIn(SETTINGS).and().areNotStatic().should().beFinal()
            .because("ReplaySettings is a value; its Builder is the mutable schema (docs/architecture.md)"),
        noClasses().that().doNotHaveFullyQualifiedName(SETTINGS)
            .should().setFieldWhere(DescribedPredicate.describe("the field is a ReplaySettings field",
                (JavaFieldAccess a) -> a.getTargetOwner().getName().equals(SETTINGS)))
            .because("settings are built (ReplaySettings.Builder, with), never changed in place"));
  }

  @Test
  void replaySettings_areAValue_setOnlyByTheirOwnConstructor() {
    assertTrue(MAIN.contain(SETTINGS), "ReplaySettings not imported");
    holdAll(settingsRules());
  }

  /**
   * What the CLI sees of a stage: its jobs (with their nested Options and Result), the jobs' inputs
   * and options, the names users type, and the results the commands print, each a class (and its
   * nested classes) relative to {@code io.smetric.audit}. The rest of a stage (engines, parsers,
   * readers, the simulator, the KV tiers, the policies themselves, the sweep's runners, the
   * renderers) is its own business.
   */
  static final Set<String> CLI_FACE = Set.of(
      // the stage jobs (docs/architecture.md, "Stage jobs")
      "ingest.IngestJob", "hasher.HashJob", "infer.InferenceJob", "characterize.CharacterizationJob",
      "measured.MeasuredCacheJob", "replay.ReplayJob", "report.ReportJob",
      // ingest: its --format values and how its inputs are named (files, folders, globs)
      "ingest.TraceFormat", "ingest.InputFiles",
      // hasher: its options, the salt, the log formats and tokenizers users name
      "hasher.HashSettings", "hasher.HashKey", "hasher.LogFormat", "hasher.TokenizerSpec",
      "infer.InferenceOptions",
      // characterize: the job's input and options (Characterization itself is the engine)
      "characterize.TraceInput", "characterize.Characterization$Options", "characterize.Characterization$Engine",
      // report: compare's job, its charts, the verdict
      "report.CompareReport", "report.ReportCharts$Entry", "report.verdict.Verdict", "report.verdict.Outcome",
      // report: what validate writes beside its console report (validation.json and its chart)
      "report.ValidationReport",
      // replay: its actions, their input (the loaded trace), settings, the names users type, the
      // audit plan's and sweep's defaults the options print, and the results of runs and progress
      "replay.TraceValidation", "replay.TraceCalibration", "replay.ShadowRouting", "replay.RecordTrace",
      "replay.ReplaySettings", "replay.ModelProfile", "replay.RecordedRouting",
      "replay.trace.TraceLoader", "replay.trace.ReplayTrace",
      "replay.policy.Policies", "replay.policy.RouterConfig",
      "replay.sweep.AuditPlan", "replay.sweep.Capacity", "replay.sweep.Conditions", "replay.sweep.EqualLoad",
      "replay.sweep.SweepSummary", "replay.sweep.Uncertainty",
      "replay.sweep.RunResult", "replay.sweep.SimSpec", "replay.sim.SimOutcome", "replay.sweep.SweepProgress",
      // calibrate and validate: the fit, its inputs (measurements), options and results
      "replay.calibrate.Calibrator", "replay.calibrate.Measurement", "replay.calibrate.MeasurementInputs",
      "replay.calibrate.MeasurementReplay$Options", "replay.calibrate.MeasurementRegime",
      "replay.calibrate.ProfileCalibration",
      // profiles derive: the deriver, its inputs (model facts, GPU), the learned factors, the cross-validation
      "replay.derive.ProfileDeriver", "replay.derive.ModelFacts", "replay.derive.GpuSpec", "replay.derive.Efficiency",
      "replay.derive.CrossValidation");

  static boolean inFace(String rel) {
    for (String f : CLI_FACE) if (rel.equals(f) || rel.startsWith(f + "$")) return true;
    return false;
  }

  /** "cli.X -> stage.Y" for each stage class outside the face that a CLI class uses (nested classes folded into their face). */
  static Set<String> cliPastFace(JavaClasses classes) {
    Set<String> found = new TreeSet<>();
    for (JavaClass c : classes) {
      if (!c.getPackageName().startsWith(ROOT + ".cli")) continue;
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass t = d.getTargetClass().getBaseComponentType();
        String rel = t.getName().startsWith(ROOT + ".") ? t.getName().substring(ROOT.length() + 1) : null;
        if (rel == null || STAGES.stream().noneMatch(s -> rel.startsWith(s + "."))) continue;
        if (inFace(rel)) continue;
        String shown = outermost(t).getName().substring(ROOT.length() + 1);
        found.add(outermost(c).getName().substring(ROOT.length() + 1) + " -> " + shown);
      }
    }
    return found;
  }

  @Test
  void cli_seesOnlyStageJobsOptionsAndResults() {
    assertEquals(Set.of(), cliPastFace(MAIN),
        "the CLI uses a stage's jobs, their options and results (ArchitectureTest.CLI_FACE); what a job does is the stage's own");
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

  /**
   * A model profile is a value (issue 30 item 2): the replay's runs and threads share one, and the
   * step-cost model reads its fields directly, so none may change once it is built, nor may its
   * sources, validation record, checks and regimes; their Builders are the mutable schemas files
   * are read into.
   */
  static ArchRule modelProfileIsAValue() {
    return fields().that().areDeclaredInClassesThat(belongToAnyOf(ModelProfile.class).and(not(simpleName("Builder"))))
        .and().areNotStatic().should().beFinal()
        .because("a ModelProfile is immutable: changed copies come from with() and toBuilder() (docs/architecture.md)");
  }

  @Test
  void modelProfile_isAValue() {
    modelProfileIsAValue().check(MAIN);
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
