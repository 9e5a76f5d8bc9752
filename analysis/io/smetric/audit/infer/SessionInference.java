package io.smetric.audit.infer;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Session inference as a Spark job (Iceberg-action style: options in, {@link #execute} under a
 * named job group, an immutable result). The three passes of the rule ({@link PrefixLinker},
 * {@link ContinuationChooser}, {@link SessionBuilder}) are sequential by nature: each runs as one
 * task over one ordered partition ({@code repartition(1)} + {@code sortWithinPartitions}, which
 * spills to disk), so no pass ever collects the trace to the driver and each holds only one
 * window of state. Only the sort, the joins that turn seqs back into request ids, and the final
 * write are distributed.
 *
 * <p>The result's {@link Result#trace()} has the canonical schema with {@code session_id} (the
 * request id of the session's first request), {@code parent_id}, {@code turn} filled and
 * {@code trigger} = unknown; {@link Result#links()} has one row per request with the rule's
 * evidence and the naive baseline's choice, for auditing and for {@link InferenceAccuracy}.
 */
public final class SessionInference {
  public static final String JOB_GROUP = "smetric-audit-infer-sessions";

  // link columns (pass outputs and the links dataset)
  public static final String L_PARENT_SEQ = "parent_seq";
  public static final String L_KIND = "link_kind";
  public static final String L_SHARED = "shared_blocks";
  public static final String L_TEMPLATE = "template_blocks";
  public static final String L_NAIVE_PARENT_SEQ = "naive_parent_seq";
  public static final String L_CONT_CHILD = "cont_child_seq";
  static final String L_ALT = "alt_parent_seq";
  static final String L_ORIGIN = "group_origin_seq";
  static final String L_ADOPTED = "adopted_child_seq";
  public static final String L_ROOT_SEQ = "root_seq";
  public static final String L_ASSIGN = "assignment";
  public static final String L_NAIVE_ROOT_SEQ = "naive_root_seq";
  public static final String NAIVE_PARENT_ID = "naive_parent_id";
  public static final String NAIVE_SESSION_ID = "naive_session_id";
  public static final String LINK_KIND = "link";

  /** Names of {@link SessionBuilder} assignment kinds, as written in the links dataset. */
  public static final String KIND_ROOT = "root";
  public static final String KIND_CONTINUATION = "continuation";
  public static final String KIND_FORK_BRANCH = "fork-branch";
  public static final String KIND_FORK_EXTENDS = "fork-extends";

  static final StructType PASS1 = new StructType(new StructField[] {
      f(Canonical.SEQ, DataTypes.LongType, false), f(Canonical.ARRIVAL_S, DataTypes.DoubleType, false),
      f(L_PARENT_SEQ, DataTypes.LongType, false), f(L_KIND, DataTypes.ByteType, false),
      f(L_SHARED, DataTypes.IntegerType, false), f(L_TEMPLATE, DataTypes.IntegerType, false),
      f(L_NAIVE_PARENT_SEQ, DataTypes.LongType, false), f(L_ALT, DataTypes.LongType, false),
      f(L_ORIGIN, DataTypes.LongType, false)});
  static final StructType PASS2 = PASS1.add(f(L_CONT_CHILD, DataTypes.LongType, false))
      .add(f(L_ADOPTED, DataTypes.LongType, false));
  static final StructType PASS3 = new StructType(new StructField[] {
      f(Canonical.SEQ, DataTypes.LongType, false), f(L_PARENT_SEQ, DataTypes.LongType, false),
      f(L_ROOT_SEQ, DataTypes.LongType, false), f(Canonical.TURN, DataTypes.IntegerType, false),
      f(L_ASSIGN, DataTypes.ByteType, false), f(L_SHARED, DataTypes.IntegerType, false),
      f(L_TEMPLATE, DataTypes.IntegerType, false), f(L_NAIVE_PARENT_SEQ, DataTypes.LongType, false),
      f(L_NAIVE_ROOT_SEQ, DataTypes.LongType, false)});

  /**
   * What the run found. {@code maxIndexEntries} is the largest pass-1 index reached (block ids of
   * one window), the figure that bounds memory.
   */
  public record Result(Dataset<Row> trace, Dataset<Row> links, String method, InferenceOptions options,
      long requests, long sessions, long roots, long continuations, long forks, long forksByBranch,
      long forksByExtension, long templateOnlyRoots, long templateBranchPoints, long maxIndexEntries) {}

  private final SparkSession spark;
  private final InferenceOptions options;

  public SessionInference(SparkSession spark, InferenceOptions options) {
    this.spark = spark;
    this.options = options;
  }

  /**
   * Infers sessions for a canonical trace. The returned datasets are persisted (memory and
   * disk); callers that are done with them may unpersist.
   *
   * @throws BadInputException when the trace has no block ids or mixes block sizes
   */
  public Result execute(Dataset<Row> canonical) {
    spark.sparkContext().setJobGroup(JOB_GROUP, "session inference (" + InferenceOptions.METHOD + ")", false);
    try {
      return run(canonical);
    } finally {
      spark.sparkContext().clearJobGroup();
    }
  }

  private Result run(Dataset<Row> canonical) {
    checkInput(canonical);
    InferenceOptions o = options;
    Dataset<Row> ordered = canonical
        .select(col(Canonical.SEQ), col(Canonical.ARRIVAL_S), col(Canonical.INPUT_TOKENS), col(Canonical.BLOCK_SIZE),
            col(Canonical.BLOCKS), col(Canonical.OUTPUT_TOKENS))
        .repartition(1).sortWithinPartitions(col(Canonical.ARRIVAL_S), col(Canonical.SEQ))
        .persist(StorageLevel.MEMORY_AND_DISK());
    LongOpenHashSet templates = TemplateBlocks.find(ordered, o);
    CollectionAccumulator<Long> maxEntries = spark.sparkContext().collectionAccumulator("infer index entries");
    Dataset<Row> pass1 = ordered.mapPartitions(
        (MapPartitionsFunction<Row, Row>) it -> new Pass1(it, o, templates, maxEntries), Encoders.row(PASS1));
    Dataset<Row> pass2 = pass1.repartition(1)
        .sortWithinPartitions(col(Canonical.ARRIVAL_S).desc(), col(Canonical.SEQ).desc())
        .mapPartitions((MapPartitionsFunction<Row, Row>) Pass2::new, Encoders.row(PASS2));
    Dataset<Row> pass3 = pass2.repartition(1)
        .sortWithinPartitions(col(Canonical.ARRIVAL_S), col(Canonical.SEQ))
        .mapPartitions((MapPartitionsFunction<Row, Row>) it -> new Pass3(it, o), Encoders.row(PASS3))
        .persist(StorageLevel.MEMORY_AND_DISK());

    Dataset<Row> ids = canonical.select(col(Canonical.SEQ), col(Canonical.REQUEST_ID));
    Dataset<Row> named = pass3
        .join(ids.withColumnRenamed(Canonical.SEQ, "_ps").withColumnRenamed(Canonical.REQUEST_ID, Canonical.PARENT_ID),
            col(L_PARENT_SEQ).equalTo(col("_ps")), "left")
        .join(ids.withColumnRenamed(Canonical.SEQ, "_rs").withColumnRenamed(Canonical.REQUEST_ID, Canonical.SESSION_ID),
            col(L_ROOT_SEQ).equalTo(col("_rs")), "left")
        .join(ids.withColumnRenamed(Canonical.SEQ, "_ns").withColumnRenamed(Canonical.REQUEST_ID, NAIVE_PARENT_ID),
            col(L_NAIVE_PARENT_SEQ).equalTo(col("_ns")), "left")
        .join(ids.withColumnRenamed(Canonical.SEQ, "_nr").withColumnRenamed(Canonical.REQUEST_ID, NAIVE_SESSION_ID),
            col(L_NAIVE_ROOT_SEQ).equalTo(col("_nr")), "left")
        .drop("_ps", "_rs", "_ns", "_nr");

    Dataset<Row> links = named
        .join(ids, Canonical.SEQ)
        .select(col(Canonical.REQUEST_ID), col(Canonical.SEQ), col(Canonical.SESSION_ID), col(Canonical.PARENT_ID),
            col(Canonical.TURN),
            when(col(L_ASSIGN).equalTo(SessionBuilder.CONTINUATION), lit(KIND_CONTINUATION))
                .when(col(L_ASSIGN).equalTo(SessionBuilder.FORK_BRANCH), lit(KIND_FORK_BRANCH))
                .when(col(L_ASSIGN).equalTo(SessionBuilder.FORK_EXTENDS), lit(KIND_FORK_EXTENDS))
                .otherwise(lit(KIND_ROOT)).as(LINK_KIND),
            col(L_SHARED), col(L_TEMPLATE), col(NAIVE_PARENT_ID), col(NAIVE_SESSION_ID))
        .persist(StorageLevel.MEMORY_AND_DISK());

    List<org.apache.spark.sql.Column> cols = new ArrayList<>();
    for (String c : Canonical.SCHEMA.fieldNames()) {
      switch (c) {
        case Canonical.SESSION_ID, Canonical.PARENT_ID -> cols.add(col("l." + c).as(c));
        // never null here, but the contract's column is nullable (when() makes it so)
        case Canonical.TURN -> cols.add(when(col("l." + c).isNotNull(), col("l." + c)).as(c));
        case Canonical.TRIGGER -> cols.add(lit(Canonical.TRIGGER_UNKNOWN).as(c));
        default -> cols.add(col("t." + c).as(c));
      }
    }
    Dataset<Row> trace = canonical.alias("t")
        .join(links.select(Canonical.SEQ, Canonical.SESSION_ID, Canonical.PARENT_ID, Canonical.TURN).alias("l"),
            col("t." + Canonical.SEQ).equalTo(col("l." + Canonical.SEQ)))
        .select(cols.toArray(new org.apache.spark.sql.Column[0]))
        .orderBy(col(Canonical.ARRIVAL_S), col(Canonical.SEQ));

    Row s = links.agg(
        org.apache.spark.sql.functions.count(lit(1)),
        org.apache.spark.sql.functions.sum(when(col(LINK_KIND).equalTo(KIND_ROOT), 1).otherwise(0)),
        org.apache.spark.sql.functions.sum(when(col(LINK_KIND).equalTo(KIND_CONTINUATION), 1).otherwise(0)),
        org.apache.spark.sql.functions.sum(when(col(LINK_KIND).equalTo(KIND_FORK_BRANCH), 1).otherwise(0)),
        org.apache.spark.sql.functions.sum(when(col(LINK_KIND).equalTo(KIND_FORK_EXTENDS), 1).otherwise(0)),
        org.apache.spark.sql.functions.sum(when(col(LINK_KIND).equalTo(KIND_ROOT)
            .and(col(L_SHARED).gt(0)).and(col(L_SHARED).leq(col(L_TEMPLATE))), 1).otherwise(0)))
        .first();
    long requests = s.getLong(0);
    long roots = s.isNullAt(1) ? 0 : s.getLong(1);
    long cont = s.isNullAt(2) ? 0 : s.getLong(2);
    long fb = s.isNullAt(3) ? 0 : s.getLong(3);
    long fe = s.isNullAt(4) ? 0 : s.getLong(4);
    long tmpl = s.isNullAt(5) ? 0 : s.getLong(5);
    ordered.unpersist();
    long maxIdx = 0;
    for (Long v : maxEntries.value()) maxIdx = Math.max(maxIdx, v);
    return new Result(trace, links, InferenceOptions.METHOD, o, requests, roots + fb + fe, roots, cont, fb + fe, fb, fe,
        tmpl, templates.size(), maxIdx);
  }

  private void checkInput(Dataset<Row> canonical) {
    Row r = canonical.agg(
        org.apache.spark.sql.functions.countDistinct(col(Canonical.BLOCK_SIZE)),
        org.apache.spark.sql.functions.sum(when(col(Canonical.BLOCKS).isNull().or(col(Canonical.BLOCK_SIZE).isNull()), 1).otherwise(0)),
        org.apache.spark.sql.functions.min(col(Canonical.BLOCK_SIZE)),
        org.apache.spark.sql.functions.max(col(Canonical.BLOCK_SIZE)),
        org.apache.spark.sql.functions.count(lit(1)))
        .first();
    long noBlocks = r.isNullAt(1) ? 0 : r.getLong(1);
    if (r.getLong(4) == 0) throw new BadInputException("trace", "the trace has no requests");
    if (noBlocks > 0) {
      throw new BadInputException("the canonical trace", -1, Canonical.BLOCKS,
          noBlocks + " of " + r.getLong(4) + " requests have no block ids; sessions can only be inferred from hashed"
              + " prompt content (a trace of token counts only, such as Azure's CSV, has none)");
    }
    if (r.getLong(0) > 1) {
      throw new BadInputException("the canonical trace", -1, Canonical.BLOCK_SIZE,
          "block sizes differ (" + r.get(2) + " to " + r.get(3) + "); prefixes of different block sizes cannot be compared");
    }
  }

  private static StructField f(String name, org.apache.spark.sql.types.DataType t, boolean nullable) {
    return new StructField(name, t, nullable, Metadata.empty());
  }

  static long[] longs(Object v) {
    if (v == null) return null;
    if (v instanceof long[] a) return a;
    scala.collection.Seq<?> s = (scala.collection.Seq<?>) v;
    long[] out = new long[s.size()];
    scala.collection.Iterator<?> it = s.iterator();
    for (int i = 0; it.hasNext(); i++) out[i] = (Long) it.next();
    return out;
  }

  /** Pass 1 as a lazy iterator (input: seq, arrival_s, input_tokens, block_size, blocks). */
  private static final class Pass1 implements Iterator<Row> {
    private final Iterator<Row> in;
    private final PrefixLinker linker;
    private final CollectionAccumulator<Long> maxEntries;
    private boolean reported;

    Pass1(Iterator<Row> in, InferenceOptions o, LongOpenHashSet templates, CollectionAccumulator<Long> maxEntries) {
      this.in = in;
      this.linker = new PrefixLinker(o, templates);
      this.maxEntries = maxEntries;
    }

    @Override
    public boolean hasNext() {
      boolean more = in.hasNext();
      if (!more && !reported) {
        reported = true;
        maxEntries.add(linker.maxEntries());
      }
      return more;
    }

    @Override
    public Row next() {
      Row r = in.next();
      long seq = r.getLong(0);
      double t = r.getDouble(1);
      PrefixLinker.Link l = linker.link(seq, t, r.getInt(2), r.getInt(5), r.getInt(3), longs(r.get(4)));
      return RowFactory.create(seq, t, l.parent, l.kind, l.shared, l.template, l.naiveParent, l.alt, l.origin);
    }
  }

  private static final class Pass2 implements Iterator<Row> {
    private final Iterator<Row> in;
    private final ContinuationChooser chooser = new ContinuationChooser();

    Pass2(Iterator<Row> in) {
      this.in = in;
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public Row next() {
      Row r = in.next();
      long cont = chooser.accept(r.getLong(0), r.getDouble(1), r.getLong(2), r.getByte(3), r.getLong(7), r.getLong(8));
      return RowFactory.create(r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6), r.get(7), r.get(8),
          cont, chooser.adoptedChild());
    }
  }

  private static final class Pass3 implements Iterator<Row> {
    private final Iterator<Row> in;
    private final SessionBuilder builder;

    Pass3(Iterator<Row> in, InferenceOptions o) {
      this.in = in;
      this.builder = new SessionBuilder(o);
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public Row next() {
      Row r = in.next();
      SessionBuilder.Assignment a = builder.accept(r.getLong(0), r.getDouble(1), r.getLong(2), r.getByte(3),
          r.getLong(9), r.getLong(10), r.getLong(7), r.getLong(6));
      return RowFactory.create(r.getLong(0), a.parent, a.root, a.turn, a.kind, r.get(4), r.get(5), r.get(6), a.naiveRoot);
    }
  }
}
