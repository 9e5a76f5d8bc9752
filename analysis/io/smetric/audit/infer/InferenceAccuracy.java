package io.smetric.audit.infer;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BadInputException;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Scores inferred sessions against a generator's ground truth ({@code <trace>.truth.jsonl}: one
 * line per request with {@code line, session_id, parent_line, turn, trigger, fork, compacted}),
 * joined on {@code request_id == line} (the generator's Mooncake and smetric outputs use the
 * 0-based line as the request id). The same figures are computed for the naive baseline.
 *
 * <p>Every request is put in one class by its <em>true</em> link: {@code root} (no parent),
 * {@code compacted} (its prompt does not extend its parent's: content cannot reveal the link),
 * {@code fork} (a sub-agent's turn 0), {@code continuation} (any other follow-up). Continuations
 * are further split by what the parent's prompt offers: {@code visible} if the parent's full
 * blocks reach past the template blocks (blocks that occur in the turn-0 requests of at least 3
 * true root sessions, the definition of trace-model.md section 3), {@code template_only}
 * otherwise: then the child shares nothing with its parent that it does not share with every
 * session of that template, and no content rule can find the link.
 *
 * <ul>
 *   <li>precision (overall) = correct predicted links / predicted links;
 *   <li>recall (overall) = correct predicted links / true links;
 *   <li>revealable precision = correct / links predicted for children whose true link is not
 *       compacted (roots included: a link invented for a true root counts against it); revealable
 *       recall = correct / true links that are not compacted; the same for {@code visible};
 *   <li>fork precision = correct / links the rule labels as forks; fork recall = correct / true
 *       fork links;
 *   <li>sessions exact = true sessions whose member set equals one inferred session's.
 * </ul>
 */
public final class InferenceAccuracy {
  public static final StructType TRUTH_SCHEMA = new StructType()
      .add("line", DataTypes.LongType)
      .add("session_id", DataTypes.StringType)
      .add("parent_line", DataTypes.LongType)
      .add("turn", DataTypes.IntegerType)
      .add("trigger", DataTypes.StringType)
      .add("fork", DataTypes.BooleanType)
      .add("compacted", DataTypes.BooleanType)
      // optional (corpus truth files): the session tree, why the request exists, what content reveals
      .add("family", DataTypes.StringType)
      .add("link_class", DataTypes.StringType)
      .add("content_class", DataTypes.StringType);

  /** Content classes of the truth whose link content reveals (docs/session-inference.md). */
  public static final java.util.Set<String> REVEALABLE = java.util.Set.of("unique", "latest_of_ties");
  /** Content class of a true root that no earlier request shares anything but template blocks with. */
  public static final String ROOT_CLEAN = "root_clean";

  private static final int TEMPLATE_MIN_SESSIONS = 3;

  private final SparkSession spark;

  public InferenceAccuracy(SparkSession spark) {
    this.spark = spark;
  }

  public Dataset<Row> readTruth(String path) {
    return spark.read().schema(TRUTH_SCHEMA).option("mode", "FAILFAST").json(path);
  }

  /**
   * @param links {@link SessionInference.Result#links()}
   * @param canonical the trace that was inferred (for the template split)
   * @param truth rows of {@link #TRUTH_SCHEMA}
   */
  public ObjectNode score(Dataset<Row> links, Dataset<Row> canonical, Dataset<Row> truth, String truthName) {
    Dataset<Row> t = truth.select(
        col("line").cast("string").as("t_id"), col("session_id").as("t_session"),
        col("parent_line").cast("string").as("t_parent"), col("turn").as("t_turn"),
        col("fork").as("t_fork"), col("compacted").as("t_compacted"),
        col("link_class").as("t_link_class"), col("content_class").as("t_content_class"));
    Dataset<Row> joined = links.join(t, col(Canonical.REQUEST_ID).equalTo(col("t_id")), "full_outer").cache();
    Row cover = joined.agg(
        sum(when(col("t_id").isNull(), 1).otherwise(0)),
        sum(when(col(Canonical.REQUEST_ID).isNull(), 1).otherwise(0))).first();
    long notInTruth = cover.isNullAt(0) ? 0 : cover.getLong(0);
    long notInTrace = cover.isNullAt(1) ? 0 : cover.getLong(1);
    if (notInTruth > 0 || notInTrace > 0) {
      joined.unpersist();
      throw new BadInputException(truthName, 0, "line",
          "truth does not match the trace: " + notInTruth + " requests have no truth line, " + notInTrace
              + " truth lines have no request (the truth joins on request_id == line)");
    }

    // template blocks per trace-model section 3, from the truth's turn-0 root requests
    Dataset<Row> withTruth = canonical.select(col(Canonical.REQUEST_ID), col(Canonical.INPUT_TOKENS),
            col(Canonical.BLOCK_SIZE), col(Canonical.BLOCKS))
        .join(t.select("t_id", "t_session", "t_turn", "t_fork"), col(Canonical.REQUEST_ID).equalTo(col("t_id")));
    Dataset<Row> template = withTruth.where(col("t_turn").equalTo(0).and(col("t_fork").equalTo(false)))
        .select(col("t_session"), posexplode(col(Canonical.BLOCKS)).as(new String[] {"pos", "block"}))
        .groupBy("block").agg(countDistinct("t_session").as("n"))
        .where(col("n").geq(TEMPLATE_MIN_SESSIONS)).select("block");
    Dataset<Row> parentFull = withTruth.select(col(Canonical.REQUEST_ID).as("p_id"),
        floor(col(Canonical.INPUT_TOKENS).divide(col(Canonical.BLOCK_SIZE))).cast("int").as("p_full"));
    Dataset<Row> parentTemplate = withTruth
        .select(col(Canonical.REQUEST_ID).as("p_id"), posexplode(col(Canonical.BLOCKS)).as(new String[] {"pos", "block"}))
        .join(template, "block").groupBy("p_id").count().withColumnRenamed("count", "p_template");
    Dataset<Row> visibility = parentFull.join(parentTemplate, new scala.collection.immutable.Set.Set1<>("p_id").toSeq(), "left")
        .select(col("p_id"), col("p_full").gt(when(col("p_template").isNull(), 0).otherwise(col("p_template"))).as("p_visible"));

    Dataset<Row> classified = joined.join(visibility, col("t_parent").equalTo(col("p_id")), "left")
        .withColumn("cls", when(col("t_parent").isNull(), lit("root"))
            .when(col("t_compacted"), lit("compacted"))
            .when(col("t_fork").and(col("t_turn").equalTo(0)), lit("fork"))
            .when(col("p_visible"), lit("visible"))
            .otherwise(lit("template_only")))
        .cache();

    ObjectNode out = Json.object();
    out.put("truth", truthName);
    out.put("requests", classified.count());
    boolean contentClasses = !classified.where(col("t_content_class").isNotNull()).limit(1).isEmpty();
    ObjectNode rule = method(classified, Canonical.PARENT_ID, Canonical.SESSION_ID, true);
    ObjectNode naive = method(classified, SessionInference.NAIVE_PARENT_ID, SessionInference.NAIVE_SESSION_ID, false);
    if (contentClasses) {
      Dataset<Row> sessions = t.select("t_id", "t_session");
      rule.setAll(byClass(classified, sessions, Canonical.PARENT_ID, true));
      naive.setAll(byClass(classified, sessions, SessionInference.NAIVE_PARENT_ID, false));
    }
    out.set("rule", rule);
    out.set("naive_longest_prefix", naive);
    classified.unpersist();
    joined.unpersist();
    return out;
  }

  private static Column n(Column cond) {
    return sum(when(cond, 1).otherwise(0));
  }

  private ObjectNode method(Dataset<Row> d, String parentCol, String sessionCol, boolean hasKinds) {
    Column pred = col(parentCol).isNotNull();
    Column ok = col(parentCol).eqNullSafe(col("t_parent")).and(pred);
    Column cls = col("cls");
    String[] classes = {"root", "visible", "template_only", "fork", "compacted"};
    Column[] aggs = new Column[classes.length * 3 + 2];
    int k = 0;
    for (String c : classes) {
      aggs[k++] = n(cls.equalTo(c));
      aggs[k++] = n(cls.equalTo(c).and(pred));
      aggs[k++] = n(cls.equalTo(c).and(ok));
    }
    Column forkKind = hasKinds ? col(SessionInference.LINK_KIND).startsWith("fork") : lit(false);
    aggs[k++] = n(forkKind);
    aggs[k] = n(forkKind.and(ok));
    Row r = d.agg(aggs[0], java.util.Arrays.copyOfRange(aggs, 1, aggs.length)).first();
    long[] total = new long[classes.length], predicted = new long[classes.length], correct = new long[classes.length];
    for (int i = 0; i < classes.length; i++) {
      total[i] = get(r, 3 * i);
      predicted[i] = get(r, 3 * i + 1);
      correct[i] = get(r, 3 * i + 2);
    }
    long predForks = get(r, 3 * classes.length), okForks = get(r, 3 * classes.length + 1);

    ObjectNode m = Json.object();
    ObjectNode byClass = m.putObject("by_true_class");
    for (int i = 0; i < classes.length; i++) {
      ObjectNode c = byClass.putObject(classes[i]);
      c.put("requests", total[i]);
      c.put("predicted_links", predicted[i]);
      c.put("correct_links", correct[i]);
    }
    // indices: 0 root, 1 visible, 2 template_only, 3 fork, 4 compacted
    long predAll = predicted[0] + predicted[1] + predicted[2] + predicted[3] + predicted[4];
    long okAll = correct[1] + correct[2] + correct[3] + correct[4];
    long truthAll = total[1] + total[2] + total[3] + total[4];
    pr(m.putObject("overall"), okAll, predAll, truthAll);
    long okRev = correct[1] + correct[2] + correct[3];
    pr(m.putObject("revealable"), okRev, predicted[0] + predicted[1] + predicted[2] + predicted[3],
        total[1] + total[2] + total[3]);
    pr(m.putObject("visible"), correct[1] + correct[3], predicted[0] + predicted[1] + predicted[3], total[1] + total[3]);
    ObjectNode tmpl = m.putObject("template_only");
    tmpl.put("links", total[2]);
    tmpl.put("recall", ratio(correct[2], total[2]));
    ObjectNode comp = m.putObject("compacted");
    comp.put("links", total[4]);
    comp.put("recall", ratio(correct[4], total[4]));
    comp.put("predicted_links", predicted[4]);
    ObjectNode fork = m.putObject("fork");
    fork.put("links", total[3]);
    fork.put("recall", ratio(correct[3], total[3]));
    if (hasKinds) {
      fork.put("predicted_fork_links", predForks);
      fork.put("precision", ratio(okForks, predForks));
    }
    m.put("false_links_on_true_roots", predicted[0]);
    m.setAll(sessions(d, sessionCol));
    return m;
  }

  /**
   * With a truth that labels every request ({@code link_class}, {@code content_class}): precision
   * and recall on content-revealable links, and per link class. Revealable precision counts the
   * links predicted for revealable children and for clean roots (a link invented there is wrong);
   * links predicted where content cannot decide are reported per class but left out. For correct
   * links, {@code same_kind} counts those whose kind agrees with the truth (a fork predicted for a
   * sub-agent's turn 0, a continuation otherwise). {@code same_session_parent} counts predicted
   * links whose parent lies in the true parent's session (right conversation, maybe not the exact
   * request: what content still tells when several requests of one session present equal evidence).
   */
  private ObjectNode byClass(Dataset<Row> classified, Dataset<Row> sessions, String parentCol, boolean hasKinds) {
    Dataset<Row> d = classified
        .join(sessions.select(col("t_id").as("pp_id"), col("t_session").as("pp_session")),
            col(parentCol).equalTo(col("pp_id")), "left")
        .join(sessions.select(col("t_id").as("tp_id"), col("t_session").as("tp_session")),
            col("t_parent").equalTo(col("tp_id")), "left");
    Column pred = col(parentCol).isNotNull();
    Column ok = col(parentCol).eqNullSafe(col("t_parent")).and(pred);
    Column trueFork = col("t_fork").and(col("t_turn").equalTo(0));
    Column kindOk = hasKinds ? col(SessionInference.LINK_KIND).startsWith("fork").eqNullSafe(trueFork) : lit(false);
    List<Row> rows = d.groupBy(col("t_link_class"), col("t_content_class"))
        .agg(n(lit(true)), n(col("t_parent").isNotNull()), n(pred), n(ok), n(ok.and(kindOk)),
            n(pred.and(col("pp_session").eqNullSafe(col("tp_session")))))
        .collectAsList(); // one row per (link class, content class): a few dozen
    java.util.TreeMap<String, long[]> perLink = new java.util.TreeMap<>();
    java.util.TreeMap<String, long[]> perContent = new java.util.TreeMap<>();
    // per link class: requests, true links, predicted, correct, same kind, revealable true links,
    // revealable-scope predicted, revealable correct, revealable same kind, same-session parent
    long[] rev = new long[4]; // predicted, correct, true, same kind
    for (Row r : rows) {
      String lc = r.isNullAt(0) ? "unlabelled" : r.getString(0);
      String cc = r.isNullAt(1) ? "unlabelled" : r.getString(1);
      long req = get(r, 2), links = get(r, 3), p = get(r, 4), c = get(r, 5), k = get(r, 6), ss = get(r, 7);
      boolean revealable = REVEALABLE.contains(cc);
      boolean inScope = revealable || ROOT_CLEAN.equals(cc);
      long[] a = perLink.computeIfAbsent(lc, x -> new long[10]);
      a[9] += ss;
      a[0] += req;
      a[1] += links;
      a[2] += p;
      a[3] += c;
      a[4] += k;
      if (revealable) a[5] += links;
      if (inScope) {
        a[6] += p;
        a[7] += c;
        a[8] += k;
        rev[0] += p;
        rev[1] += c;
        rev[3] += k;
      }
      if (revealable) rev[2] += links;
      long[] b = perContent.computeIfAbsent(cc, x -> new long[5]);
      b[0] += req;
      b[1] += p;
      b[2] += c;
      b[3] += links;
      b[4] += ss;
    }
    ObjectNode o = Json.object();
    ObjectNode cr = o.putObject("content_revealable");
    pr(cr, rev[1], rev[0], rev[2]);
    if (hasKinds) cr.put("same_kind", rev[3]);
    ObjectNode bc = o.putObject("by_content_class");
    for (var e : perContent.entrySet()) {
      ObjectNode x = bc.putObject(e.getKey());
      x.put("requests", e.getValue()[0]);
      x.put("true_links", e.getValue()[3]);
      x.put("predicted_links", e.getValue()[1]);
      x.put("correct_links", e.getValue()[2]);
      x.put("same_session_parent", e.getValue()[4]);
    }
    ObjectNode bl = o.putObject("by_link_class");
    for (var e : perLink.entrySet()) {
      long[] a = e.getValue();
      ObjectNode x = bl.putObject(e.getKey());
      x.put("requests", a[0]);
      ObjectNode all = x.putObject("all");
      pr(all, a[3], a[2], a[1]);
      if (hasKinds) all.put("same_kind", a[4]);
      all.put("same_session_parent", a[9]);
      ObjectNode rv = x.putObject("revealable");
      pr(rv, a[7], a[6], a[5]);
      if (hasKinds) rv.put("same_kind", a[8]);
    }
    return o;
  }

  private ObjectNode sessions(Dataset<Row> d, String sessionCol) {
    Dataset<Row> truthSets = d.groupBy("t_session")
        .agg(sha2(concat_ws(",", sort_array(collect_list(col(Canonical.REQUEST_ID)))), 256).as("members"));
    Dataset<Row> predSets = d.groupBy(col(sessionCol))
        .agg(sha2(concat_ws(",", sort_array(collect_list(col(Canonical.REQUEST_ID)))), 256).as("members"));
    long trueSessions = truthSets.count();
    long predSessions = predSets.count();
    long exact = truthSets.join(predSets, "members").count();
    ObjectNode s = Json.object();
    ObjectNode o = s.putObject("sessions");
    o.put("true", trueSessions);
    o.put("inferred", predSessions);
    o.put("exact", exact);
    o.put("exact_share", ratio(exact, trueSessions));
    return s;
  }

  private static void pr(ObjectNode o, long ok, long predicted, long truth) {
    o.put("correct", ok);
    o.put("predicted", predicted);
    o.put("true", truth);
    o.put("precision", ratio(ok, predicted));
    o.put("recall", ratio(ok, truth));
  }

  private static long get(Row r, int i) {
    return r.isNullAt(i) ? 0 : r.getLong(i);
  }

  /** A ratio, or NaN-free null (JSON null) when the denominator is 0. */
  private static Double ratio(long a, long b) {
    return b == 0 ? null : (double) a / b;
  }
}
