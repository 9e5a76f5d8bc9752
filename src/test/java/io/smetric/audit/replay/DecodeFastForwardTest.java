package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.testing.Traces;
import org.junit.jupiter.api.Test;

/**
 * Property: decode fast-forward (one event for a run of decode-only steps, cut short when a
 * request reaches the instance) changes nothing but the number of events. On random agent-like
 * traces, in every mode that reaches a busy instance mid-run (arrivals, global-tier fetches
 * completing, with the instance stepping on or waiting for the fetch, decode-pool hand-offs,
 * closed-loop releases, a queue head waiting for memory or batch room), every request's instance, hits, first-token and finish times are bit-identical
 * to the step-by-step replay, and so are the load and bandwidth windows and all metrics
 * (sim_steps included). Half the traces have long outputs, so long runs are often cut before
 * their end. Both replays time decode-only steps by the same closed form of their stretch (step
 * index -> end time), so a cut must find exactly the steps that ended by its time, ties included:
 * the second case puts every arrival on a step boundary.
 */
class DecodeFastForwardTest {

  @Test
  void fastForward_randomTraces_identicalToStepByStep() {
    int runs = 0;
    long events = 0;
    long stepByStepEvents = 0;
    for (long seed = 31; seed <= 36; seed++) {
      Traces.Builder b = ReplayFixtures.agentTrace(seed, 30 + (int) seed, 8, 0.05);
      if (seed % 2 == 0) b = longOutputs(b); // runs of hundreds of steps, often cut
      ReplayTrace t = ReplayFixtures.trace(b, false);
      for (int mode = 0; mode < 6; mode++) {
        for (Policies p : new Policies[] {Policies.SMETRIC, Policies.LEAST_LOAD, Policies.DYNAMO_KV}) {
          for (double rate : new double[] {0.2, 1, 4}) {
            ReplaySettings.Builder s = ReplayFixtures.settingsBuilder(3, 60);
            s.rateScale = rate;
            switch (mode) {
              case 0 -> { } // colocated, open loop, local tier only
              case 1, 5 -> { // slow global tier: FETCH_DONE lands on instances in the middle of runs
                if (mode == 5) s.globalLoad = ReplaySettings.GlobalLoad.IN_STEP; // steps wait for fetches
                s.globalRatio = 1.6;
                s.profile = s.profile.with(q -> q.globalReadGBps = 0.05);
                s.nodeNicGBps = 0.04;
                s.instancesPerNode = 2;
              }
              case 2 -> { // closed loop with session scaling: releases come from finishes
                s.followUpsWaitForPrevious = true;
                s.rateScaling = ReplaySettings.RateScaling.SESSIONS;
                if (seed % 2 == 1) s.agentTimeoutS = 0.5; // and releases from agent timeouts
              }
              case 3 -> { // tiny memory and batch: the queue head waits for a finish
                s.localBlocks = 12L;
                s.profile = s.profile.with(q -> q.maxBatch = 2);
              }
              default -> { // PD disaggregation with a decode pool: hand-offs reach decoding instances
                s.architecture = ReplaySettings.Architecture.DISAGGREGATED;
                s.decodeInstances = 2;
              }
            }
            long[] ev = compare(t, s.build(), p, p.cliName() + " seed " + seed + " mode " + mode + " rate " + rate);
            events += ev[0];
            stepByStepEvents += ev[1];
            runs++;
          }
        }
      }
    }
    assertEquals(324, runs);
    // outputs of 1-40 tokens: the runs must have collapsed most decode steps
    assertTrue(events * 2 < stepByStepEvents, events + " events with fast-forward vs " + stepByStepEvents);
  }

