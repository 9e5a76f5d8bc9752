package io.smetric.audit.replay.sim;

import io.smetric.audit.replay.ModelProfile;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.ReplaySettings.Architecture;
import io.smetric.audit.replay.kv.BlockTier;
import io.smetric.audit.replay.kv.HolderIndex;
import io.smetric.audit.replay.kv.KvTier;
import io.smetric.audit.replay.kv.SegmentTier;
import io.smetric.audit.replay.policy.Policy;
import io.smetric.audit.replay.trace.ReplayTrace;
import it.unimi.dsi.fastutil.ints.IntArrayFIFOQueue;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntRBTreeSet;

/**
 * The discrete-event cluster simulator, the step scheduler: one sequential run of one policy over
 * one trace. When requests are sent is the {@link Arrivals} model's (open loop, or closed loop with
 * follow-ups waiting for responses); a sent request is routed the moment it reaches the engine (the
 * policy sees the cluster through a {@link RoutingView}); each
 * instance runs vLLM-style continuous batching with chunked prefill (every decoding sequence
 * takes one token of the step's budget, prefilling requests take chunks in admission order, and
 * waiting requests are admitted FCFS while the batch, the budget and KV memory allow). A step's
 * duration comes from the {@link ModelProfile} cost model. On admission a request's prompt is
 * matched against the local tier, then the global tier for the extension beyond; fetched blocks
 * cross the {@link GlobalLinks} (instance link, node NIC, aggregate cap, plus a fixed latency)
 * before the prefill starts. At prefill end the whole prompt is present locally and is written to
 * the global tier. The full model is documented in docs/replay.md.
 *
 * <p>KV memory as vLLM V1 manages it: admission needs room for the prompt's uncached blocks only;
 * a decoding sequence takes a new block each time its KV crosses a block boundary, and when no
 * block is free or evictable the most recently admitted running request is preempted (its blocks
 * freed, its prompt left in the prefix cache) and later recomputed from the front of the queue.
 */
public final class Simulator {
  private static final byte QUEUED = 0;
  private static final byte FETCHING = 1;
  private static final byte PREFILL = 2;
  private static final byte DECODE = 3;
  private static final byte DONE = 4;
  /** Sent, not yet at the engine (only with a request timeout: otherwise nothing reads it). */
  private static final byte SENT = 5;

  final ReplayTrace t;
  final ReplaySettings s;
  private final ModelProfile p;
  private final Policy policy;
  final int nInst;
  /** Decode-pool instances (PD disaggregation with a decode pool), indices nInst..nAll-1. */
  private final int nAll;
  private final boolean decodePool;
  private int decodeRr;
  private final int bs;
  final boolean colocated;
  final long cap;
  final boolean prefixCaching;
  private final long gcap;
  final KvTier[] local;
  private final KvTier global;
  /** When requests are sent (open or closed loop), and the global tier's read path. */
  private final Arrivals arrivals;
  private final GlobalLinks links;

  // per request
  private final int[] inst;
  private final byte[] state;
  private final int[] remaining;
  private final long[] ctx;
  private final int[] hitLocal;
  private final int[] hitGlobal;
  private final long[] contrib;
  private final double[] firstTok;
  private final double[] finish;
  /** When each request was first admitted to a batch (NaN = never): the end of its queue wait. */
  private final double[] admitted;
  private final long[] finishStep;
  private final int[] chunk;
  /** Local hit blocks of the request's current admission (hitLocal keeps its first one, the outcome). */
  private final int[] admHit;
  /** Tokens generated before the request was last preempted (0 = never preempted). */
  private final int[] resumeGen;
  /** KV tokens when the request started (or resumed) decoding, and the instance's step count then. */
  private final long[] kvBase;
  private final long[] s0;
  private final boolean[] started;

  // per instance
  final IntArrayFIFOQueue[] queue;
  private final IntArrayList[] prefilling;
  private final IntArrayList[] planned;
  private final IntRBTreeSet[] decoders;
  /** Running requests (admitted, not finished) in admission order: preemption takes the last. */
  private final IntArrayList[] runOrder;
  /**
   * Memory as the engine manages it (colocated, bounded local tier): when decoding sequences take
   * new blocks, and per instance the step count up to which decode blocks are allocated.
   */
  private final boolean memLimited;
  private final DecodeBlocks phases;
  private final long[] allocThrough;
  /** Decode stretches: when each decode-only step ends, in closed form. */
  private final DecodeStretches stretches;
  private double now;
  private long preemptions;
  /** Step-cost terms: dense weight read R, all-expert read W, f(T) table, save cost per prefill token. */
  private final double denseR;
  private final double expertW;
  private final double[] expertShare;
  private final double savePerToken;
  private final int chunkLimit;
  private final double perContext;
  final int[] requests;
  final int[] runningN;
  final long[] unprefilled;
  final long[] activeBlocks;
  final long[] reserved;
  private final boolean[] busy;
  private final int[] decodeN;
  private final int[] stepDecode;
  private final long[] decodeCtx;
  private final long[] steps;
  /**
   * Decode fast-forward (ReplaySettings.decodeFastForward): per instance, the generation of its
   * pending STEP_END (older ones are stale) and how many steps that event completes.
   */
  private final boolean fastForward;
  private final int[] stepGen;
  private final long[] stepCount;
  /**
   * Global load IN_STEP (ReplaySettings.globalLoad): per instance, fetches the step being planned
   * waits for, and that step's duration and decoding sequences, scheduled when the last lands.
   */
  private final boolean inStepLoad;
  private final int[] stepFetches;
  private final double[] stalledDt;
  private final int[] stalledNd;

