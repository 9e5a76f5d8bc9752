package io.smetric.audit.infer.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.contract.Canonical;
import io.smetric.audit.infer.InferenceOptions;
import io.smetric.audit.infer.SessionInference;
import io.smetric.audit.testing.TestSpark;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Row;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Session inference on every member of the independent corpus at a small size
 * (docs/session-inference.md has the 3,000-request table): precision and recall on
 * content-revealable links are at least 95% on each member, with enough such links that the bound
 * means something.
 *
 * <p>To keep this to two inference runs, the members of one block size are laid end to end in
 * one trace: member k's block ids are shifted past member k-1's (no content is shared) and its
 * times by k * 100,000 s (more than the window plus any member's span, so no link can cross). Each
 * member's figures are then those of a run on its own. They are computed here from the links
 * (not by InferenceAccuracy): a revealable request is right when its predicted parent is its true
 * parent; precision counts the links predicted for revealable requests and for clean roots.
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
    Map<Integer, String> predicted = new HashMap<>();
    for (Row x : res.links().select(Canonical.REQUEST_ID, Canonical.PARENT_ID).collectAsList()) {
      predicted.put(Integer.parseInt(x.getString(0)), x.isNullAt(1) ? null : x.getString(1));
    }
    res.links().unpersist();
    assertEquals(all.size(), predicted.size());

    StringBuilder report = new StringBuilder();
    List<String> failed = new ArrayList<>();
    for (var e : range.entrySet()) {
      long trueLinks = 0, inScope = 0, correct = 0;
      for (int line = e.getValue()[0]; line < e.getValue()[1]; line++) {
        CorpusRequest r = all.get(line);
        boolean revealable = Revealability.revealable(r.contentClass);
        if (!revealable && !Revealability.ROOT_CLEAN.equals(r.contentClass)) continue;
        String p = predicted.get(line);
        if (p != null) inScope++;
        if (revealable) {
          trueLinks++;
          if (Objects.equals(p, "" + r.parentLine)) correct++;
        }
      }
      double precision = inScope == 0 ? 1 : correct / (double) inScope;
      double recall = correct / (double) trueLinks;
      String line = String.format(Locale.ROOT, "%s: %d revealable links, P %.1f%% R %.1f%%", e.getKey(), trueLinks,
          100 * precision, 100 * recall);
      report.append(line).append('\n');
      if (trueLinks < MIN_LINKS || precision < 0.95 || recall < 0.95) failed.add(line);
    }
    System.out.print(report);
    assertTrue(failed.isEmpty(), "members below 95% (or with too few links): " + failed + "\n" + report);
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
