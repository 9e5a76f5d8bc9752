package io.smetric.audit.replay.calibrate;

import java.util.List;

/**
 * One measured point: a single request, a load stage, or an engine step. {@code group} is what one
 * profile is fitted to (model / GPU / parallelism / engine, e.g. {@code
 * mixtral-8x7b/h100-sxm/tp2/vllm-0.15.1}); {@code source} names where the numbers come from (file
 * and line, or repository@commit:path). {@code workload} replays it (null for a step); {@code step}
 * is set only for {@link Kind#STEP}. {@code notes} say what a reader changed or could not know.
 * {@code requestTimeoutS} is the benchmark client's request timeout [s] where the run states it or
 * its tool's default is known (null = unknown: the replay's clients then never give up).
 */
public record Measurement(String id, String source, String group, Kind kind, EngineConfig engine,
    WorkloadSpec workload, Metrics measured, StepTiming step, String model, String hardware,
    List<String> notes, Double requestTimeoutS) {

  public Measurement {
    notes = notes == null ? List.of() : List.copyOf(notes);
    if (requestTimeoutS != null && !(requestTimeoutS > 0)) {
      throw new IllegalArgumentException(id + ": requestTimeoutS must be > 0 seconds, got " + requestTimeoutS);
    }
    engine = engine == null ? EngineConfig.UNKNOWN : engine;
    measured = measured == null ? Metrics.NONE : measured;
  }

  public Measurement(String id, String source, String group, Kind kind, EngineConfig engine,
      WorkloadSpec workload, Metrics measured, StepTiming step) {
    this(id, source, group, kind, engine, workload, measured, step, null, null, List.of(), null);
  }

  /** Without a known request timeout. */
  public Measurement(String id, String source, String group, Kind kind, EngineConfig engine,
      WorkloadSpec workload, Metrics measured, StepTiming step, String model, String hardware, List<String> notes) {
    this(id, source, group, kind, engine, workload, measured, step, model, hardware, notes, null);
  }
}
