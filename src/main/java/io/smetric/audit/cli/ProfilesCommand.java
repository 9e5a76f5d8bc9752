package io.smetric.audit.cli;

import io.smetric.audit.replay.ModelProfile;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code profiles [NAME|FILE]}: the shipped model profiles, or one profile in full with the source of every number. */
@Command(name = "profiles", mixinStandardHelpOptions = true,
    description = {"Lists the shipped model profiles (model, hardware, engine; error on the fitted runs, leave-one-out",
        "and held-out runs apart; the regime they were checked in), or prints one profile in full (YAML)",
        "with the source of every number. Use one with --profile NAME|FILE."})
public final class ProfilesCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "0..1", paramLabel = "NAME|FILE", description = "A profile to print in full.")
  String profile;

  @Override
  public Integer call() {
    PrintWriter w = spec.commandLine().getOut();
    if (profile != null) {
      ModelProfile p = ModelProfile.resolve(profile);
      w.print(p.toYaml());
      List<String> missing = p.unsourcedFields();
      if (!missing.isEmpty()) w.println("# no source given for: " + String.join(", ", missing));
      // the validation record in words, as YAML comments so the output stays a loadable profile
      java.io.StringWriter text = new java.io.StringWriter();
      StagePrint.validationRecord(new PrintWriter(text), p.validation);
      text.toString().lines().forEach(l -> w.println("# " + l));
      return 0;
    }
    for (String n : ModelProfile.catalogue()) {
      ModelProfile p = ModelProfile.named(n);
      w.printf(Locale.ROOT, "%-26s %s on %s, %s%s%n", n, p.model, p.hardware, p.engine,
          n.equals(ModelProfile.DEFAULT_NAME) ? " (default)" : "");
      w.printf(Locale.ROOT, "%-26s %s%n", "", p.validation == null || p.validation.summary == null
          ? "not validated" : p.validation.summary);
      if (p.validation != null && p.validation.regime != null) {
        w.printf(Locale.ROOT, "%-26s checked in: %s%n", "", p.validation.regime.summary);
      }
    }
    w.println("(fit = in-sample; leave-one-out = the fitted runs, each predicted without itself; held-out = runs the fit");
    w.println(" never saw. `smetric-audit profiles NAME` prints one with the source of every number; docs/validation.md)");
    return 0;
  }
}
