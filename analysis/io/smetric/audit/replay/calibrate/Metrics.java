package io.smetric.audit.replay.calibrate;

/**
 * What a run measured. Latencies in seconds: TTFT; TPOT = time per output token after the first,
 * per request ((E2E - TTFT) / (tokens - 1)); ITL = the gaps between consecutive tokens; E2E =
 * request latency. Rates per second; {@code NaN} = not reported.
 */
public record Metrics(Stat ttft, Stat tpot, Stat itl, Stat e2e, double requestsPerS,
    double outputTokensPerS, double totalTokensPerS, long completed, long failed) {

  public static final Metrics NONE =
      new Metrics(Stat.NONE, Stat.NONE, Stat.NONE, Stat.NONE, Double.NaN, Double.NaN, Double.NaN, 0, 0);
}