  /** Imbalance: time-integrated in-flight token load per instance per window. */
  private final LoadWindows load;
  private final double t0;

  /** What the policy sees of the cluster when it routes a request. */
  private final RoutingView view;

  /**
   * Request timeout (ReplaySettings.requestTimeoutS): whether it is on, its length, which requests
   * the client aborted, and per instance the running ones whose slot and blocks are freed at the
   * instance's next step boundary (the engine handles an abort between steps). Off: empty arrays,
   * and the hot loop never reads them.
   */
  private final boolean aborts;
  private final double timeoutS;
  private final boolean[] aborted;
  private final IntArrayList[] abortPending;
  private final IntArrayList unqueueBuf = new IntArrayList();
  /** Decode-pool instance of a handed-off request (PD with a decode pool and a timeout only). */
  private final int[] poolInst;

  private final EventQueue ev = new EventQueue();
  private long totalSteps;
  private long stepEvents;

  public Simulator(ReplayTrace trace, ReplaySettings settings, Policy policy) {
    this.t = trace;
    this.s = settings;
    this.p = settings.profile;
    this.policy = policy;
    this.nInst = settings.instances;
    this.decodePool = settings.architecture == Architecture.DISAGGREGATED && settings.decodeInstances > 0;
    this.nAll = nInst + (decodePool ? settings.decodeInstances : 0);
    this.bs = Math.max(1, trace.blockSize);
    this.colocated = settings.architecture == Architecture.COLOCATED;
    this.prefixCaching = settings.prefixCaching;
    this.cap = trace.hasBlocks ? settings.localCapacity(trace.blockSize) : Long.MAX_VALUE;
    this.gcap = trace.hasBlocks ? settings.globalCapacity(trace.blockSize) : 0;
    boolean reference = settings.kvModel == ReplaySettings.KvModel.REFERENCE && trace.hasBlocks;
    if (reference && !trace.keepsBlocks()) {
      throw new IllegalArgumentException("kvModel REFERENCE needs a trace loaded with block ids (keepBlocks)");
    }
    this.local = new KvTier[nInst];
    boolean indexed = !reference && trace.hasBlocks && prefixCaching && nInst >= 2 && nInst <= HolderIndex.MAX_INSTANCES;
    // which instances hold each segment, for the routing view's probes (not in a reference-model
    // run, or with more instances than the index covers)
    HolderIndex holders = indexed ? new HolderIndex(trace, nInst) : null;
    SegmentTier[] indexedLocal = indexed ? new SegmentTier[nInst] : null;
    for (int i = 0; i < nInst; i++) {
      if (reference) local[i] = new BlockTier(trace, true);
      else if (indexed) local[i] = indexedLocal[i] = new SegmentTier(trace, true, holders, i);
      else local[i] = new SegmentTier(trace, true);
    }
    this.global = gcap > 0 ? (reference ? new BlockTier(trace, false) : new SegmentTier(trace, false)) : null;
    int n = trace.n;
    this.t0 = n == 0 ? 0 : trace.arrival[0];
    this.arrivals = new Arrivals(trace, settings, t0, ev);
    this.links = new GlobalLinks(p, settings, nInst, n, t0, ev);
    inst = new int[n];
    state = new byte[n];
    remaining = new int[n];
    ctx = new long[n];
    hitLocal = new int[n];
    hitGlobal = new int[n];
    contrib = new long[n];
    firstTok = new double[n];
    finish = new double[n];
    admitted = new double[n];
    java.util.Arrays.fill(admitted, Double.NaN);
    finishStep = new long[n];
    chunk = new int[n];
    admHit = new int[n];
    resumeGen = new int[n];
    kvBase = new long[n];
    s0 = new long[n];
    started = new boolean[n];
    queue = new IntArrayFIFOQueue[nInst];
    prefilling = new IntArrayList[nInst];
    planned = new IntArrayList[nInst];
    decoders = new IntRBTreeSet[nAll];
    runOrder = new IntArrayList[nInst];
    for (int i = 0; i < nInst; i++) {
      queue[i] = new IntArrayFIFOQueue();
      prefilling[i] = new IntArrayList();
      planned[i] = new IntArrayList();
      runOrder[i] = new IntArrayList();
    }
    for (int i = 0; i < nAll; i++) {
      decoders[i] = new IntRBTreeSet((it.unimi.dsi.fastutil.ints.IntComparator) (x, y) -> finishStep[x] != finishStep[y]
          ? Long.compare(finishStep[x], finishStep[y]) : Integer.compare(x, y));
    }
    memLimited = colocated && trace.hasBlocks && cap != Long.MAX_VALUE;
    phases = new DecodeBlocks(memLimited ? nInst : 0, bs);
    allocThrough = new long[nInst];
    denseR = p.denseReadS();
    expertW = p.expertReadS();
    int maxT = Math.max(p.tokenBudget, p.maxBatch) + 1;
    expertShare = new double[expertW > 0 ? maxT + 1 : 0];
    for (int k = 0; k < expertShare.length; k++) expertShare[k] = p.expertShare(k);
    savePerToken = gcap > 0 && p.globalSaveBlocksStep && Double.isFinite(p.globalSaveGBps)
        ? p.kvBytesPerToken / (p.globalSaveGBps * 1e9) : 0;
    chunkLimit = p.chunkLimit();
    perContext = p.decodePerContextTokenS;
    stretches = new DecodeStretches(nAll, perContext);
    requests = new int[nInst];
    runningN = new int[nInst];
    unprefilled = new long[nInst];
    activeBlocks = new long[nInst];
    reserved = new long[nInst];
    busy = new boolean[nAll];
    decodeN = new int[nAll];
    stepDecode = new int[nAll];
    decodeCtx = new long[nAll];
    steps = new long[nAll];
    fastForward = settings.decodeFastForward;
    stepGen = new int[nAll];
    stepCount = new long[nAll];
    inStepLoad = settings.globalLoad == ReplaySettings.GlobalLoad.IN_STEP;
    stepFetches = new int[nAll];
    stalledDt = new double[nAll];
    stalledNd = new int[nAll];
    load = new LoadWindows(nInst, t0, settings.imbalanceWindowS);
    timeoutS = settings.requestTimeout();
    aborts = Double.isFinite(timeoutS);
    aborted = new boolean[aborts ? n : 0];
    abortPending = new IntArrayList[aborts ? nAll : 0];
    for (int i = 0; i < abortPending.length; i++) abortPending[i] = new IntArrayList();
    poolInst = new int[aborts && decodePool ? n : 0];
    if (aborts) java.util.Arrays.fill(state, SENT);
    view = new RoutingView(this, holders, indexedLocal, policy.probesEveryInstance());
  }

