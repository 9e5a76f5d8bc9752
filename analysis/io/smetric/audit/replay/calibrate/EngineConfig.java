package io.smetric.audit.replay.calibrate;

/**
 * The serving engine's settings that decide timing; {@code null} = unknown (the source did not say).
 * {@code cpuOffloadBytes} is the engine's own CPU KV offload space (vLLM OffloadingConnector), if any.
 */
public record EngineConfig(String engine, String version, Integer tensorParallel, Integer maxNumSeqs,
    Integer maxNumBatchedTokens, Integer blockSize, Boolean prefixCaching, Boolean chunkedPrefill,
    Double gpuMemoryUtilization, Long numGpuBlocks, Integer maxModelLen, Long cpuOffloadBytes) {

  public static final EngineConfig UNKNOWN =
      new EngineConfig(null, null, null, null, null, null, null, null, null, null, null, null);

  public EngineConfig(String engine, String version, Integer tensorParallel, Integer maxNumSeqs,
      Integer maxNumBatchedTokens, Integer blockSize, Boolean prefixCaching, Boolean chunkedPrefill,
      Double gpuMemoryUtilization, Long numGpuBlocks, Integer maxModelLen) {
    this(engine, version, tensorParallel, maxNumSeqs, maxNumBatchedTokens, blockSize, prefixCaching,
        chunkedPrefill, gpuMemoryUtilization, numGpuBlocks, maxModelLen, null);
  }

  /** Only the engine's name and version known. */
  public static EngineConfig named(String engine, String version) {
    return new EngineConfig(engine, version, null, null, null, null, null, null, null, null, null, null);
  }
}
