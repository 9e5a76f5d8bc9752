package io.smetric.audit.replay.sim;

import io.smetric.audit.contract.ReplayTables.RunMetrics;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.ReplaySettings.Architecture;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one simulation produced: per-request routing and timing, plus the time series, and the
 * metrics derived from them (docs/replay.md, "Metrics"). A metric that cannot be computed on this
 * trace is absent from {@link #metrics} and present in {@link #notApplicable} with its reason.
 */
public final class SimOutcome {
  public final ReplayTrace trace;
  public final ReplaySettings settings;
  public final double[] arrival;
  public final int[] instance;
  public final int[] localHitBlocks;
  public final int[] globalHitBlocks;
  public final double[] firstToken;
  public final double[] finish;
  /** Time-averaged in-flight token load, [instance][window]. */
  public final double[][] loadWindows;
  /** Global-tier bytes read per bandwidth window. */
  public final double[] bandwidthWindows;
  public final long steps;
  /** Running requests preempted for KV memory (vLLM recompute) over the run. */
  public final long preemptions;
  public final double end;
  /** When each request was first admitted to a batch (NaN = never): arrival to here is its queue wait. */
  public final double[] admitted;
  /**
   * Requests the client aborted at its request timeout (ReplaySettings.requestTimeoutS); an empty
   * array without one. Their finish is the abort (send + timeout) and their first token NaN unless
   * one came before it.
   */
  private final boolean[] aborted;
  /**
   * Per request: its place in the order the client sent them (0 = first); among equal send times
   * the simulator's event order, which a replay at the send times must keep (RecordTrace writes it
   * as the recorded trace's seq).
   */
  public final int[] sendRank;

  public final Map<String, Object> metrics = new LinkedHashMap<>();
  public final Map<String, String> notApplicable = new TreeMap<>();
  /** Quantile points q = k / (cdfPoints) for k = 1..cdfPoints, nearest rank. */
  public double[] ttftCdf;
  public double[] tpotCdf;
  /** Per window: max/mean of loadWindows over instances (NaN when the mean is 0). */
  public double[] imbalance;

  SimOutcome(ReplayTrace trace, ReplaySettings settings, double[] arrival, int[] instance,
      int[] localHitBlocks, int[] globalHitBlocks, double[] firstToken, double[] finish,
      double[][] loadWindows, double[] bandwidthWindows, long steps, double end, long preemptions, double[] admitted,
      boolean[] aborted, int[] sendRank) {
    this.trace = trace;
    this.sendRank = sendRank;
    this.admitted = admitted;
    this.aborted = aborted == null ? new boolean[0] : aborted;
    this.settings = settings;
    this.arrival = arrival;
    this.instance = instance;
    this.localHitBlocks = localHitBlocks;
    this.globalHitBlocks = globalHitBlocks;
    this.firstToken = firstToken;
    this.finish = finish;
    this.loadWindows = loadWindows;
    this.bandwidthWindows = bandwidthWindows;
    this.steps = steps;
    this.end = end;
    this.preemptions = preemptions;
    compute();
  }

  public double ttft(int r) {
    return firstToken[r] - arrival[r];
  }

  /** TPOT of r, NaN when it has fewer than two output tokens or decode is not simulated. */
  public double tpot(int r) {
    if (!decodes() || trace.output[r] <= 1) return Double.NaN;
    return (finish[r] - firstToken[r]) / (trace.output[r] - 1);
  }

  /** Whether decode is simulated: colocated, or disaggregated with a decode pool. */
  public boolean decodes() {
    return settings.architecture == Architecture.COLOCATED || settings.decodeInstances > 0;
  }

  /**
   * Whether r failed: its client aborted it at the request timeout, or its response was not complete
   * within the agent timeout of its sending.
   */
  public boolean timedOut(int r) {
    return aborted(r) || !(finish[r] - arrival[r] <= settings.agentTimeoutS);
  }

  /** Whether the client aborted r at the request timeout (the engine dropped it unfinished). */
  public boolean aborted(int r) {
    return aborted.length > 0 && aborted[r];
  }

  public boolean metSlo(int r) {
    // an aborted request (client timeout) failed whatever its times say
    return !aborted(r) && metSlo(trace, settings, r, arrival[r], firstToken[r], finish[r]);
  }

  /**
   * Whether request r, sent at {@code sent}, with its first token at {@code first} and its
   * response complete at {@code done}, met the TTFT and TPOT SLO and did not time out: the one
   * rule behind {@code slo_attainment}, which the simulator's early decision
   * ({@link Simulator#decide}) applies as each request completes.
   */
  static boolean metSlo(ReplayTrace trace, ReplaySettings settings, int r, double sent, double first, double done) {
    if (!(done - sent <= settings.agentTimeoutS)) return false;
    double slo = settings.ttftBaseS + settings.ttftPerTokenS * trace.input[r];
    if (first - sent > slo) return false;
    boolean decodes = settings.architecture == Architecture.COLOCATED || settings.decodeInstances > 0;
    if (!decodes || trace.output[r] <= 1) return true;
    return (done - first) / (trace.output[r] - 1) <= settings.tpotS;
  }

  private void compute() {
    ReplayTrace t = trace;
    int n = t.n;
    boolean colo = decodes();
    double start = n == 0 ? 0 : arrival[0];
    double duration = Math.max(end - start, 1e-9);
    long inTok = 0;
    long outTok = 0;
    long goodTok = 0;
    int met = 0;
    int failed = 0;
    int missTtft = 0;
    int missTpotOnly = 0;
    long localTok = 0;
    long globalTok = 0;
    long globalBlocks = 0;
    double[] ttfts = new double[n];
    double[] tpots = new double[n];
    int nt = 0;
    int nf = 0;
    int nAborted = 0;
    for (int r = 0; r < n; r++) {
      inTok += t.input[r];
      outTok += t.output[r];
      if (timedOut(r)) failed++;
      boolean ok = metSlo(r);
      if (ok) {
        met++;
        goodTok += colo ? (long) t.input[r] + t.output[r] : t.input[r];
      } else if (!timedOut(r)) {
        // which SLO binds: a first token late (whatever the decode did), or only the decode pace
        if (ttft(r) > settings.ttftBaseS + settings.ttftPerTokenS * t.input[r]) missTtft++;
        else missTpotOnly++;
      }
      long lt = t.tokensOf(r, localHitBlocks[r]);
      localTok += lt;
      globalTok += t.tokensOf(r, localHitBlocks[r] + globalHitBlocks[r]) - lt;
      globalBlocks += globalHitBlocks[r];
      if (aborted(r)) { // as benchmark tools report: the percentiles are over completed requests
        nAborted++;
        continue;
      }
      ttfts[nf++] = ttft(r);
      double tp = tpot(r);
      if (!Double.isNaN(tp)) tpots[nt++] = tp;
    }
    tpots = Arrays.copyOf(tpots, nt);
    if (nf < n) ttfts = Arrays.copyOf(ttfts, nf);
    // radix: the same order as Arrays.sort (Double.compare's), about twice as fast on 10^5 values
    it.unimi.dsi.fastutil.doubles.DoubleArrays.radixSort(ttfts);
    it.unimi.dsi.fastutil.doubles.DoubleArrays.radixSort(tpots);
    metrics.put("requests", (long) n);
    metrics.put("duration_s", duration);
    metrics.put(RunMetrics.TPS_WITHIN_SLO, goodTok / duration);
    metrics.put("slo_attainment", n == 0 ? 0.0 : (double) met / n);
    metrics.put("timed_out_requests", (long) failed);
    metrics.put("timed_out_share", n == 0 ? 0.0 : (double) failed / n);
    if (aborted.length > 0) metrics.put("aborted_requests", (long) nAborted);
    int missed = n - met;
    if (missed > 0) {
      // exclusive causes of the misses: timed out, TTFT over its SLO, only TPOT over its SLO
      metrics.put("slo_miss_timed_out_share", (double) failed / missed);
      metrics.put("slo_miss_ttft_share", (double) missTtft / missed);
      metrics.put("slo_miss_tpot_only_share", (double) missTpotOnly / missed);
    } else {
      notApplicable.put("slo_miss_ttft_share", "every request met the SLO");
    }
    if (colo) metrics.put("raw_tps", (inTok + outTok) / duration);
    else notApplicable.put("raw_tps", "PD disaggregation without a decode pool: decode is not simulated, see prefill_tps");
    metrics.put("prefill_tps", inTok / duration);
    putQuantiles("ttft", ttfts);
    if (colo && nt > 0) putQuantiles("tpot", tpots);
    else notApplicable.put("tpot", colo ? "no request has two or more output tokens" : "PD disaggregation without a decode pool: decode is not simulated");
    ttftCdf = cdf(ttfts);
    tpotCdf = colo && nt > 0 ? cdf(tpots) : new double[0];
    if (t.hasBlocks) {
      metrics.put(RunMetrics.LOCAL_HIT_RATIO, inTok == 0 ? 0.0 : (double) localTok / inTok);
      metrics.put(RunMetrics.GLOBAL_HIT_RATIO, inTok == 0 ? 0.0 : (double) globalTok / inTok);
      metrics.put(RunMetrics.TOTAL_HIT_RATIO, inTok == 0 ? 0.0 : (double) (localTok + globalTok) / inTok);
      long bytes = globalBlocks * t.blockSize * settings.profile.kvBytesPerToken;
      metrics.put("global_bytes_read", bytes);
      double peak = 0;
      for (double b : bandwidthWindows) peak = Math.max(peak, b);
      metrics.put("global_peak_read_bytes_per_s", peak / settings.bandwidthWindowS);
      metrics.put("global_mean_read_bytes_per_s", bytes / duration);
    } else {
      for (String m : new String[] {RunMetrics.LOCAL_HIT_RATIO, RunMetrics.GLOBAL_HIT_RATIO, RunMetrics.TOTAL_HIT_RATIO, "global_bytes_read",
          "global_peak_read_bytes_per_s", "global_mean_read_bytes_per_s"}) {
        notApplicable.put(m, "the trace has no block hashes");
      }
    }
    if (t.hasSessions) {
      long followUps = 0;
      long migrations = 0;
      long stickyBase = 0;
      long sticky = 0;
      long extBase = 0;
      long extSticky = 0;
      for (int r = 0; r < n; r++) {
        int prev = t.prevInSession[r];
        if (prev >= 0) {
          followUps++;
          if (instance[prev] != instance[r]) migrations++;
        }
        int first = t.sessionFirst[r];
        boolean followUp = first >= 0 && first != r && (t.turn[r] > 0 || (t.turn[r] < 0 && prev >= 0));
        if (followUp) {
          stickyBase++;
          if (instance[first] == instance[r]) sticky++;
          if (t.hasBlocks && t.extendsSessionFirst(r)) {
            extBase++;
            if (instance[first] == instance[r]) extSticky++;
          }
        }
      }
      metrics.put("follow_ups", followUps);
      metrics.put(RunMetrics.SESSION_MIGRATIONS, migrations);
      if (stickyBase > 0) metrics.put(RunMetrics.STICKINESS, (double) sticky / stickyBase);
      else notApplicable.put(RunMetrics.STICKINESS, "no follow-up whose session's turn-0 request is in the trace");
      // Diagnostics beside Figure 12's definition: the share of follow-ups on their previous
      // request's instance, and stickiness among follow-ups whose prompt still continues the
      // turn-0 prompt (after a compaction no policy can find the session's KV on that instance).
      if (followUps > 0) metrics.put("stickiness_previous", 1.0 - (double) migrations / followUps);
      if (stickyBase > 0 && t.hasBlocks) {
        metrics.put("follow_ups_extending_turn0_share", (double) extBase / stickyBase);
        if (extBase > 0) metrics.put("stickiness_extending_turn0", (double) extSticky / extBase);
      }
    } else {
      notApplicable.put(RunMetrics.SESSION_MIGRATIONS, "the trace has no session ids");
      notApplicable.put(RunMetrics.STICKINESS, "the trace has no session ids");
    }
    int nw = loadWindows.length == 0 ? 0 : loadWindows[0].length;
    imbalance = new double[nw];
    double[] valid = new double[nw];
    int nv = 0;
    for (int w = 0; w < nw; w++) {
      double max = 0;
      double sum = 0;
      for (double[] inst : loadWindows) {
        max = Math.max(max, inst[w]);
        sum += inst[w];
      }
      double mean = sum / loadWindows.length;
      imbalance[w] = mean > 0 ? max / mean : Double.NaN;
      if (mean > 0) valid[nv++] = imbalance[w];
    }
    if (nv > 0) {
      double[] v = Arrays.copyOf(valid, nv);
      double sum = 0;
      for (double x : v) sum += x;
      Arrays.sort(v);
      metrics.put(RunMetrics.IMBALANCE_MEAN, sum / nv);
      metrics.put("imbalance_median", nearestRank(v, 0.5));
      metrics.put("imbalance_windows", (long) nv);
    } else {
      notApplicable.put(RunMetrics.IMBALANCE_MEAN, "no window with load");
    }
    metrics.put("sim_steps", steps);
    metrics.put("preemptions", preemptions);
    operatingPoint(duration, localTok);
    load(duration);
  }

  /**
   * What the run asked of its instances, for comparing with the runs a profile was validated on
   * (docs/validation.md, "Regime"): prompt lengths and contexts (prompt + output), requests in
   * flight per instance (Little's law: their summed time from send to response / duration /
   * instances), and the queue wait (send to first admission to a batch) with its share of the TTFT.
   */
  private void load(double duration) {
    ReplayTrace t = trace;
    int n = t.n;
    if (n == 0) return;
    double[] in = new double[n];
    long ctxMax = 0;
    double inSystem = 0;
    double[] wait = new double[n];
    int nw = 0;
    double waitSum = 0;
    double ttftSum = 0;
    for (int r = 0; r < n; r++) {
      in[r] = t.input[r];
      ctxMax = Math.max(ctxMax, (long) t.input[r] + t.output[r]);
      double done = Double.isFinite(finish[r]) ? finish[r] : Double.isFinite(firstToken[r]) ? firstToken[r] : end;
      inSystem += Math.max(0, Math.min(done, end) - arrival[r]);
      if (admitted != null && Double.isFinite(admitted[r]) && Double.isFinite(firstToken[r])) {
        wait[nw++] = admitted[r] - arrival[r];
        waitSum += admitted[r] - arrival[r];
        ttftSum += firstToken[r] - arrival[r];
      }
    }
    it.unimi.dsi.fastutil.doubles.DoubleArrays.radixSort(in);
    metrics.put("input_tokens_p50", nearestRank(in, 0.5));
    metrics.put("input_tokens_p90", nearestRank(in, 0.9));
    metrics.put("input_tokens_max", in[n - 1]);
    metrics.put("context_tokens_max", (double) ctxMax);
    metrics.put("in_flight_per_instance_mean", inSystem / duration / settings.instances);
    if (nw > 0) {
      double[] w = Arrays.copyOf(wait, nw);
      it.unimi.dsi.fastutil.doubles.DoubleArrays.radixSort(w);
      metrics.put("queue_wait_mean_s", waitSum / nw);
      metrics.put("queue_wait_p90_s", nearestRank(w, 0.9));
      if (ttftSum > 0) metrics.put("queue_wait_share_of_ttft", waitSum / ttftSum);
    } else {
      notApplicable.put("queue_wait_mean_s", "no request was admitted and answered");
    }
  }

  /**
   * The paper's preconditions measured in the replayed timeline (sent times; docs/replay.md,
   * "Operating point"): requests per instance-minute, the share of reuse within the interval
   * threshold (trace-model section 4 on the replayed arrivals), the local tier's turnover time and
   * the share of reuse within it, and the sessions live per instance.
   */
  private void operatingPoint(double duration, long localHitTokens) {
    ReplayTrace t = trace;
    int n = t.n;
    int nInst = settings.instances;
    if (n == 0) return;
    int[] ord = new int[n];
    for (int r = 0; r < n; r++) ord[r] = r;
    // stable (ties keep request order), in Double.compare's order
    it.unimi.dsi.fastutil.doubles.DoubleArrays.radixSortIndirect(ord, arrival, true);
    // requests per instance per whole minute [60m, 60m + 60) inside [first, last] sent time
    double first = arrival[ord[0]];
    double last = arrival[ord[n - 1]];
    long m0 = (long) Math.ceil(first / 60.0);
    long m1 = (long) Math.floor(last / 60.0); // minutes m0 .. m1 - 1 are whole
    if (m1 > m0 && m1 - m0 <= 50_000_000L) {
      int[] perMinute = new int[(int) (m1 - m0)];
      for (int r = 0; r < n; r++) {
        long m = (long) Math.floor(arrival[r] / 60.0);
        if (m >= m0 && m < m1) perMinute[(int) (m - m0)]++;
      }
      double[] ratio = new double[perMinute.length];
      double sum = 0;
      for (int k = 0; k < ratio.length; k++) {
        ratio[k] = perMinute[k] / (double) nInst;
        sum += ratio[k];
      }
      Arrays.sort(ratio);
      metrics.put("requests_per_instance_minute_median", nearestRank(ratio, 0.5));
      metrics.put("requests_per_instance_minute_mean", sum / ratio.length);
      metrics.put("whole_minutes", (long) ratio.length);
    } else {
      notApplicable.put("requests_per_instance_minute_median", "the replayed run spans no whole minute");
    }
    // offered session rate: session trees started per minute over the span of tree starts (the
    // rate axis of session-tree scaling; a tree's first request never waits, even in a closed loop)
    int[] tree = t.sessionTrees();
    int trees = 0;
    for (int x : tree) trees = Math.max(trees, x + 1);
    if (trees >= 2) {
      double[] start = new double[trees];
      Arrays.fill(start, Double.POSITIVE_INFINITY);
      for (int r = 0; r < n; r++) start[tree[r]] = Math.min(start[tree[r]], arrival[r]);
      double lo = Double.POSITIVE_INFINITY;
      double hi = Double.NEGATIVE_INFINITY;
      for (double x : start) {
        lo = Math.min(lo, x);
        hi = Math.max(hi, x);
      }
      if (hi > lo) metrics.put(RunMetrics.OFFERED_SESSIONS_PER_MIN, (trees - 1) / (hi - lo) * 60);
      else notApplicable.put(RunMetrics.OFFERED_SESSIONS_PER_MIN, "every session tree starts at the same time");
    } else {
      notApplicable.put(RunMetrics.OFFERED_SESSIONS_PER_MIN, "fewer than two session trees");
    }
    // sessions live (first send .. last finish) per instance, time-averaged over the run
    if (t.hasSessions && t.sessions > 0) {
      double[] from = new double[t.sessions];
      double[] to = new double[t.sessions];
      Arrays.fill(from, Double.POSITIVE_INFINITY);
      Arrays.fill(to, Double.NEGATIVE_INFINITY);
      for (int r = 0; r < n; r++) {
        int ss = t.session[r];
        if (ss < 0) continue;
        from[ss] = Math.min(from[ss], arrival[r]);
        to[ss] = Math.max(to[ss], finish[r]);
      }
      double live = 0;
      for (int ss = 0; ss < t.sessions; ss++) if (to[ss] >= from[ss]) live += to[ss] - from[ss];
      metrics.put("live_sessions_per_instance", live / duration / nInst);
    }
    if (!t.hasBlocks) {
      for (String k : new String[] {"reuse_within_threshold_share", "local_hold_s"}) notApplicable.put(k, "the trace has no block hashes");
      return;
    }
    // local tier turnover: N x capacity / tokens entering the local tiers per second (every prompt
    // token not hit locally is computed or fetched into the instance's tier). LRU keeps an unused
    // block at most about this long (Che's characteristic time is bounded by it).
    long cap = settings.localCapacity(t.blockSize);
    long inTok = 0;
    for (int r = 0; r < n; r++) inTok += t.input[r];
    double inserted = (inTok - localHitTokens) / duration;
    double hold = Double.NaN;
    if (cap == Long.MAX_VALUE) notApplicable.put("local_hold_s", "the local tier is unbounded");
    else if (inserted <= 0) notApplicable.put("local_hold_s", "no token entered a local tier");
    else {
      hold = (double) nInst * cap * t.blockSize / inserted;
      metrics.put("local_hold_s", hold);
    }
    // reuse intervals on the replayed timeline (trace-model section 4 with sent times); the blocks
    // of a segment always occur together, so one last-seen time per segment is every block's
    double thr = settings.reuseIntervalThresholdS;
    double[] lastSeen = new double[t.segments];
    Arrays.fill(lastSeen, Double.NaN);
    long hit = 0;
    long within = 0;
    long withinHold = 0;
    for (int k = 0; k < n; k++) {
      int r = ord[k];
      for (int q = t.pathOff[r]; q < t.pathOff[r + 1]; q++) {
        int sg = t.pathNodes[q];
        long tok = t.tokensOf(r, t.segStart[sg] + t.segLen[sg]) - t.tokensOf(r, t.segStart[sg]);
        double seen = lastSeen[sg];
        if (!Double.isNaN(seen)) {
          double iv = Math.round((arrival[r] - seen) * 1e6) / 1e6;
          hit += tok;
          if (iv <= thr) within += tok;
          if (iv <= hold) withinHold += tok;
        }
        lastSeen[sg] = arrival[r];
      }
    }
    if (hit > 0) {
      metrics.put("reuse_within_threshold_share", (double) within / hit);
      if (!Double.isNaN(hold)) metrics.put("reuse_within_local_hold_share", (double) withinHold / hit);
    } else {
      notApplicable.put("reuse_within_threshold_share", "no prompt block recurs in the replayed run");
    }
  }

  private void putQuantiles(String name, double[] sorted) {
    if (sorted.length == 0) return;
    metrics.put(name + "_p50_s", nearestRank(sorted, 0.50));
    metrics.put(name + "_p90_s", nearestRank(sorted, 0.90));
    metrics.put(name + "_p99_s", nearestRank(sorted, 0.99));
    double sum = 0;
    for (double x : sorted) sum += x;
    metrics.put(name + "_mean_s", sum / sorted.length);
  }

  private double[] cdf(double[] sorted) {
    int k = settings.cdfPoints;
    double[] out = new double[sorted.length == 0 ? 0 : k];
    for (int j = 1; j <= out.length; j++) out[j - 1] = nearestRank(sorted, (double) j / k);
    return out;
  }

  /** Contract percentile: sorted[ceil(q n) - 1]. */
  static double nearestRank(double[] sorted, double q) {
    int idx = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
  }
}