  /** The scaled open-loop arrivals ({@link Arrivals#scaledArrivals}), for callers outside the package. */
  public static int[] scaledArrivals(ReplayTrace trace, ReplaySettings settings, double t0, double[] at) {
    return Arrivals.scaledArrivals(trace, settings, t0, at);
  }

  /**
   * What {@link #decide} found: whether at least the target share of the trace's requests met the
   * SLO ({@link SimOutcome#metSlo}), and how far the simulation had to run to know.
   *
   * @param requests the trace's requests (the denominator of the share)
   * @param need the fewest requests within SLO that reach the target
   * @param met requests completed within SLO when the run stopped
   * @param decided requests completed when the run stopped (met + missed)
   * @param stoppedEarly whether the run stopped before every request completed
   * @param simulatedS simulated time from the first arrival to the stop
   */
  public record Decision(boolean pass, int requests, int need, int met, int decided, boolean stoppedEarly, double simulatedS) {}

  /** Early decision: the fewest requests within SLO that pass ({@link #decide}); -1 = run to the end. */
  private int need = -1;
  private int decidedN;
  private int metN;
  private boolean stop;
  private double stopAt;

  /**
   * Whether at least {@code target} of the trace's requests meet the SLO, the pass/fail question
   * of the capacity search (docs/replay.md, "Capacity"), stopped as soon as the answer is known:
   * once {@code need} = the fewest requests within SLO whose share reaches the target have met it
   * (pass), or once more than n - need have missed it (fail: the rest cannot make up the share).
   * A request's SLO outcome is final when its response completes, so the answer is the one
   * {@code run().metrics slo_attainment >= target} gives (SimulatorTest checks it).
   */
  public Decision decide(double target) {
    int n = t.n;
    need = needed(n, target);
    loop();
    for (KvTier k : local) k.release();
    if (global != null) global.release();
    return new Decision(metN >= need, n, need, metN, decidedN, decidedN < n, Math.max(0, stopAt - t0));
  }

  /** The fewest of {@code n} requests whose share reaches {@code target}, as the share is computed ((double) k / n >= target). */
  public static int needed(int n, double target) {
    int k = (int) Math.max(0, Math.min(n, Math.ceil(target * n)));
    while (k > 0 && (double) (k - 1) / n >= target) k--;
    while (k < n && !((double) k / n >= target)) k++;
    return k;
  }

  /** A response is complete: its SLO outcome is final (only counted under {@link #decide}). */
  private void completed(int r, double at) {
    if (need < 0 || (aborts && aborted[r])) return; // an aborted one was counted as a miss when it aborted
    decidedN++;
    stopAt = at;
    if (SimOutcome.metSlo(t, s, r, arrivals.sendTimes()[r], firstTok[r], at)) metN++;
    if (metN >= need || decidedN - metN > t.n - need) stop = true;
  }

  /** The event loop: until every request is done, or (under {@link #decide}) the answer is known. */
  private void loop() {
    int n = t.n;
    int next = 0;
    while (!stop) {
      double na = next < n ? arrivals.openArrival(next) : Double.POSITIVE_INFINITY;
      double ne = ev.isEmpty() ? Double.POSITIVE_INFINITY : ev.peekTime();
      if (na == Double.POSITIVE_INFINITY && ne == Double.POSITIVE_INFINITY) break;
      if (ne <= na) {
        ev.pop();
        double now = ev.t;
        switch (ev.evType) {
          case Event.STEP_END -> {
            if (ev.evB == stepGen[ev.evA]) { // else cut short by cutRun
              stepEvents++;
              stepEnd(ev.evA, now);
            }
          }
          case Event.LINK -> links.onLinkEvent(ev.evB, now);
          case Event.FETCH_DONE -> fetchDone(ev.evA, ev.evB, now);
          case Event.RELEASE -> send(ev.evA, now);
          case Event.ENGINE_ARRIVE -> {
            if (!aborts || !aborted[ev.evA]) arrive(ev.evA, now);
          }
          case Event.ABORT -> abort(ev.evA, now);
          case Event.TIMEOUT -> {
            if (!responseComplete(ev.evA)) arrivals.responded(ev.evA, now); // the agent gives up waiting
          }
          default -> throw new IllegalStateException("event " + ev.evType);
        }
      } else {
        int r = arrivals.request(next++);
        int p = arrivals.awaited(r);
        if (p >= 0 && !responseComplete(p) && !arrivals.timedOut(p, na)) {
          arrivals.await(r, p); // the agent has not received p's response yet: it waits
        } else {
          send(r, na);
        }
      }
    }
  }

