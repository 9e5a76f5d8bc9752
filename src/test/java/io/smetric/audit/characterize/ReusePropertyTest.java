package io.smetric.audit.characterize;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.hash;
import static org.apache.spark.sql.functions.pmod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.contract.BlockChain;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.contract.TraceRecord;
import io.smetric.audit.testing.TestSpark;
import io.smetric.audit.testing.Traces;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Property: on random traces (templates, forks, compaction, retries from older states, ties, partial and mismatching block
 * counts, requests without a session, random partitioning), the distributed passes give exactly
 * what a plain sequential single pass over the requests in (arrival, seq) order gives.
 */
class ReusePropertyTest {
  static final int B = 16;

  static List<TraceRecord> randomTrace(long seed) {
    Random rnd = new Random(seed);
    List<long[]> templates = List.of(new long[] {1001, 1002, 1003}, new long[] {1001, 1002, 2003, 2004});
    long fresh = 1;
    List<TraceRecord> out = new ArrayList<>();
    int sessions = 1 + rnd.nextInt(10);
    List<String> ids = new ArrayList<>();
    List<List<Long>> lastContent = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      String sid = "s" + s;
      boolean fork = s > 0 && rnd.nextInt(4) == 0;
      List<Long> content = new ArrayList<>();
      String parent = null;
      if (fork) {
        int p = rnd.nextInt(s);
        content.addAll(lastContent.get(p));
        parent = ids.get(rnd.nextInt(ids.size()));
      } else if (rnd.nextInt(3) > 0) {
        for (long x : templates.get(rnd.nextInt(2))) content.add(x);
      }
      double t = rnd.nextInt(200) / 2.0;
      int turns = 1 + rnd.nextInt(6);
      List<List<Long>> snapshots = new ArrayList<>();
      for (int k = 0; k < turns; k++) {
        if (k > 0 && rnd.nextInt(6) == 0) { // compaction: history replaced
          content = new ArrayList<>(content.subList(0, Math.min(2, content.size())));
        } else if (k > 1 && rnd.nextInt(5) == 0) { // retry from an older state of the session
          content = new ArrayList<>(snapshots.get(rnd.nextInt(snapshots.size() - 1)));
        }
        snapshots.add(new ArrayList<>(content));
        int add = 1 + rnd.nextInt(3);
        for (int i = 0; i < add; i++) content.add(fresh++);
        long[] raw = content.stream().mapToLong(Long::longValue).toArray();
        int input = raw.length * B - rnd.nextInt(B);
        int mismatch = rnd.nextInt(10);
        if (mismatch == 0) input += B * 2; // fewer blocks than ceil
        long[] chained = BlockChain.chain(raw);
        if (mismatch == 1) { // more blocks than ceil
          chained = BlockChain.chain(java.util.Arrays.copyOf(raw, raw.length + 2));
        }
        String rid = sid + "-" + k;
        String trig = k == 0 ? (fork ? "subagent" : "user") : "tool";
        String sess = rnd.nextInt(15) == 0 ? null : sid;
        out.add(new TraceRecord(rid, sess, k == 0 ? parent : sid + "-" + (k - 1), sess == null ? null : k, trig, t,
            input, 5, B, chained, null, 0));
        ids.add(rid);
        t += rnd.nextInt(40) / 2.0;
      }
      lastContent.add(new ArrayList<>(content));
    }
    // seq: a random permutation (input order need not follow arrival)
    List<Integer> perm = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) perm.add(i);
    Collections.shuffle(perm, rnd);
    List<TraceRecord> res = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      TraceRecord r = out.get(i);
      res.add(new TraceRecord(r.requestId(), r.sessionId(), r.parentId(), r.turn(), r.trigger(), r.arrivalS(),
          r.inputTokens(), r.outputTokens(), r.blockSize(), r.blocks(), null, perm.get(i)));
    }
    return res;
  }

  /** The sequential reference: one pass in (arrival, seq) order with a hash map. */
  record Ref(long prefill, long[] hitBySource, Map<Integer, TreeMap<Long, Long>> intervals) {}

  static Ref reference(List<TraceRecord> trace, int k) {
    List<TraceRecord> rs = new ArrayList<>(trace);
    rs.sort(Comparator.comparingDouble(TraceRecord::arrivalS).thenComparingLong(TraceRecord::seq));
    Map<Long, Set<String>> rootsByBlock = new HashMap<>();
    for (TraceRecord r : rs) {
      boolean root = r.sessionId() != null && r.turn() != null && r.turn() == 0 && r.parentId() == null
          && !"subagent".equals(r.trigger());
      if (!root) continue;
      for (int i = 0; i < used(r); i++) rootsByBlock.computeIfAbsent(r.blocks()[i], x -> new HashSet<>()).add(r.sessionId());
    }
    Map<Long, Double> last = new HashMap<>();
    Map<Long, Set<String>> sessionsOf = new HashMap<>();
    long prefill = 0;
    long[] hit = new long[3];
    Map<Integer, TreeMap<Long, Long>> iv = new HashMap<>();
    for (int s = 0; s < 3; s++) iv.put(s, new TreeMap<>());
    for (TraceRecord r : rs) {
      prefill += r.inputTokens();
      String sess = r.sessionId() != null ? r.sessionId() : "\0req:" + r.requestId();
      int n = used(r);
      int hitBlocks = 0;
      for (int i = 0; i < n; i++) if (last.containsKey(r.blocks()[i])) hitBlocks = i + 1;
      for (int i = 0; i < hitBlocks; i++) {
        long c = r.blocks()[i];
        long w = Math.min(B, r.inputTokens() - (long) i * B);
        int src = sessionsOf.get(c).contains(sess) ? 0
            : rootsByBlock.getOrDefault(c, Set.of()).size() >= k ? 1 : 2;
        hit[src] += w;
        long us = Math.round((r.arrivalS() - last.get(c)) * 1e6);
        iv.get(src).merge(us, w, Long::sum);
      }
      for (int i = 0; i < n; i++) {
        last.put(r.blocks()[i], r.arrivalS());
        sessionsOf.computeIfAbsent(r.blocks()[i], x -> new HashSet<>()).add(sess);
      }
    }
    return new Ref(prefill, hit, iv);
  }

  static int used(TraceRecord r) {
    return Math.min(r.blocks().length, Canonical.expectedBlocks(r.inputTokens(), r.blockSize()));
  }

  /** Smallest v whose cumulative weight reaches q of the total. */
  static long weightedPercentile(TreeMap<Long, Long> m, double q) {
    long total = m.values().stream().mapToLong(Long::longValue).sum();
    long need = BigDecimal.valueOf(q).multiply(BigDecimal.valueOf(total)).setScale(0, RoundingMode.CEILING).longValue();
    long cum = 0;
    for (Map.Entry<Long, Long> e : m.entrySet()) {
      cum += e.getValue();
      if (cum >= need) return e.getKey();
    }
    throw new IllegalStateException();
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void randomTrace_distributedEqualsSequentialReference(long seed) {
    List<TraceRecord> trace = randomTrace(seed);
    Traces.Builder b = Traces.builder();
    trace.forEach(b::add);
    int parts = 1 + (int) (seed % 4);
    Dataset<Row> ds = b.toDataset(TestSpark.get())
        .repartition(parts, pmod(hash(col(Canonical.REQUEST_ID)), org.apache.spark.sql.functions.lit(parts)));
    int k = 1 + (int) (seed % 3);
    Ref ref = reference(trace, k);
    ObjectNode j = CharacterizationTest.analyze(ds, new Characterization.Options(4, k, 30));

    long hitAll = ref.hitBySource()[0] + ref.hitBySource()[1] + ref.hitBySource()[2];
    assertEquals((double) hitAll / ref.prefill(), CharacterizationTest.v(j, "reuse", "token_weighted"), 1e-12,
        "seed " + seed);
    String[] names = {"intra_session", "system_prompt", "inter_session"};
    for (int s = 0; s < 3; s++) {
      assertEquals(ref.hitBySource()[s], j.path("reuse_by_source").path(names[s]).path("hit_tokens").asLong(),
          "seed " + seed + " source " + names[s]);
    }
    TreeMap<Long, Long> all = new TreeMap<>();
    for (int s = 0; s < 3; s++) ref.intervals().get(s).forEach((x, w) -> all.merge(x, w, Long::sum));
    double[] qs = {0.5, 0.9, 0.99};
    String[] qn = {"p50_s", "p90_s", "p99_s"};
    for (int i = 0; i < 3; i++) {
      if (all.isEmpty()) break;
      assertEquals(weightedPercentile(all, qs[i]) / 1e6, CharacterizationTest.v(j, "reuse_interval", "all", qn[i]), 1e-9,
          "seed " + seed + " " + qn[i]);
      for (int s = 0; s < 3; s++) {
        if (ref.intervals().get(s).isEmpty()) continue;
        assertEquals(weightedPercentile(ref.intervals().get(s), qs[i]) / 1e6,
            CharacterizationTest.v(j, "reuse_interval", names[s], qn[i]), 1e-9, "seed " + seed + " " + names[s]);
      }
    }
    if (!all.isEmpty()) {
      long within = all.headMap(30_000_000L, true).values().stream().mapToLong(Long::longValue).sum();
      assertEquals((double) within / hitAll, CharacterizationTest.v(j, "reuse_interval", "all", "share_within_threshold"),
          1e-12);
    }
  }
}
