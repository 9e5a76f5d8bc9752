package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.model.TraceRecord;
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
 * (sim_steps included). Half the traces have long outputs, so long runs are summed up lazily
 * (RUN_CHECK at a lower bound of their end) and often cut before.
 */
class DecodeFastForwardTest {

  @Test
  void fastForward_randomTraces_identicalToStepByStep() {
    int runs = 0;
    long events = 0;
    long stepByStepEvents = 0;
    for (long seed = 31; seed <= 36; seed++) {
      Traces.Builder b = ReplayFixtures.agentTrace(seed, 30 + (int) seed, 8, 0.05);
      if (seed % 2 == 0) b = longOutputs(b); // runs of hundreds of steps: summed up lazily
      ReplayTrace t = ReplayFixtures.trace(b, false);
      for (int mode = 0; mode < 6; mode++) {
        for (Policies p : new Policies[] {Policies.SMETRIC, Policies.LEAST_LOAD, Policies.DYNAMO_KV}) {
          for (double rate : new double[] {0.2, 1, 4}) {
            ReplaySettings s = ReplayFixtures.settings(3, 60);
            s.rateScale = rate;
            switch (mode) {
              case 0 -> { } // colocated, open loop, local tier only
              case 1, 5 -> { // slow global tier: FETCH_DONE lands on instances in the middle of runs
                if (mode == 5) s.globalLoad = ReplaySettings.GlobalLoad.IN_STEP; // steps wait for fetches
                s.globalRatio = 1.6;
                s.profile.globalReadGBps = 0.05;
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
                s.profile.maxBatch = 2;
              }
              default -> { // PD disaggregation with a decode pool: hand-offs reach decoding instances
                s.architecture = ReplaySettings.Architecture.DISAGGREGATED;
                s.decodeInstances = 2;
              }
            }
            Simulator fast = new Simulator(t, s, p.create(s));
            SimOutcome ff = fast.run();
            ReplaySettings slowSettings = s.copy();
            slowSettings.decodeFastForward = false;
            Simulator slow = new Simulator(t, slowSettings, p.create(slowSettings));
            SimOutcome ref = slow.run();
            String ctx = p.cliName() + " seed " + seed + " mode " + mode + " rate " + rate;
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
            events += fast.stepEvents();
            stepByStepEvents += slow.stepEvents();
            runs++;
          }
        }
      }
    }
    assertEquals(324, runs);
    // outputs of 1-40 tokens: the runs must have collapsed most decode steps
    assertTrue(events * 2 < stepByStepEvents, events + " events with fast-forward vs " + stepByStepEvents);
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