  /** Runs the whole trace to completion and returns per-request outcomes and time series. */
  public SimOutcome run() {
    loop();
    int n = t.n;
    double end = t0;
    double[] sentAt = arrivals.sendTimes();
    for (int r = 0; r < n; r++) {
      if (state[r] != DONE) throw new IllegalStateException("request " + t.requestIds[r] + " never finished");
      if (aborts && aborted[r]) {
        // the client's view: it ended at the timeout, and saw no first token unless one came before
        finish[r] = sentAt[r] + timeoutS;
        if (!started[r] || firstTok[r] > finish[r]) firstTok[r] = Double.NaN;
      }
      end = Math.max(end, finish[r]);
    }
    double[][] windows = load.close(end);
    for (KvTier k : local) k.release();
    if (global != null) global.release();
    return new SimOutcome(t, s, arrivals.sendTimes(), inst, hitLocal, hitGlobal, firstTok, finish, windows,
        links.bandwidthWindows(), totalSteps, end, preemptions, admitted, aborted, arrivals.sendRanks());
  }

  // ---------------------------------------------------------------- routing

  private void send(int r, double now) {
    arrivals.sent(r, now);
    if (aborts) ev.push(now + timeoutS, Event.ABORT, r, 0);
    // the client's clock starts now; the engine sees the request after the frontend's latency
    if (p.frontendLatencyS > 0) ev.push(now + p.frontendLatencyS, Event.ENGINE_ARRIVE, r, 0);
    else arrive(r, now);
  }

  private boolean responseComplete(int p) {
    return (state[p] == DONE && !Double.isNaN(finish[p])) || (aborts && aborted[p]);
  }

  private void arrive(int r, double now) {
    arrivals.engineArrived(r); // requests may already wait for r's response: its timeout starts
    this.now = now;
    view.begin(r);
    int i = policy.route(view);
    if (i < 0 || i >= nInst) throw new IllegalStateException("policy returned instance " + i + " of " + nInst);
    long hitTok = t.hasBlocks ? view.localHitTokens(i) : 0;
    view.end();
    inst[r] = i;
    state[r] = QUEUED;
    requests[i]++;
    contrib[r] = Math.max(1, t.input[r] - hitTok);
    unprefilled[i] += contrib[r];
    queue[i].enqueue(r);
    if (colocated) load.add(i, now, (long) t.input[r] + t.output[r]);
    else load.add(i, now, contrib[r]);
    if (!busy[i]) startStep(i, now);
    else cutRun(i, now);
  }

  // ---------------------------------------------------------------- instance steps

  /** The router's estimate of a request's output blocks (its view of active blocks; not memory). */
  private int outBlocks(int r) {
    return colocated ? (int) ((t.output[r] + (long) bs - 1) / bs) : 0;
  }

  private long ceilBlocks(long tokens) {
    return (tokens + bs - 1) / bs;
  }

  /** Blocks a request holds beyond its prompt's: generated tokens' KV (fresh or recomputed). */
  private long heldDecodeBlocks(int i, int r) {
    long kv = state[r] == DECODE ? kvBase[r] + (steps[i] - s0[r]) : (long) t.input[r] + resumeGen[r];
    return Math.max(0, ceilBlocks(kv) - ceilBlocks(t.input[r]));
  }

  private void startStep(int i, double now) {
    if (i >= nInst) {
      startDecodeStep(i, now);
      return;
    }
    // vLLM V1 admits no waiting request in a step that had to preempt one
    boolean admitting = !(memLimited && decodeN[i] > 0 && allocateDecodeStep(i, now));
    long budget = p.tokenBudget - decodeN[i];
    long prefillTok = 0;
    double pairs = 0;
    IntArrayList plan = planned[i];
    plan.clear();
    IntArrayList pre = prefilling[i];
    for (int k = 0; k < pre.size() && budget > 0; k++) {
      int r = pre.getInt(k);
      int c = (int) Math.min(Math.min(remaining[r], budget), chunkLimit);
      chunk[r] = c;
      plan.add(r);
      budget -= c;
      prefillTok += c;
      pairs += c * (ctx[r] + c / 2.0);
    }
    IntArrayFIFOQueue q = queue[i];
    while (admitting && budget > 0 && runningN[i] < p.maxBatch && !q.isEmpty()) {
      int r = q.firstInt();
      int k = t.hasBlocks && prefixCaching ? local[i].match(r) : 0;
      long need = (t.blocks[r] - k) + extraBlocks(r);
      if (cap != Long.MAX_VALUE && runningN[i] > 0) {
        // its new blocks, and its cached prefix blocks that pinning takes out of the evictable pool
        if (need + local[i].unreferencedPrefix(r, k) > allocatable(i)) break; // FCFS: the head waits
      }
      q.dequeueInt();
      admit(i, r, k, need, now);
      if (state[r] == PREFILL) {
        int c = (int) Math.min(Math.min(remaining[r], budget), chunkLimit);
        chunk[r] = c;
        plan.add(r);
        budget -= c;
        prefillTok += c;
        pairs += c * (ctx[r] + c / 2.0);
      }
    }
    int nd = decodeN[i];
    if (plan.isEmpty() && nd == 0) {
      busy[i] = false;
      return;
    }
    if (plan.isEmpty()) { // decode only
      // a step that preempted admitted nobody, but the next one may: no run past it
      if (fastForward && (admitting || q.isEmpty())) startDecodeRun(i, now);
      else scheduleDecode(i, decodeStretch(i, now, nd), 1, nd);
      return;
    }
    double dt = stepTime(prefillTok, pairs, nd, decodeCtx[i]);
    if (stepFetches[i] > 0) { // IN_STEP: the forward pass starts when this step's fetches land
      stalledDt[i] = dt;
      stalledNd[i] = nd;
      busy[i] = true;
      return;
    }
    scheduleSteps(i, now + dt, 1, nd);
  }

