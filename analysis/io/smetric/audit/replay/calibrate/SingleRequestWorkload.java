package io.smetric.audit.replay.calibrate;

import io.smetric.audit.contract.TraceRecord;
import java.util.List;

/**
 * One request on an idle engine (batch 1), as speed tables measure it: {@code inputTokens} of
 * content shared with nothing, {@code outputTokens} generated.
 */
public record SingleRequestWorkload(int inputTokens, int outputTokens, int blockSize) implements WorkloadSpec {

  public SingleRequestWorkload {
    if (inputTokens <= 0) throw new IllegalArgumentException("inputTokens must be > 0: " + inputTokens);
    if (outputTokens <= 0) throw new IllegalArgumentException("outputTokens must be > 0: " + outputTokens);
    if (blockSize <= 0) throw new IllegalArgumentException("blockSize must be > 0: " + blockSize);
  }

  @Override
  public List<TraceRecord> synthesize(long seed) {
    long[] blocks = new PromptBlocks().add(PromptBlocks.key(seed, 4, 0, 0, 0), inputTokens).chainedBlocks(blockSize);
    return List.of(new TraceRecord("s0-0", null, null, null, "user", 0.0, inputTokens, outputTokens, blockSize,
        blocks, null, 0));
  }

  @Override
  public Integer concurrency() {
    return 1;
  }

  @Override
  public double durationS() {
    return 0.0;
  }

  @Override
  public List<Stage> stages() {
    return List.of(new Stage(0, 0.0, 0.0, Double.NaN));
  }
}
