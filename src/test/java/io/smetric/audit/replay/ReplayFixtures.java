package io.smetric.audit.replay;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.ReplayTraceBuilder;
import io.smetric.audit.testing.Traces;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Shared helpers for replay tests: small settings, agent-like random traces, one-call runs. */
final class ReplayFixtures {
  private ReplayFixtures() {}

  /** A small, fast cluster: 16-token blocks, tiny cost coefficients. */
  static ReplaySettings settings(int instances, long localBlocks) {
    return settingsBuilder(instances, localBlocks).build();
  }

  /** {@link #settings} as a builder, for a test that changes more. */
  static ReplaySettings.Builder settingsBuilder(int instances, long localBlocks) {
    ReplaySettings.Builder s = new ReplaySettings.Builder();
    s.profile = io.smetric.audit.testing.Profiles.estimate();
    s.instances = instances;
    s.localBlocks = localBlocks;
    s.profile = s.profile.with(p -> {
      p.maxBatch = 8;
      p.tokenBudget = 256;
    });
    return s;
  }

  /**
   * Two sessions whose second turns (t=100) each fetch an 8-block prefix from the global tier at
   * once: a0 (A: blocks 1-8) and b0 (B: 101-108) at t=0, then b1 and a1 at t=100. Under round
   * robin a0, b0, b1, a1 go to instances 0, 1, 2, 3 (mod the instance count).
   */
  static ReplayTrace concurrentFetchTrace() {
    Traces.Builder b = Traces.builder().blockSize(16)
        .simple("a0", "A", 0, 0.0, 1, 2, 3, 4, 5, 6, 7, 8)
        .simple("b0", "B", 0, 0.0, 101, 102, 103, 104, 105, 106, 107, 108)
        .simple("b1", "B", 1, 100.0, 101, 102, 103, 104, 105, 106, 107, 108, 109)
        .simple("a1", "A", 1, 100.0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    return trace(b, false);
  }

  /**
   * A global tier as large as the local tiers with slow, latency-free links: 1000 B of KV per
   * token and 128 kB/s per instance link, so an 8-block (128-token, 128,000 B) fetch alone takes
   * 1.0 s; no aggregate cap.
   */
  static ReplaySettings slowGlobalTier(int instances) {
    return slowGlobalTierBuilder(instances).build();
  }

  /** {@link #slowGlobalTier} as a builder, for a test that changes more. */
  static ReplaySettings.Builder slowGlobalTierBuilder(int instances) {
    ReplaySettings.Builder s = settingsBuilder(instances, 1000);
    s.globalRatio = 1.0;
    s.profile = s.profile.with(p -> {
      p.kvBytesPerToken = 1000;
      p.globalReadGBps = 128e-6;
      p.globalLookupLatencyS = 0;
    });
    s.globalAggregateGBps = Double.POSITIVE_INFINITY;
    return s;
  }

  static ReplayTrace trace(Traces.Builder b, boolean keepBlocks) {
    return ReplayTraceBuilder.fromRecords(b.records(), keepBlocks);
  }

  static SimOutcome run(ReplayTrace t, ReplaySettings s, Policies p) {
    return new Simulator(t, s, p.create(s)).run();
  }

  /**
   * An agent-like random trace: sessions append to their own history (so each prompt extends the
   * previous one of its session), several share a system prompt, some fork from another session's
   * history, lengths vary, arrivals are a Poisson-like stream at the given mean gap.
   */
  static Traces.Builder agentTrace(long seed, int sessions, int maxTurns, double meanGap) {
    SplittableRandom rnd = new SplittableRandom(seed);
    Traces.Builder b = Traces.builder().blockSize(16);
    List<long[]> histories = new ArrayList<>();
    long nextId = 1_000_000L * (seed + 1);
    double time = 0;
    int[] turns = new int[sessions];
    int[] target = new int[sessions];
    List<Integer> active = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      target[s] = 1 + rnd.nextInt(maxTurns);
      int sys = rnd.nextInt(3); // three shared system prompts
      long[] h = new long[2 + rnd.nextInt(4)];
      for (int i = 0; i < h.length; i++) h[i] = i < 2 ? 7_000 + sys * 10 + i : nextId++;
      if (s > 0 && rnd.nextInt(5) == 0) { // fork: starts with another session's history prefix
        long[] other = histories.get(rnd.nextInt(s));
        int k = 1 + rnd.nextInt(other.length);
        long[] f = new long[k + 2];
        System.arraycopy(other, 0, f, 0, k);
        f[k] = nextId++;
        f[k + 1] = nextId++;
        h = f;
      }
      histories.add(h);
      active.add(s);
    }
    int id = 0;
    while (!active.isEmpty()) {
      int pick = active.get(rnd.nextInt(active.size()));
      long[] h = histories.get(pick);
      int turn = turns[pick]++;
      // last block partial in half the requests
      int in = h.length * 16 - (rnd.nextBoolean() ? rnd.nextInt(15) : 0);
      int out = 1 + rnd.nextInt(40);
      time += -Math.log(1 - rnd.nextDouble()) * meanGap;
      b.req("r" + id++, "s" + pick, null, turn, turn == 0 ? "user" : "tool", time, in, out, h.clone());
      // next turn: usually extends the history; sometimes rewrites the tail (divergence)
      int keep = rnd.nextInt(8) == 0 ? Math.max(1, h.length - 1 - rnd.nextInt(2)) : h.length;
      long[] nh = new long[keep + 1 + rnd.nextInt(3)];
      System.arraycopy(h, 0, nh, 0, keep);
      for (int i = keep; i < nh.length; i++) nh[i] = nextId++;
      histories.set(pick, nh);
      if (turns[pick] >= target[pick]) active.remove(Integer.valueOf(pick));
    }
    return b;
  }

  static List<TraceRecord> records(Traces.Builder b) {
    return b.records();
  }
}