  /** A resumed request's recomputed generated tokens, in blocks beyond its prompt's. */
  private long extraBlocks(int r) {
    return resumeGen[r] == 0 ? 0 : Math.max(0, ceilBlocks((long) t.input[r] + resumeGen[r]) - ceilBlocks(t.input[r]));
  }

  private long allocatable(int i) {
    return cap - local[i].cached() - reserved[i] + local[i].evictable();
  }

  /**
   * The decode blocks of the step about to start on instance i (vLLM allocates a step's slots
   * before running it): when neither free nor evictable blocks suffice, the most recently admitted
   * running request is preempted, until they do or only one request runs (it then overflows).
   * Returns whether it preempted.
   */
  private boolean allocateDecodeStep(int i, double now) {
    long sc = steps[i];
    IntArrayList ro = runOrder[i];
    long before = preemptions;
    while (phases.crossings(i, sc, sc + 1) > allocatable(i) && ro.size() > 1) {
      int v = -1;
      for (int k = ro.size() - 1; k >= 0; k--) {
        int r = ro.getInt(k);
        if (state[r] != FETCHING) { // waiting for remote KV: not in vLLM's running list
          v = r;
          break;
        }
      }
      if (v < 0) break;
      preempt(i, v);
    }
    reserved[i] += phases.crossings(i, sc, sc + 1);
    allocThrough[i] = sc + 1;
    evictToFit(i);
    return preemptions > before;
  }

  /** Decoding request r of instance i starts (+1) or stops (-1) taking decode blocks. */
  private void phaseAdd(int i, int r, int delta) {
    phases.add(i, s0[r] - kvBase[r], delta);
  }

  /**
   * Preempts running request v on instance i (vLLM V1: recompute): its blocks are freed (a
   * prompt already in the prefix cache stays there, evictable), it goes back to the front of the
   * queue, and when admitted again it recomputes its prompt and the tokens it had generated.
   */
  private void preempt(int i, int v) {
    preemptions++;
    runOrder[i].rem(v);
    runningN[i]--;
    activeBlocks[i] -= t.blocks[v] + outBlocks(v);
    long freed = heldDecodeBlocks(i, v);
    if (state[v] == DECODE) {
      decoders[i].remove(v);
      phaseAdd(i, v, -1);
      decodeN[i]--;
      decodeCtx[i] -= kvBase[v] + 1 + (steps[i] - s0[v]);
      resumeGen[v] = (int) (kvBase[v] - t.input[v] + 1 + (steps[i] - s0[v]));
    } else { // PREFILL: its prompt blocks were reserved, not yet in the tier
      prefilling[i].rem(v);
      freed += t.blocks[v] - admHit[v];
      unprefilled[i] -= contrib[v];
    }
    reserved[i] -= freed;
    local[i].unpin(v);
    state[v] = QUEUED;
    contrib[v] = (long) t.input[v] + resumeGen[v];
    unprefilled[i] += contrib[v];
    queue[i].enqueueFirst(v);
  }

  /** ModelProfile.stepS with f(T) from a table (the hot path). */
  private double stepTime(long prefillTok, double pairs, int nd, long decodeContext) {
    long tokens = prefillTok + nd;
    double weights = denseR;
    if (expertW > 0) weights += expertW * (tokens < expertShare.length ? expertShare[(int) tokens] : p.expertShare(tokens));
    return p.stepBaseS + Math.max(weights, p.prefillPerTokenS * tokens) + p.prefillAttentionPerPairS * pairs
        + p.decodePerSeqS * nd + perContext * decodeContext + savePerToken * prefillTok;
  }

  /** The part of a decode-only step's time that does not depend on the context (stepTime with no prefill, minus perContext * c). */
  private double decodeConst(int nd) {
    double weights = denseR;
    if (expertW > 0) weights += expertW * (nd < expertShare.length ? expertShare[nd] : p.expertShare(nd));
    return p.stepBaseS + Math.max(weights, p.prefillPerTokenS * nd) + p.decodePerSeqS * nd;
  }

