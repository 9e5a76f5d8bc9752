package io.smetric.audit.replay.bench;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import io.smetric.audit.replay.trace.TraceFile;
import io.smetric.audit.replay.trace.TraceLoader;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * Why is cache-first stickiness low on a trace? {@code StickinessProbe CANONICAL_DIR|ARROW_DIR
 * RATE POLICIES [LOCAL_BLOCKS...]}: prints the trace's follow-up structure (how many follow-ups
 * still continue their turn-0 prompt, i.e. could find the session's KV on the turn-0 instance)
 * and, per policy and local capacity ("derived", "unbounded" or a number), Figure 12's stickiness
 * beside stickiness to the previous request and stickiness among follow-ups that continue turn 0.
 * A canonical dataset is loaded with Spark once and cached as an Arrow folder next to it
 * ({@code DIR.replay-arrow}).
 */
public final class StickinessProbe {
  public static void main(String[] a) {
    String in = a[0];
    double rate = Double.parseDouble(a[1]);
    String[] policies = a[2].split(",");
    String[] caps = a.length > 3 ? java.util.Arrays.copyOfRange(a, 3, a.length) : new String[] {"derived"};
    Configuration conf = new Configuration();
    String arrow = in.endsWith(".replay-arrow") ? in : in.replaceAll("/+$", "") + ".replay-arrow";
    ReplayTrace t;
    try {
      t = TraceFile.read(arrow, conf);
    } catch (IllegalStateException e) {
      SparkSession spark = SparkSession.builder().master("local[2]").appName("stickiness-probe")
          .config("spark.ui.enabled", "false").config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.driver.host", "127.0.0.1").getOrCreate();
      spark.sparkContext().setLogLevel("WARN");
      t = TraceLoader.load(spark, in, false);
      TraceFile.write(t, arrow, conf);
      spark.stop();
    }
    // trace structure
    long followUps = 0;
    long extending = 0;
    long prevIsFirst = 0;
    long[] byTurn = new long[6];
    long[] extByTurn = new long[6];
    for (int r = 0; r < t.n; r++) {
      int f = t.sessionFirst[r];
      if (f < 0 || f == r || t.turn[r] <= 0) continue;
      followUps++;
      boolean ext = t.extendsSessionFirst(r);
      if (ext) extending++;
      if (t.prevInSession[r] == f) prevIsFirst++;
      int b = Math.min(5, t.turn[r] <= 1 ? 0 : t.turn[r] <= 3 ? 1 : t.turn[r] <= 7 ? 2 : t.turn[r] <= 15 ? 3 : t.turn[r] <= 31 ? 4 : 5);
      byTurn[b]++;
      if (ext) extByTurn[b]++;
    }
    System.out.printf(Locale.ROOT, "requests %d, sessions %d, follow-ups with turn 0 in the trace %d (%.1f%%)%n", t.n,
        t.sessions, followUps, 100.0 * followUps / t.n);
    System.out.printf(Locale.ROOT, "  continuing the turn-0 prompt: %d (%.1f%%); previous request is turn 0: %.1f%%%n",
        extending, 100.0 * extending / followUps, 100.0 * prevIsFirst / followUps);
    String[] lbl = {"turn 1", "2-3", "4-7", "8-15", "16-31", "32+"};
    for (int b = 0; b < 6; b++) {
      System.out.printf(Locale.ROOT, "  %-7s follow-ups %7d (%.1f%% of all), continuing turn 0 %.1f%%%n", lbl[b], byTurn[b],
          100.0 * byTurn[b] / followUps, byTurn[b] == 0 ? 0.0 : 100.0 * extByTurn[b] / byTurn[b]);
    }
    for (String cap : caps) {
      for (String p : policies) {
        ReplaySettings s = ReplaySettings.defaults().with(sb -> {
          sb.rateScale = rate;
          sb.localBlocks = cap.equals("derived") ? null : cap.equals("unbounded") ? -1L : Long.parseLong(cap);
        });
        long c0 = System.nanoTime();
        SimOutcome o = new Simulator(t, s, Policies.byName(p).create(s)).run();
        System.out.printf(Locale.ROOT,
            "%-20s local=%-9s x=%s stickiness=%.3f previous=%.3f continuing-turn0=%.3f local_hit=%.3f tps_slo=%.0f (%.1f s)%n",
            p, cap, rate, o.metrics.get("stickiness"), o.metrics.get("stickiness_previous"),
            o.metrics.get("stickiness_extending_turn0"), o.metrics.get("local_hit_ratio"),
            o.metrics.get("tps_within_slo"), (System.nanoTime() - c0) / 1e9);
        // why did follow-ups leave their previous request's instance?
        long moved = 0;
        long movedCont = 0;
        long movedContNotReady = 0;
        long movedNotCont = 0;
        long movedSysOnly = 0;
        for (int r = 0; r < t.n; r++) {
          int q = t.prevInSession[r];
          if (q < 0 || o.instance[q] == o.instance[r]) continue;
          moved++;
          int common = t.commonBlocks(q, r);
          boolean cont = common >= Math.min(t.blocks[q], t.input[q] / t.blockSize);
          if (cont) {
            movedCont++;
            if (movedCont <= 12 && System.getProperty("probe.examples") != null) {
              int bestJ = -1;
              int best = -1;
              int bestQ = -1;
              for (int j = 0; j < r; j++) {
                if (o.firstToken[j] > o.arrival[r]) continue;
                int c = t.commonBlocks(j, r);
                if (o.instance[j] == o.instance[r] && c > best) { best = c; bestJ = j; }
                if (o.instance[j] == o.instance[q] && c > bestQ) bestQ = c;
              }
              System.out.printf(Locale.ROOT,
                  "      r=%s turn %d blocks %d | prev %s turn %d blocks %d inst %d, best there %d | chose inst %d, best there %d via %s (session %s, turn %d)%n",
                  t.requestIds[r], t.turn[r], t.blocks[r], t.requestIds[q], t.turn[q], t.blocks[q], o.instance[q], bestQ,
                  o.instance[r], best, bestJ < 0 ? "-" : t.requestIds[bestJ], bestJ < 0 ? "-" : String.valueOf(t.session[bestJ] == t.session[r] ? "same" : "other"),
                  bestJ < 0 ? -1 : t.turn[bestJ]);
            }
            if (o.firstToken[q] > o.arrival[r]) movedContNotReady++;
          } else {
            movedNotCont++;
            if (common * 2 < t.blocks[q]) movedSysOnly++;
          }
        }
        System.out.printf(Locale.ROOT,
            "    left the previous instance: %d; continuing the previous prompt %d (of which previous not yet prefilled at arrival %d); "
                + "not continuing %d (sharing < half of it %d)%n",
            moved, movedCont, movedContNotReady, movedNotCont, movedSysOnly);
      }
    }
  }
}
