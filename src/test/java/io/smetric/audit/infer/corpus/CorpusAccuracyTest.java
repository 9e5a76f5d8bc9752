package io.smetric.audit.infer.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.Canonical;
import io.smetric.audit.infer.InferenceOptions;
import io.smetric.audit.infer.SessionInference;
import io.smetric.audit.testing.TestSpark;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Session inference on every member of the independent corpus at a small size
 * (docs/session-inference.md has the 3,000-request table): precision and recall on
 * content-revealable links are at least 95% on each member, with enough such links that the bound
 * means something. Revealable = {@link LinkOracle}'s unique evidence (an oracle that shares no
 * code, allowance or template notion with the rule); precision divides by every link predicted on
 * those requests and on true roots; every other class is reported in the all-links figures.
 *
 * <p>To keep this to two inference runs, the members of one block size are laid end to end in
 * one trace: member k's block ids are shifted past member k-1's (no content is shared) and its
 * times by k * 100,000 s (more than the window plus any member's span, so no link can cross). Each
 * member's figures are then those of a run on its own (scored by {@link LinkScore}, not by
 * InferenceAccuracy).
 */
class CorpusAccuracyTest {
  static final int REQUESTS = 1000;
  static final int MIN_LINKS = 300;
  static final double SHIFT_S = 100_000;

  @ParameterizedTest(name = "block size {0}")
  @ValueSource(ints = {512, 16})
  void everyMember_revealableLinks_precisionAndRecallAtLeast95(int blockSize) {
    Map<String, List<CorpusRequest>> members = new LinkedHashMap<>();
    for (CorpusSpec s : CorpusMembers.all().values()) {
      if (s.blockSize == blockSize) members.put(s.name, CorpusTool.generate(s.withRequests(REQUESTS)));
    }
    assertTrue(members.size() >= 5, members.keySet().toString());
    List<CorpusRequest> all = new ArrayList<>();
    Map<String, int[]> range = new LinkedHashMap<>();
    int idBase = 0;
    int k = 0;
    for (var e : members.entrySet()) {
      int lineBase = all.size();
      int maxId = -1;
      for (CorpusRequest r : e.getValue()) {
        all.add(shifted(r, lineBase, idBase, (long) (k * SHIFT_S * 1000)));
        for (int id : r.hashIds) maxId = Math.max(maxId, id);
      }
      range.put(e.getKey(), new int[] {lineBase, all.size()});
      idBase += maxId + 1;
      k++;
    }
    SessionInference.Result res = new SessionInference(TestSpark.get(), InferenceOptions.defaults())
        .execute(CorpusWriter.canonical(TestSpark.get(), all, blockSize));
    int[] pred = new int[all.size()];
    int[] naive = new int[all.size()];
    java.util.Arrays.fill(pred, -2);
    for (Row x : res.links().select(Canonical.REQUEST_ID, Canonical.PARENT_ID, SessionInference.NAIVE_PARENT_ID)
        .collectAsList()) {
      pred[Integer.parseInt(x.getString(0))] = x.isNullAt(1) ? -1 : Integer.parseInt(x.getString(1));
      naive[Integer.parseInt(x.getString(0))] = x.isNullAt(2) ? -1 : Integer.parseInt(x.getString(2));
    }
    res.links().unpersist();
    for (int line = 0; line < pred.length; line++) assertTrue(pred[line] >= -1, "no link row for line " + line);

    StringBuilder report = new StringBuilder();
    List<String> failed = new ArrayList<>();
    List<String> naivePassed = new ArrayList<>();
    for (var e : range.entrySet()) {
      int lo = e.getValue()[0], hi = e.getValue()[1];
      List<CorpusRequest> member = members.get(e.getKey());
      // the oracle classifies each member on its own lines (it knows nothing of the rule)
      String[] cls = LinkOracle.classify(member, blockSize);
      LinkScore s = LinkScore.score(member, cls, local(pred, lo, hi));
      LinkScore n = LinkScore.score(member, cls, local(naive, lo, hi));
      String line = String.format(Locale.ROOT, "%s: revealable %s; all links %s", e.getKey(), s.revealable, s.all);
      report.append(line).append('\n');
      if (s.revealable.truth < MIN_LINKS || s.revealable.precision() < 0.95 || s.revealable.recall() < 0.95) failed.add(line);
      if (n.revealable.precision() >= 0.95 && n.revealable.recall() >= 0.95) naivePassed.add(e.getKey());
    }
    System.out.print(report);
    assertTrue(failed.isEmpty(), "members below 95% (or with too few links): " + failed + "\n" + report);
    // the bound can fail: a broken rule (the naive longest prefix, the rule without its steps)
    // is below it on most members
    assertTrue(naivePassed.size() < members.size() / 2, "naive baseline passes on " + naivePassed);
  }

  /** Predictions of lines [lo, hi) as member-local lines (-1 kept; a link across members is impossible). */
  static int[] local(int[] pred, int lo, int hi) {
    int[] out = new int[hi - lo];
    for (int i = lo; i < hi; i++) out[i - lo] = pred[i] < 0 ? -1 : pred[i] - lo;
    return out;
  }

  /** A copy of r with its line, parent line and block ids offset and its time shifted. */
  private static CorpusRequest shifted(CorpusRequest r, int lineBase, int idBase, long shiftMs) {
    CorpusRequest c = new CorpusRequest();
    c.line = r.line + lineBase;
    c.timestampMs = r.timestampMs + shiftMs;
    c.inputTokens = r.inputTokens;
    c.outputTokens = r.outputTokens;
    c.hashIds = r.hashIds.clone();
    for (int i = 0; i < c.hashIds.length; i++) c.hashIds[i] += idBase;
    c.session = r.session;
    c.parentLine = r.parentLine < 0 ? -1 : r.parentLine + lineBase;
    c.turn = r.turn;
    c.trigger = r.trigger;
    c.family = r.family;
    c.linkClass = r.linkClass;
    c.fork = r.fork;
    c.compacted = r.compacted;
    c.contentClass = r.contentClass;
    return c;
  }
}
