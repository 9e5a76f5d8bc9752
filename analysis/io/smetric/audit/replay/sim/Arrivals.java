package io.smetric.audit.replay.sim;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.trace.ReplayTrace;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * When each request is sent (docs/replay.md, "Arrivals"). Open loop: at its trace arrival, scaled
 * by the rate (uniformly, or by moving whole session trees: {@link #scaledArrivals}). Closed loop
 * (ReplaySettings.followUpsWaitForPrevious): a follow-up is not sent before the response of the
 * request it follows is complete (its previous request in the session, or for a sub-agent's first
 * request the request it was spawned from); with an agent timeout, the agent stops waiting for a
 * response that long after that request was sent. The simulator asks this model whether a request
 * waits, and tells it when a request is sent and when its response is complete; the model pushes
 * the {@link Event#RELEASE} and {@link Event#TIMEOUT} events.
 *
 * <p>Called from the simulator's event loop: primitive arrays, nothing allocated per event.
 */
final class Arrivals {
  private final ReplayTrace t;
  private final EventQueue ev;
  /** When each request was actually sent (its open-loop arrival until then). */
  private final double[] at;
  /** Requests in open-loop arrival order (see scaledArrivals). */
  private final int[] order;
  /** Open-loop arrival (from the trace and the rate). */
  private final double[] openAt;
  /** Closed loop: requests waiting for request p to finish, as a linked list (head per p, next per r); empty arrays in open loop. */
  private final int[] waitHead;
  private final int[] waitNext;
  /** Closed loop: the agent timeout [s] (Infinity = none); whether r was sent; whether r's TIMEOUT event is pending or past. */
  private final double timeoutS;
  private final boolean[] sent;
  private final boolean[] timeoutArmed;
  /** The waiters of one response, in the order they were scheduled. */
  private final IntArrayList released = new IntArrayList();
  /**
   * Per request: its place in the order the client sent them (0 = first). Sends at the same
   * instant keep the event loop's order (a closed-loop release runs when its event is popped), which
   * (arrival, trace order) need not reproduce; a recording keeps it (RecordTrace).
   */
  private final int[] sendRank;
  private int sends;

  Arrivals(ReplayTrace trace, ReplaySettings settings, double t0, EventQueue ev) {
    this.t = trace;
    this.ev = ev;
    int n = trace.n;
    this.at = new double[n];
    this.order = scaledArrivals(trace, settings, t0, at);
    this.openAt = at.clone();
    this.waitHead = new int[settings.followUpsWaitForPrevious ? n : 0];
    this.waitNext = new int[waitHead.length];
    java.util.Arrays.fill(waitHead, -1);
    this.timeoutS = settings.agentTimeoutS;
    this.sent = new boolean[waitHead.length];
    this.timeoutArmed = new boolean[Double.isInfinite(timeoutS) ? 0 : waitHead.length];
    this.sendRank = new int[n];
  }

  /**
   * Fills {@code at} with the scaled arrival of every request and returns the requests in the
   * order they arrive (ties by trace order). UNIFORM keeps the trace order; SESSIONS moves each
   * session tree's start (a root session's first request in the trace; a fork joins its parent's
   * tree, a request without a session is its own tree) and keeps every offset inside the tree.
   */
  static int[] scaledArrivals(ReplayTrace trace, ReplaySettings settings, double t0, double[] at) {
    int n = trace.n;
    double x = settings.rateScale;
    int[] order = new int[n];
    for (int r = 0; r < n; r++) order[r] = r;
    if (settings.rateScaling == ReplaySettings.RateScaling.UNIFORM || x == 1.0) {
      for (int r = 0; r < n; r++) at[r] = t0 + (trace.arrival[r] - t0) / x;
      return order;
    }
    double[] anchorOfSession = new double[Math.max(0, trace.sessions)];
    java.util.Arrays.fill(anchorOfSession, Double.NaN);
    double[] anchor = new double[n];
    for (int r = 0; r < n; r++) {
      int s = trace.session[r];
      if (s < 0) {
        anchor[r] = trace.arrival[r];
      } else {
        if (Double.isNaN(anchorOfSession[s])) {
          int p = trace.forkParent[r];
          anchorOfSession[s] = p >= 0 ? anchor[p] : trace.arrival[r];
        }
        anchor[r] = anchorOfSession[s];
      }
      at[r] = t0 + (anchor[r] - t0) / x + (trace.arrival[r] - anchor[r]);
    }
    // stable (ties keep trace order), in Double.compare's order
    it.unimi.dsi.fastutil.doubles.DoubleArrays.radixSortIndirect(order, at, true);
    return order;
  }

  /** The k-th request in open-loop arrival order. */
  int request(int k) {
    return order[k];
  }

  /** The open-loop arrival of the k-th request in arrival order. */
  double openArrival(int k) {
    return openAt[order[k]];
  }

  /**
   * The request whose response r must wait for before it is sent: in closed loop its previous
   * request in the session, or for a sub-agent's first request the request it was spawned from;
   * -1 in open loop or when that request is not in the trace.
   */
  int awaited(int r) {
    if (waitHead.length == 0) return -1;
    return t.prevInSession[r] >= 0 ? t.prevInSession[r] : t.forkParent[r];
  }

  /** Closed loop: p was sent at least the agent timeout before {@code now} (its response is then given up on). */
  boolean timedOut(int p, double now) {
    return timeoutArmed.length > 0 && sent[p] && now >= at[p] + timeoutS;
  }

  /** The agent has not received p's response yet: r waits for it. */
  void await(int r, int p) {
    waitNext[r] = waitHead[p];
    waitHead[p] = r;
    armTimeout(p);
  }

  /** Request r is sent now (the client's clock starts). */
  void sent(int r, double now) {
    at[r] = now;
    sendRank[r] = sends++;
    if (sent.length > 0) sent[r] = true;
  }

  /** Request r reached the engine: if requests already wait for its response, its timeout is armed. */
  void engineArrived(int r) {
    if (waitHead.length > 0 && waitHead[r] >= 0) armTimeout(r);
  }

  /** Request r's response is complete: the requests that waited for it are released now. */
  void responded(int r, double now) {
    if (waitHead.length == 0 || waitHead[r] < 0) return;
    IntArrayList ws = released; // the list is newest first; release in the order they were scheduled
    ws.clear();
    for (int w = waitHead[r]; w >= 0; w = waitNext[w]) ws.add(w);
    for (int k = ws.size() - 1; k >= 0; k--) ev.push(now, Event.RELEASE, ws.getInt(k), 0);
    waitHead[r] = -1;
  }

  /** Each request's place in the order of sending (after the run: every request). */
  int[] sendRanks() {
    return sendRank;
  }

  /** When each request was sent (after the run: every request). */
  double[] sendTimes() {
    return at;
  }

  /**
   * Closed loop: someone waits for p's response; if p has been sent, its timeout becomes an event
   * (once). A p not sent yet is armed when it reaches the engine ({@link #engineArrived}).
   */
  private void armTimeout(int p) {
    if (timeoutArmed.length == 0 || timeoutArmed[p] || !sent[p]) return;
    timeoutArmed[p] = true;
    ev.push(at[p] + timeoutS, Event.TIMEOUT, p, 0);
  }
}
