package io.smetric.audit.replay.calibrate;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.UsageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Measurement arguments as the calibrate and validate commands take them: files or folders in any
 * format {@link MeasurementReader} reads, or {@code shipped:SET} for a set shipped in the jar.
 * Also the selection rules both commands share: one group at a time, and stages where the client
 * gave up on requests (overload) kept apart.
 */
public final class MeasurementInputs {
  private MeasurementInputs() {}

  /** Share of failed requests above which a stage is an overload the replay cannot reproduce. */
  public static final double OVERLOAD_FAILED_SHARE = 0.01;

  public static List<Measurement> read(List<String> args) {
    List<Measurement> out = new ArrayList<>();
    MeasurementReader reader = new MeasurementReader();
    for (String a : args) {
      if (a.startsWith("shipped:")) out.addAll(MeasurementReader.readResource(a.substring("shipped:".length())));
      else out.addAll(reader.readPath(Path.of(a)));
    }
    if (out.isEmpty()) throw new BadInputException(String.join(" ", args), "no measurement found");
    return out;
  }

  /** The measurements of one group: the one containing {@code group}, or the only group there is. */
  public static List<Measurement> oneGroup(List<Measurement> ms, String group) {
    List<Measurement> sel = ms.stream().filter(m -> group == null || (m.group() != null && m.group().contains(group))).toList();
    TreeSet<String> groups = new TreeSet<>();
    for (Measurement m : sel) groups.add(String.valueOf(m.group()));
    if (sel.isEmpty()) {
      TreeSet<String> all = new TreeSet<>();
      for (Measurement m : ms) all.add(String.valueOf(m.group()));
      throw new UsageException("--group " + group + " matches no measurement (groups: " + String.join(", ", all) + ")");
    }
    if (groups.size() > 1) {
      throw new UsageException("the measurements come from " + groups.size() + " groups (model, GPU, engine); a profile"
          + " describes one: choose it with --group (groups: " + String.join(", ", groups) + ")");
    }
    return sel;
  }

  /** Whether the client gave up on more than {@link #OVERLOAD_FAILED_SHARE} of the stage's requests. */
  public static boolean overloaded(Measurement m) {
    long done = m.measured().completed();
    long failed = m.measured().failed();
    return failed > 0 && failed > OVERLOAD_FAILED_SHARE * (done + failed);
  }

  /** A profile's measurements as its checks use them: fitted, held out (by id pattern), overloaded. */
  public record Split(List<Measurement> fit, List<Measurement> held, List<Measurement> over) {}

  /**
   * Splits measurements for a check: overloaded stages apart (the client gave up, no replay follows
   * them), then those whose id contains one of {@code heldOutPatterns}, the rest fitted.
   */
  public static Split split(List<Measurement> ms, List<String> heldOutPatterns) {
    List<Measurement> fit = new java.util.ArrayList<>();
    List<Measurement> held = new java.util.ArrayList<>();
    List<Measurement> over = new java.util.ArrayList<>();
    for (Measurement m : ms) {
      if (overloaded(m)) over.add(m);
      else if (heldOutPatterns.stream().anyMatch(x -> m.id().contains(x))) held.add(m);
      else fit.add(m);
    }
    return new Split(fit, held, over);
  }

  /** What the fit moves when not told (--fit): what the kinds of measurement present can tell apart. */
  public static List<String> defaultParams(List<Measurement> ms) {
    TreeSet<String> p = new TreeSet<>((a, b) -> Calibrator.FITTABLE.indexOf(a) - Calibrator.FITTABLE.indexOf(b));
    for (Measurement m : ms) {
      switch (m.kind()) {
        case STEP -> p.addAll(List.of("stepBaseS", "prefillPerTokenS", "prefillAttentionPerPairS", "decodePerSeqS",
            "decodePerContextTokenS"));
        case LOAD_STAGE -> p.addAll(List.of("frontendLatencyS", "stepBaseS", "decodePerSeqS", "decodePerContextTokenS"));
        case SINGLE_REQUEST -> {
          p.addAll(List.of("stepBaseS", "prefillPerTokenS", "prefillAttentionPerPairS"));
          // E2E alone cannot tell the prefill's per-token cost from the decode's per-context-token
          // cost (both grow linearly with the input): TTFT or TPOT can
          if (m.measured().ttft().hasMean() || m.measured().tpot().hasMean()) p.add("decodePerContextTokenS");
        }
      }
    }
    return new ArrayList<>(p);
  }
}