  /**
   * The stretch index of the decode-only step with nd sequences that instance i starts now: the
   * next index of the current stretch when this step continues it (same nd, the stretch's last
   * step ended now, the context grew by nd per step), else 0 of a new stretch starting now.
   */
  private long decodeStretch(int i, double now, int nd) {
    long j = stretches.continued(i, now, nd, steps[i], decodeCtx[i]);
    if (j >= 0) return j;
    stretches.begin(i, now, nd, steps[i], decodeCtx[i], decodeConst(nd));
    return 0;
  }

  /** Schedules {@code count} decode-only steps of instance i from stretch index j0 as one STEP_END. */
  private void scheduleDecode(int i, long j0, long count, int nd) {
    scheduleSteps(i, stretches.schedule(i, j0, count), count, nd);
  }

  private void scheduleSteps(int i, double end, long count, int nd) {
    stepDecode[i] = nd;
    stepCount[i] = count;
    busy[i] = true;
    totalSteps += count;
    ev.push(end, Event.STEP_END, i, ++stepGen[i]);
  }

  /** A decode-pool step: every decoding sequence makes one token (same cost model, no prefill). */
  private void startDecodeStep(int i, double now) {
    int nd = decodeN[i];
    if (nd == 0) {
      busy[i] = false;
      return;
    }
    if (fastForward) startDecodeRun(i, now);
    else scheduleDecode(i, decodeStretch(i, now, nd), 1, nd);
  }

  /**
   * Decode fast-forward: nothing but decoding can happen on instance i until its next sequence
   * finishes (admission waits for that finish: the queue is empty, or its head waits for memory,
   * batch room or budget, which only a finish frees) unless something reaches the instance, which
   * calls cutRun, or its decode blocks run out, where the run stops before the step that must
   * preempt. So those steps become one event, ending where the step-by-step replay ends them (the
   * same stretch expression); their blocks are allocated when the clock is read.
   */
  private void startDecodeRun(int i, double now) {
    int nd = decodeN[i];
    long count = Math.max(1, finishStep[decoders[i].firstInt()] - steps[i]);
    if (memLimited && i < nInst) count = Math.min(count, stepsWithBlocks(i, count));
    scheduleDecode(i, decodeStretch(i, now, nd), count, nd);
  }

  /**
   * How many decode steps from now (the first already allocated) instance i can run before a step
   * whose decode blocks exceed what is free or evictable; at most {@code count}, at least 1.
   */
  private long stepsWithBlocks(int i, long count) {
    long sc = steps[i];
    long avail = allocatable(i);
    if (phases.crossings(i, sc + 1, sc + count) <= avail) return count;
    long perCycle = phases.perCycle(i);
    long m = 1 + (avail / perCycle) * bs; // steps [sc+1, sc+m) take (m-1)/bs full cycles <= avail
    while (phases.crossings(i, sc + 1, sc + m + 1) <= avail) m++;
    return Math.max(1, m);
  }

  /**
   * A request reached instance i (arrival, fetch done, decode-pool hand-off) while it runs several
   * decode-only steps as one event: the steps that ended by now are applied, and the step in
   * progress becomes the pending event, so the next step admits the request as the step-by-step
   * replay does.
   */
  private void cutRun(int i, double now) {
    long count = stepCount[i];
    if (count <= 1) return;
    int nd = stepDecode[i];
    long done = stretches.endedBy(i, now, count);
    if (memLimited && i < nInst) allocateRun(i, steps[i] + done + 1);
    steps[i] += done;
    decodeCtx[i] += (long) nd * done;
    totalSteps -= count - done;
    scheduleDecode(i, stretches.runStart(i) + done, 1, nd);
  }

  /** Allocates the decode blocks of instance i's steps with counts below {@code through}. */
  private void allocateRun(int i, long through) {
    if (through <= allocThrough[i]) return;
    reserved[i] += phases.crossings(i, allocThrough[i], through);
    allocThrough[i] = through;
    evictToFit(i);
  }

  /**
   * Brings instance i's memory up to the clock when it is read in the middle of a decode run:
   * the blocks of every step started by now are allocated, as the step-by-step replay has done.
   */
  void syncMemory(int i) {
    if (!needsSync(i)) return;
    long cached = local[i].cached();
    allocateRun(i, steps[i] + stretches.endedBy(i, now, stepCount[i]) + 1);
    // only an eviction changes what the tier matches: then instance i's entry of allHits is stale
    if (local[i].cached() != cached) view.stale(i);
  }

  /** Instance i runs several decode steps as one event, whose decode blocks are allocated lazily. */
  boolean needsSync(int i) {
    return memLimited && busy[i] && stepCount[i] > 1;
  }

  /** Hands a prefilled request to the decode pool (least requests, rotating ties); KV transfer is free. */
  private void toDecodePool(int r, double now) {
    int best = -1;
    for (int k = 0; k < nAll - nInst; k++) {
      int j = nInst + (decodeRr + k) % (nAll - nInst);
      if (best < 0 || decodeN[j] < decodeN[best]) best = j;
    }
    decodeRr = (best - nInst + 1) % (nAll - nInst);
    if (busy[best]) cutRun(best, now); // steps[best] must count the steps ended by now
    if (poolInst.length > 0) poolInst[r] = best;
    state[r] = DECODE;
    decodeN[best]++;
    decodeCtx[best] += t.input[r] + 1L;
    finishStep[r] = steps[best] + (t.output[r] - 1);
    decoders[best].add(r);
    if (!busy[best]) startStep(best, now);
  }