  /**
   * Every step takes exactly 1/64 s and every request arrives on that grid, so arrivals (and
   * closed-loop releases) land exactly when a step of a busy instance ends: the step-by-step
   * replay ends that step first (events before arrivals at equal times), and a cut must count it.
   */
  @Test
  void fastForward_arrivalsOnStepBoundaries_identicalToStepByStep() {
    long events = 0;
    long stepByStepEvents = 0;
    for (long seed = 41; seed <= 43; seed++) {
      Traces.Builder grid = Traces.builder().blockSize(16);
      for (TraceRecord r : longOutputs(ReplayFixtures.agentTrace(seed, 24, 6, 0.2)).records()) {
        grid.add(new TraceRecord(r.requestId(), r.sessionId(), r.parentId(), r.turn(), r.trigger(),
            Math.round(r.arrivalS() * 64) / 64.0, r.inputTokens(), r.outputTokens(), r.blockSize(), r.blocks(),
            r.requestType(), r.seq()));
      }
      ReplayTrace t = ReplayFixtures.trace(grid, false);
      for (int mode = 0; mode < 3; mode++) {
        for (Policies p : new Policies[] {Policies.SMETRIC, Policies.LEAST_LOAD}) {
          ReplaySettings.Builder s = ReplayFixtures.settingsBuilder(3, 60);
          s.profile = io.smetric.audit.testing.Profiles.linear(1.0 / 64, 0, 0, 0, 0);
          s.profile = s.profile.with(q -> {
            q.maxBatch = 8;
            q.tokenBudget = 256;
          });
          if (mode == 1) s.followUpsWaitForPrevious = true; // releases at finishes, on the grid too
          if (mode == 2) s.localBlocks = 12L; // the queue head waits for memory
          long[] ev = compare(t, s.build(), p, p.cliName() + " grid seed " + seed + " mode " + mode);
          events += ev[0];
          stepByStepEvents += ev[1];
        }
      }
    }
    assertTrue(events * 2 < stepByStepEvents, events + " events with fast-forward vs " + stepByStepEvents);
  }

  /** Replays t both ways, asserts identical outcomes and returns the step events {fast-forward, step by step}. */
  private static long[] compare(ReplayTrace t, ReplaySettings s, Policies p, String ctx) {
    Simulator fast = new Simulator(t, s, p.create(s));
    SimOutcome ff = fast.run();
    ReplaySettings slowSettings = s.with(sb -> sb.decodeFastForward = false);
    Simulator slow = new Simulator(t, slowSettings, p.create(slowSettings));
    SimOutcome ref = slow.run();
    assertArrayEquals(ref.instance, ff.instance, ctx);
    assertArrayEquals(ref.localHitBlocks, ff.localHitBlocks, ctx);
    assertArrayEquals(ref.globalHitBlocks, ff.globalHitBlocks, ctx);
    assertArrayEquals(ref.firstToken, ff.firstToken, 0.0, ctx);
    assertArrayEquals(ref.finish, ff.finish, 0.0, ctx);
    assertArrayEquals(ref.arrival, ff.arrival, 0.0, ctx); // closed loop: when each was sent
    assertArrayEquals(ref.bandwidthWindows, ff.bandwidthWindows, 0.0, ctx);
    assertEquals(ref.loadWindows.length, ff.loadWindows.length, ctx);
    for (int i = 0; i < ref.loadWindows.length; i++) assertArrayEquals(ref.loadWindows[i], ff.loadWindows[i], 0.0, ctx);
    assertEquals(ref.metrics, ff.metrics, ctx);
    assertEquals(slow.totalSteps(), fast.totalSteps(), ctx);
    assertEquals(slow.totalSteps(), slow.stepEvents(), ctx); // step by step: one event per step
    return new long[] {fast.stepEvents(), slow.stepEvents()};
  }

  /** The same trace with 20x the output tokens (20-800), so decode runs are long. */
  private static Traces.Builder longOutputs(Traces.Builder b) {
    Traces.Builder l = Traces.builder().blockSize(16);
    for (TraceRecord r : b.records()) {
      l.add(new TraceRecord(r.requestId(), r.sessionId(), r.parentId(), r.turn(), r.trigger(), r.arrivalS(),
          r.inputTokens(), r.outputTokens() * 20, r.blockSize(), r.blocks(), r.requestType(), r.seq()));
    }
    return l;
  }
}
