package io.smetric.audit.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.TraceCache;
import io.smetric.audit.replay.trace.TraceFile;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceFileTest {
  @TempDir Path tmp;

  @Test
  void writeRead_everyArrayIdentical_andSimulationUnchanged() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(3, 40, 6, 0.5), true);
    String dir = tmp.resolve("t.arrow").toString();
    TraceFile.write(t, dir, new Configuration());
    ReplayTrace u = TraceFile.read(dir, new Configuration());
    assertEquals(t.n, u.n);
    assertEquals(t.segments, u.segments);
    assertArrayEquals(t.requestIds, u.requestIds);
    assertArrayEquals(t.arrival, u.arrival);
    assertArrayEquals(t.input, u.input);
    assertArrayEquals(t.sessionHash, u.sessionHash);
    assertArrayEquals(t.pathOff, u.pathOff);
    assertArrayEquals(t.pathNodes, u.pathNodes);
    assertArrayEquals(t.segBlocks, u.segBlocks);
    assertArrayEquals(t.estHitBlocks, u.estHitBlocks);
    assertArrayEquals(t.sessionFirst, u.sessionFirst);
    ReplaySettings s = ReplayFixtures.settings(3, 200).with(sb -> sb.globalRatio = 0.8);
    SimOutcome a = ReplayFixtures.run(t, s, Policies.SMETRIC);
    SimOutcome b = ReplayFixtures.run(u, s, Policies.SMETRIC);
    assertArrayEquals(a.instance, b.instance);
    assertEquals(a.metrics, b.metrics);
  }

  @Test
  void write_traceWithoutBlockIds_readsBackWithoutThem() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(5, 10, 3, 1.0), false);
    String dir = tmp.resolve("nb.arrow").toString();
    TraceFile.write(t, dir, new Configuration());
    ReplayTrace u = TraceFile.read(dir, new Configuration());
    assertTrue(!u.keepsBlocks());
    assertArrayEquals(t.pathNodes, u.pathNodes);
  }

  @Test
  void cache_sameFolder_readOnce() {
    ReplayTrace t = ReplayFixtures.trace(ReplayFixtures.agentTrace(4, 10, 3, 1.0), false);
    String dir = tmp.resolve("c.arrow").toString();
    TraceFile.write(t, dir, new Configuration());
    ReplayTrace a = TraceCache.get(dir, new Configuration());
    assertSame(a, TraceCache.get(dir, new Configuration()));
    TraceCache.evict(dir);
  }
}