  private void admit(int i, int r, int k, long need, double now) {
    if (Double.isNaN(admitted[r])) admitted[r] = now; // the first admission: the queue wait ends here
    runningN[i]++;
    runOrder[i].add(r);
    activeBlocks[i] += t.blocks[r] + outBlocks(r);
    boolean resumed = resumeGen[r] > 0;
    int g = 0;
    if (t.hasBlocks) {
      local[i].pin(r);
      reserved[i] += need;
      evictToFit(i);
      if (global != null && prefixCaching && k < t.blocks[r]) {
        int gk = global.match(r);
        if (gk > k) g = gk - k;
      }
    }
    admHit[r] = k;
    if (!resumed) { // the outcome keeps the first admission's hits
      hitLocal[r] = k;
      hitGlobal[r] = g;
    }
    long hitTok = t.hasBlocks ? t.tokensOf(r, k + g) : 0;
    // a full hit still computes the last token; a resumed request recomputes what it generated
    remaining[r] = (int) Math.max(1, t.input[r] + (long) resumeGen[r] - hitTok);
    ctx[r] = hitTok;
    if (!colocated) load.add(i, now, remaining[r] - contrib[r]);
    unprefilled[i] += remaining[r] - contrib[r];
    contrib[r] = remaining[r];
    if (g > 0 && inStepLoad) { // scheduled in this step, which waits for the fetch
      state[r] = PREFILL;
      prefilling[i].add(r);
      stepFetches[i]++;
      links.start(i, r, (double) g * bs * p.kvBytesPerToken, now);
    } else if (g > 0) {
      state[r] = FETCHING;
      links.start(i, r, (double) g * bs * p.kvBytesPerToken, now);
    } else {
      state[r] = PREFILL;
      prefilling[i].add(r);
    }
  }

  private void evictToFit(int i) {
    if (cap == Long.MAX_VALUE) return;
    long over = local[i].cached() + reserved[i] - cap;
    if (over > 0) local[i].evict(over);
  }

  private void stepEnd(int i, double now) {
    long m = stepCount[i];
    stepCount[i] = 0;
    if (memLimited && i < nInst) allocateRun(i, steps[i] + m);
    steps[i] += m;
    int nd = stepDecode[i];
    decodeCtx[i] += nd * m;
    IntRBTreeSet dq = decoders[i];
    while (!dq.isEmpty() && finishStep[dq.firstInt()] <= steps[i]) {
      int r = dq.firstInt();
      dq.remove(r);
      decodeN[i]--;
      decodeCtx[i] -= (long) t.input[r] + t.output[r];
      if (i >= nInst) {
        state[r] = DONE;
        finish[r] = now;
        arrivals.responded(r, now);
        completed(r, now);
      } else {
        finish(i, r, now);
      }
    }
    if (i >= nInst) {
      if (aborts && !abortPending[i].isEmpty()) releasePending(i, now);
      startStep(i, now);
      return;
    }
    IntArrayList plan = planned[i];
    for (int k = 0; k < plan.size(); k++) {
      int r = plan.getInt(k);
      int c = chunk[r];
      remaining[r] -= c;
      ctx[r] += c;
      unprefilled[i] -= c;
      contrib[r] -= c;
      if (!colocated) load.add(i, now, -c);
      if (remaining[r] == 0) prefillDone(i, r, now);
    }
    plan.clear();
    if (aborts && !abortPending[i].isEmpty()) releasePending(i, now);
    startStep(i, now);
  }

  private void prefillDone(int i, int r, double now) {
    prefilling[i].rem(r);
    if (!started[r]) { // a recomputation after preemption produces no new first token
      started[r] = true;
      firstTok[r] = now;
    }
    if (t.hasBlocks) {
      local[i].insert(r);
      reserved[i] -= t.blocks[r] - admHit[r];
      if (global != null) {
        global.insert(r);
        long over = global.cached() - gcap;
        if (over > 0) global.evict(over);
      }
    }
    long left = t.output[r] - 1L - resumeGen[r]; // decode steps after the token this step samples
    if (!colocated || left <= 0) {
      finish(i, r, now);
      if (decodePool && t.output[r] > 1 && !(aborts && aborted[r])) { // an aborted one is not handed off
        finish[r] = Double.NaN; // set by the decode pool
        toDecodePool(r, now);
      }
      return;
    }
    state[r] = DECODE;
    decodeN[i]++;
    kvBase[r] = (long) t.input[r] + resumeGen[r];
    s0[r] = steps[i];
    decodeCtx[i] += kvBase[r] + 1;
    finishStep[r] = steps[i] + left;
    if (memLimited) phaseAdd(i, r, +1);
    decoders[i].add(r);
  }

  private void finish(int i, int r, double now) {
    if (memLimited) {
      reserved[i] -= heldDecodeBlocks(i, r);
      if (state[r] == DECODE) phaseAdd(i, r, -1);
    }
    state[r] = DONE;
    finish[r] = now;
    if (!(decodePool && t.output[r] > 1)) { // else when the decode pool is done
      arrivals.responded(r, now);
      completed(r, now);
    }
    leaveBatch(i, r);
    if (colocated) load.add(i, now, -((long) t.input[r] + t.output[r]));
  }

  /** Request r leaves instance i's running batch (finished or aborted): its slot, blocks and pins go. */
  private void leaveBatch(int i, int r) {
    requests[i]--;
    runningN[i]--;
    runOrder[i].rem(r);
    activeBlocks[i] -= t.blocks[r] + outBlocks(r);
    if (t.hasBlocks) {
      local[i].unpin(r);
      evictToFit(i);
    }
  }

