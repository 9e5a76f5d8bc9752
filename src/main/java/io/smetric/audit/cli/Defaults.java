package io.smetric.audit.cli;

import io.smetric.audit.common.Numbers;
import io.smetric.audit.hasher.LogFormat;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sweep.AuditPlan;
import io.smetric.audit.replay.sweep.SweepSummary;
import io.smetric.audit.replay.sweep.Uncertainty;
import java.util.ListResourceBundle;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The defaults the help texts print, read from where they are defined (ReplaySettings, the default
 * model profile, the audit sweep, the bootstrap), never typed into a description: an option whose
 * default lives in code (the replay's settings, a profile's numbers) cannot give picocli a constant
 * {@code defaultValue} without also overriding a --config file or a --profile, so its description
 * says {@code ${bundle:default.NAME}} and picocli looks the value up here (the resource bundle
 * {@link Main} sets on the command line, which its subcommands and their mixins share). Keys start
 * with {@code default.} so that none is taken for an option's description.
 */
public final class Defaults extends ListResourceBundle {
  @Override
  protected Object[][] getContents() {
    ReplaySettings s = ReplaySettings.defaults();
    ReplaySettings audit = s.with(AuditPlan::applyPace);
    return new Object[][] {
      {"default.profile", ModelProfile.DEFAULT_NAME},
      {"default.globalReadGBps", typed(s.profile.globalReadGBps)},
      {"default.instances", Integer.toString(s.instances)},
      {"default.instancesPerNode", Integer.toString(s.instancesPerNode)},
      {"default.nodeNicGBps", typed(s.nodeNicGBps)},
      {"default.globalAggregateGBps", "the profile's " + typed(s.profile.globalAggregateGBpsPerNode)
          + " GB/s per node x the nodes (" + ModelProfile.DEFAULT_NAME + ")"},
      {"default.seed", Long.toString(s.seed)},
      {"default.decodeInstances", Integer.toString(s.decodeInstances)},
      {"default.globalRatio", typed(s.globalRatio)},
      {"default.rateScale", typed(s.rateScale)},
      {"default.overload", typed(s.overload)},
      {"default.hitRatio", typed(s.hitRatio)},
      {"default.agentTimeoutS", typed(s.agentTimeoutS)},
      {"default.architecture", name(s.architecture)},
      {"default.kvModel", name(s.kvModel)},
      {"default.globalLoad", name(s.globalLoad)},
      {"default.rateScaling", name(s.rateScaling)},
      {"default.auditRateScaling", name(audit.rateScaling)},
      {"default.rateGrid", name(AuditPlan.RateGrid.ADAPTIVE)},
      {"default.bootstrap", Integer.toString(Uncertainty.DEFAULT_REPLICATES)},
      {"default.attainment", Double.toString(io.smetric.audit.replay.sweep.EqualLoad.TARGET_ATTAINMENT)},
      {"default.policies", Policies.names().replace(",", ", ")},
      {"default.auditGlobalRatios", AuditPlan.GLOBAL_RATIOS.stream().map(Defaults::typed).collect(Collectors.joining(","))},
      {"default.sensitivityGlobalRatio", typed(AuditPlan.SENSITIVITY_GLOBAL_RATIO)},
      {"default.auditPolicyCount", Integer.toString(AuditPlan.POLICIES.size())},
      {"default.rateMultipliers", java.util.Arrays.stream(AuditPlan.RATE_MULTIPLIERS).mapToObj(Defaults::typed)
          .collect(Collectors.joining(", "))},
      {"default.paperBaselines", String.join(", ", SweepSummary.PAPER_BASELINES)},
      {"default.logFormats", LogFormat.names()},
    };
  }

  /** A number as one would type it on the command line: 25, 21.75, Infinity. */
  static String typed(double x) {
    return Double.isInfinite(x) || Double.isNaN(x) ? Double.toString(x) : Numbers.exact(x);
  }

  /** An enum constant as its option value: IN_STEP -> in-step. */
  static String name(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
