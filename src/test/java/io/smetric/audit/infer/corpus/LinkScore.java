package io.smetric.audit.infer.corpus;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Precision and recall of predicted parent links against every true link, overall, on the
 * revealable links of {@link LinkOracle}, and per oracle class. A predicted link is right when it
 * names the true parent; precision divides by every predicted link (a link predicted for a true
 * root is wrong), recall by every true link in the trace.
 */
public final class LinkScore {
  /** Counts of one group: requests, true links, predicted links, right links. */
  public static final class Counts {
    public long requests, truth, predicted, correct;

    public double precision() {
      return predicted == 0 ? 1 : correct / (double) predicted;
    }

    public double recall() {
      return truth == 0 ? 1 : correct / (double) truth;
    }

    void add(boolean hasTruth, boolean hasPred, boolean right) {
      requests++;
      if (hasTruth) truth++;
      if (hasPred) predicted++;
      if (right) correct++;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "P %.1f%% R %.1f%% (%d right, %d predicted, %d true, %d requests)",
          100 * precision(), 100 * recall(), correct, predicted, truth, requests);
    }
  }

  public final Counts all = new Counts();
  /**
   * Revealable links (evidence unique) and true roots (a link predicted there is wrong). Left out:
   * every other class (ties, identical prompts, outranked, ambiguous, unrelated, missing parent),
   * whose links content does not point at uniquely; they still count in {@link #all}.
   */
  public final Counts revealable = new Counts();
  public final Map<String, Counts> byClass = new TreeMap<>();

  private LinkScore() {}

  /**
   * @param predicted the predicted parent line of each line, -1 for none
   */
  public static LinkScore score(List<CorpusRequest> reqs, String[] classes, int[] predicted) {
    LinkScore s = new LinkScore();
    for (CorpusRequest r : reqs) {
      int pred = predicted[r.line];
      boolean hasTruth = r.parentLine >= 0;
      boolean hasPred = pred >= 0;
      boolean right = hasTruth && pred == r.parentLine;
      s.all.add(hasTruth, hasPred, right);
      String cls = classes[r.line];
      s.byClass.computeIfAbsent(cls, k -> new Counts()).add(hasTruth, hasPred, right);
      if (LinkOracle.revealable(cls) || cls.startsWith("root/")) s.revealable.add(hasTruth, hasPred, right);
    }
    return s;
  }

  /** Markdown rows: one per class. */
  public String table() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "all links: %s%nrevealable (unique) + roots: %s%n", all, revealable));
    sb.append("| class | requests | true links | predicted | right | P | R |\n|---|---|---|---|---|---|---|\n");
    for (var e : byClass.entrySet()) {
      Counts c = e.getValue();
      sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %s | %s |%n", e.getKey(), c.requests, c.truth,
          c.predicted, c.correct, c.predicted == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * c.precision()),
          c.truth == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * c.recall())));
    }
    return sb.toString();
  }
}
