package io.smetric.audit.replay.calibrate;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Replays one real measurement on one simulated instance and reports what the replay predicts
 * for the numbers the run measured: the workload as the benchmark tool generated it
 * ({@link WorkloadSpec#synthesize}), the engine's limits as the run set them ({@link EngineConfig}:
 * max sequences, token budget, KV cache size, prefix caching), the instance's costs from the
 * profile. Metrics follow {@link Metrics}' definitions over the requests of the measured stage.
 */
public final class MeasurementReplay {
  private MeasurementReplay() {}

  /**
   * @param seed the synthesiser's seed
   * @param maxStageS replay only the first this many seconds of arrivals of every stage (Infinity =
   *     all, the default: a stage's first requests miss the prefix cache, and a shortened replay
   *     weighs these misses more than the run did)
   * @param requestTimeouts apply the measurement's client request timeout (true, the default) or
   *     let the replay's clients wait forever (false: the replay before client timeouts)
   */
  public record Options(long seed, double maxStageS, boolean requestTimeouts) {
    public static final Options DEFAULT = new Options(42, Double.POSITIVE_INFINITY, true);

    public Options(long seed, double maxStageS) {
      this(seed, maxStageS, true);
    }
  }

  /** What the replay gives for a measurement, in the measurement's own terms. */
  public record Predicted(Metrics metrics, int requests, long preemptions, double meanRunning) {}

  /** The profile with the run's engine limits (max sequences, token budget, measured KV size). */
  public static ModelProfile engineProfile(ModelProfile base, EngineConfig e) {
    ModelProfile.Builder p = base.toBuilder();
    if (e.maxNumSeqs() != null) p.maxBatch = e.maxNumSeqs();
    if (e.maxNumBatchedTokens() != null) p.tokenBudget = e.maxNumBatchedTokens();
    if (e.numGpuBlocks() != null && e.blockSize() != null) p.kvCapacityTokens = e.numGpuBlocks() * e.blockSize();
    if (Boolean.FALSE.equals(e.chunkedPrefill())) p.prefillChunkTokens = 0;
    return p.build();
  }

  public static Predicted replay(Measurement m, ModelProfile base, Options o) {
    WorkloadSpec w = m.workload();
    if (w == null) throw new IllegalArgumentException(m.id() + ": no workload to replay");
    List<TraceRecord> all = w.synthesize(o.seed());
    List<WorkloadSpec.Stage> stages = w.stages();
    Integer measured = w instanceof SharedPrefixWorkload sp ? sp.measuredStage() : null;
    List<TraceRecord> records = new ArrayList<>(all.size());
    for (TraceRecord r : all) {
      if (Double.isFinite(o.maxStageS()) && !stages.isEmpty()) {
        WorkloadSpec.Stage st = stages.get(w.stageOf(r));
        if (r.arrivalS() - st.startS() >= o.maxStageS()) continue;
        if (measured != null && st.index() > measured) continue; // later stages cannot change it
      }
      records.add(r);
    }
    ReplaySettings.Builder b = new ReplaySettings.Builder();
    b.profile = engineProfile(base, m.engine());
    b.instances = 1;
    b.agentTimeoutS = Double.POSITIVE_INFINITY;
    // the benchmark client's timeout: a request it gave up on is aborted in the engine and left out
    // of the summary, as the tool's report leaves it out (Metrics.failed counts it)
    if (o.requestTimeouts()) b.requestTimeoutS = m.requestTimeoutS();
    if (Boolean.FALSE.equals(m.engine().prefixCaching())) b.prefixCaching = false;
    Integer clients = w.concurrency();
    if (clients != null) { // closed-loop clients: each sends its next request when the last is done
      records = asClients(records, clients);
      b.followUpsWaitForPrevious = true;
    } else if (records.stream().anyMatch(r -> r.parentId() != null || (r.turn() != null && r.turn() > 0))) {
      b.followUpsWaitForPrevious = true; // a conversation's next round waits for the previous answer
    }
    ReplaySettings s = b.build();
    s.validate(Policies::checkConfigs);
    ReplayTrace t = ReplayTraceBuilder.fromRecords(records, false);
    Simulator sim = new Simulator(t, s, Policies.ROUND_ROBIN.create(s));
    SimOutcome out = sim.run();
    boolean[] in = new boolean[t.n];
    int count = 0;
    for (int r = 0; r < t.n; r++) {
      in[r] = measured == null || stageOfId(w, t.requestIds[r]) == measured;
      if (in[r]) count++;
    }
    return new Predicted(metricsOf(out, in), count, out.preemptions, meanRunning(out, in));
  }

  private static int stageOfId(WorkloadSpec w, String id) {
    return w.stageOf(new TraceRecord(id, null, null, null, null, 0, 1, 1, null, null, null, 0));
  }

  /** Requests re-assigned to {@code clients} closed-loop clients (a client's requests form a chain). */
  private static List<TraceRecord> asClients(List<TraceRecord> records, int clients) {
    List<TraceRecord> out = new ArrayList<>(records.size());
    int[] turn = new int[clients];
    for (int k = 0; k < records.size(); k++) {
      TraceRecord r = records.get(k);
      int c = k % clients;
      out.add(new TraceRecord(r.requestId(), "client-" + c, null, turn[c]++, r.trigger(), r.arrivalS(),
          r.inputTokens(), r.outputTokens(), r.blockSize(), r.blocks(), r.requestType(), r.seq()));
    }
    return out;
  }

  /** Little's law over the measured requests: their total time in the system / the span. */
  private static double meanRunning(SimOutcome o, boolean[] in) {
    double sum = 0;
    double first = Double.POSITIVE_INFINITY;
    double last = Double.NEGATIVE_INFINITY;
    for (int r = 0; r < in.length; r++) {
      if (!in[r]) continue;
      sum += o.finish[r] - o.arrival[r];
      first = Math.min(first, o.arrival[r]);
      last = Math.max(last, o.finish[r]);
    }
    return last > first ? sum / (last - first) : 0;
  }

  /**
   * TTFT, TPOT ((E2E - TTFT) / (tokens - 1)), E2E over the selected requests the client did not
   * abort (benchmark tools summarise completed requests); rates over their span; completed and
   * failed (aborted at the request timeout) counted.
   */
  static Metrics metricsOf(SimOutcome o, boolean[] in) {
    int n = 0;
    int failed = 0;
    for (int r = 0; r < in.length; r++) {
      if (!in[r]) continue;
      if (o.aborted(r)) failed++;
      else n++;
    }
    double[] ttft = new double[n];
    double[] e2e = new double[n];
    double[] tpot = new double[n];
    int k = 0;
    int kt = 0;
    long outTok = 0;
    long allTok = 0;
    double first = Double.POSITIVE_INFINITY;
    double last = Double.NEGATIVE_INFINITY;
    for (int r = 0; r < in.length; r++) {
      if (!in[r] || o.aborted(r)) continue;
      ttft[k] = o.ttft(r);
      e2e[k] = o.finish[r] - o.arrival[r];
      k++;
      double tp = o.tpot(r);
      if (!Double.isNaN(tp)) tpot[kt++] = tp;
      outTok += o.trace.output[r];
      allTok += o.trace.output[r] + (long) o.trace.input[r];
      first = Math.min(first, o.arrival[r]);
      last = Math.max(last, o.finish[r]);
    }
    double span = last - first;
    return new Metrics(stat(ttft, n), stat(tpot, kt), Stat.NONE, stat(e2e, n),
        span > 0 ? n / span : Double.NaN, span > 0 ? outTok / span : Double.NaN,
        span > 0 ? allTok / span : Double.NaN, n, failed);
  }

  private static Stat stat(double[] v, int n) {
    if (n == 0) return Stat.NONE;
    double[] s = Arrays.copyOf(v, n);
    Arrays.sort(s);
    double sum = 0;
    for (double x : s) sum += x;
    return new Stat(sum / n, rank(s, 0.5), rank(s, 0.9), rank(s, 0.99));
  }

  /** Nearest rank, the contract's convention. */
  private static double rank(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
