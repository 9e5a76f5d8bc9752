package io.smetric.audit.generate;

import io.smetric.audit.common.UsageException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * An immutable, validated set of {@link Param} values: a {@link Preset}'s defaults plus the
 * user's {@code --set key=value} overrides. Unknown keys and out-of-range values are usage errors
 * that name the key and its valid range.
 */
public final class GeneratorConfig {
  private final Preset preset;
  private final double[] values;

  GeneratorConfig(Preset preset, Map<Param, Double> v) {
    this.preset = preset;
    this.values = new double[Param.values().length];
    for (Param p : Param.values()) {
      Double d = v.get(p);
      if (d == null) throw new IllegalStateException("preset " + preset + " lacks " + p.key);
      values[p.ordinal()] = d;
    }
  }

  private GeneratorConfig(Preset preset, double[] values) {
    this.preset = preset;
    this.values = values;
  }

  public Preset preset() {
    return preset;
  }

  public double get(Param p) {
    return values[p.ordinal()];
  }

  public int getInt(Param p) {
    return (int) values[p.ordinal()];
  }

  /** A copy with one value replaced; validates it against the parameter's range and kind. */
  public GeneratorConfig with(Param p, double value) {
    if (Double.isNaN(value) || value < p.min || value > p.max) {
      throw new UsageException("--set " + p.key + "=" + p.fmt(value) + ": out of range " + p.range());
    }
    if (p.integer && value != Math.rint(value)) {
      throw new UsageException("--set " + p.key + ": must be an integer, got " + value);
    }
    double[] copy = Arrays.copyOf(values, values.length);
    copy[p.ordinal()] = value;
    return new GeneratorConfig(preset, copy);
  }

  /** Applies one {@code key=value} override as given on the command line. */
  public GeneratorConfig with(String assignment) {
    int eq = assignment.indexOf('=');
    if (eq <= 0) throw new UsageException("--set expects key=value, got '" + assignment + "'");
    String key = assignment.substring(0, eq).trim();
    String raw = assignment.substring(eq + 1).trim();
    Param p = Param.byKey(key);
    if (p == null) {
      throw new UsageException("--set: unknown parameter '" + key + "' (see generate --list-params)");
    }
    double value;
    try {
      value = Double.parseDouble(raw);
    } catch (NumberFormatException e) {
      throw new UsageException("--set " + key + ": not a number: '" + raw + "'");
    }
    return with(p, value);
  }

  /** Checks relations between parameters that single ranges cannot express. */
  public void validate() {
    double types = get(Param.TYPE_SEARCH_PROB) + get(Param.TYPE_IMAGE_PROB) + get(Param.TYPE_FILE_PROB);
    if (types > 1.0 + 1e-12) {
      throw new UsageException(String.format(Locale.ROOT,
          "type_search_prob + type_image_prob + type_file_prob = %.4f exceeds 1", types));
    }
    if (getInt(Param.FRAMEWORKS) == 0 && getInt(Param.SYSTEM_PROMPT_TOKENS) > 0) {
      throw new UsageException("system_prompt_tokens > 0 needs frameworks >= 1");
    }
  }

  /**
   * Expected requests per root session, including its sub-agent sessions: E[turns] is exact for
   * the discrete Pareto (sum of t^-alpha); forks are approximated as fork_prob per non-final turn
   * times the mean number of sub-agents per spawn times E[fork turns]. Used only to turn
   * --instances-hint into a session rate.
   */
  public double expectedRequestsPerRootSession() {
    double aux = getInt(Param.FRAMEWORKS) > 0 ? get(Param.AUX_PROB) : 0;
    double turns = paretoMean(get(Param.TURNS_ALPHA), getInt(Param.MAX_TURNS));
    if (getInt(Param.MAX_FORK_DEPTH) < 1) return aux + (1 - aux) * turns;
    double forkTurns = paretoMean(get(Param.FORK_TURNS_ALPHA), getInt(Param.FORK_MAX_TURNS));
    double pp = get(Param.FORK_PARALLEL_PROB);
    double perSpawn = (1 - pp) + pp * (2 + getInt(Param.FORK_PARALLEL_MAX)) / 2.0;
    return aux + (1 - aux) * (turns + get(Param.FORK_PROB) * (turns - 1) * perSpawn * forkTurns);
  }

  static double paretoMean(double alpha, int max) {
    double s = 0;
    for (int t = 1; t <= max; t++) s += StrictMath.pow(t, -alpha);
    return s;
  }

  /** {@code key=value} lines of every parameter, in declaration order. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    for (Param p : Param.values()) sb.append(p.key).append('=').append(p.fmt(get(p))).append('\n');
    return sb.toString();
  }
}
