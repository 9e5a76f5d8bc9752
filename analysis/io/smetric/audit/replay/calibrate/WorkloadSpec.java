package io.smetric.audit.replay.calibrate;

import io.smetric.audit.contract.TraceRecord;
import java.util.List;

/**
 * A workload as the benchmark tool that measured a run generated it, precise enough to replay:
 * {@link #synthesize} gives the requests (arrival, prompt and output tokens, chained block ids with
 * the prefix sharing the tool produced, sessions and turns where the tool had conversations), ready
 * for {@code ReplayTraceBuilder.fromRecords(records, false)}. Token contents are not reproduced
 * (the tools draw random tokens); equal block ids mean equal token contents, as in the real run.
 *
 * <p>Request ids start with {@code s<stage>-} so a replayed request can be mapped to the stage whose
 * measured summary it is compared with ({@link #stageOf}).
 */
public sealed interface WorkloadSpec permits SingleRequestWorkload, SharedPrefixWorkload, SampledWorkload {

  /** The requests in arrival order (ties in sequence order); deterministic for a given seed. */
  List<TraceRecord> synthesize(long seed);

  /**
   * Closed-loop clients: at most this many requests in flight, the next one sent when one finishes
   * (vllm bench serve {@code --max-concurrency}, GuideLLM concurrent/synchronous). {@code null} =
   * open loop: requests are sent at their arrival times whatever the server does.
   */
  Integer concurrency();

  /** The intended send window in seconds from the first arrival to the last ({@code NaN} if none). */
  double durationS();

  /** Tokens per block of the synthesised block ids (the engine's block size). */
  int blockSize();

  /** The load stages in order, with their nominal arrival windows. */
  List<Stage> stages();

  /** The stage a synthesised record belongs to. */
  default int stageOf(TraceRecord r) {
    String id = r.requestId();
    if (id != null && id.length() > 1 && id.charAt(0) == 's') {
      int dash = id.indexOf('-');
      if (dash > 1) {
        try {
          return Integer.parseInt(id.substring(1, dash));
        } catch (NumberFormatException e) {
          // not a synthesised id
        }
      }
    }
    throw new IllegalArgumentException("not a synthesised request id: " + id);
  }

  /** One load stage: requests offered at {@code rate} per second (NaN = not rate-driven) in [startS, endS]. */
  record Stage(int index, double startS, double endS, double rate) {}
}