  // ---------------------------------------------------------------- global-tier fetches

  private void fetchDone(int i, int r, double now) {
    if (inStepLoad) {
      if (--stepFetches[i] == 0) scheduleSteps(i, now + stalledDt[i], 1, stalledNd[i]);
      return;
    }
    if (aborts && state[r] != FETCHING) return; // aborted while fetching: its blocks are already freed
    state[r] = PREFILL;
    prefilling[i].add(r);
    if (!busy[i]) startStep(i, now);
    else cutRun(i, now);
  }

  // ---------------------------------------------------------------- request timeouts

  /**
   * Request r's timeout has passed: unless its response is complete, the client aborts it. The
   * client stops waiting now (closed-loop follow-ups are sent); the engine drops it wherever it is.
   * A request not yet at the engine or in the waiting queue (a preempted one included) leaves at
   * once; one fetching global-tier KV (outside the batch) frees its slot and blocks at once, its
   * transfer runs to its end; a running one (prefilling, decoding) is freed at its instance's next
   * step boundary, as vLLM's engine core handles aborts between steps. A decode run fast-forwarded
   * past now is cut back to the step in progress, so the step-by-step replay gives the same result.
   */
  private void abort(int r, double now) {
    if (state[r] == DONE || aborted[r]) return;
    aborted[r] = true;
    if (need >= 0) { // under decide: a timed-out request is a miss, final now
      decidedN++;
      stopAt = now;
      if (decidedN - metN > t.n - need) stop = true;
    }
    arrivals.responded(r, now);
    switch (state[r]) {
      case SENT -> state[r] = DONE; // its ENGINE_ARRIVE is skipped
      case QUEUED -> {
        int i = inst[r];
        unqueue(i, r);
        requests[i]--;
        unprefilled[i] -= contrib[r];
        load.add(i, now, colocated ? -((long) t.input[r] + t.output[r]) : -contrib[r]);
        contrib[r] = 0;
        state[r] = DONE;
        // the new head may fit where the old one did not: the next step boundary admits it
        if (busy[i]) cutRun(i, now);
      }
      case FETCHING -> {
        int i = inst[r];
        release(i, r, now);
        if (busy[i]) cutRun(i, now);
        else startStep(i, now);
      }
      default -> { // PREFILL or DECODE: at the step boundary
        int i = !colocated && state[r] == DECODE ? poolInst[r] : inst[r];
        abortPending[i].add(r);
        if (busy[i]) cutRun(i, now);
        else {
          releasePending(i, now);
          startStep(i, now);
        }
      }
    }
  }

  /** Removes r from instance i's waiting queue (the queue's order otherwise kept). */
  private void unqueue(int i, int r) {
    IntArrayFIFOQueue q = queue[i];
    IntArrayList ahead = unqueueBuf;
    ahead.clear();
    // timeouts leave in about arrival order, so r is usually at or near the head
    while (q.firstInt() != r) ahead.add(q.dequeueInt());
    q.dequeueInt();
    for (int k = ahead.size() - 1; k >= 0; k--) q.enqueueFirst(ahead.getInt(k));
  }

  /** Frees the aborted running requests of instance i at a step boundary (finished ones are left). */
  private void releasePending(int i, double now) {
    IntArrayList pend = abortPending[i];
    for (int k = 0; k < pend.size(); k++) {
      int r = pend.getInt(k);
      if (state[r] != DONE) release(i, r, now);
    }
    pend.clear();
  }

  /**
   * Frees aborted request r on instance i (at a step boundary, or outside the batch while it
   * fetches): its batch slot, its reserved and decode blocks; its prompt blocks are unpinned. A
   * prompt whose prefill ended is in the prefix cache and stays there, evictable, as vLLM keeps a
   * freed request's computed blocks cached (KVCacheManager.free returns them to the free queue with
   * their hashes); a prefill cut short leaves nothing cached (the tier inserts whole prompts only).
   */
  private void release(int i, int r, double now) {
    if (i >= nInst) { // decode pool
      decoders[i].remove(r);
      decodeN[i]--;
      decodeCtx[i] -= (long) t.input[r] + t.output[r] + steps[i] - finishStep[r];
      state[r] = DONE;
      return;
    }
    if (memLimited) {
      reserved[i] -= heldDecodeBlocks(i, r);
      if (state[r] == DECODE) phaseAdd(i, r, -1);
    }
    if (state[r] == DECODE) {
      decoders[i].remove(r);
      decodeN[i]--;
      // its context now: prompt + generated tokens (finishStep - steps still to go)
      decodeCtx[i] -= (long) t.input[r] + t.output[r] + steps[i] - finishStep[r];
    } else { // PREFILL or FETCHING: its prompt's uncached blocks were reserved, not yet in the tier
      if (state[r] == PREFILL) prefilling[i].rem(r);
      if (t.hasBlocks) reserved[i] -= t.blocks[r] - admHit[r];
    }
    unprefilled[i] -= contrib[r];
    load.add(i, now, colocated ? -((long) t.input[r] + t.output[r]) : -contrib[r]);
    contrib[r] = 0;
    state[r] = DONE;
    leaveBatch(i, r);
  }

  public long totalSteps() {
    return totalSteps;
  }

  /** Step-end events processed: totalSteps() without decode fast-forward, far fewer with it. */
  public long stepEvents() {
    return stepEvents;
  }
}
