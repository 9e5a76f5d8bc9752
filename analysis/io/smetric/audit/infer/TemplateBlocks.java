package io.smetric.audit.infer;

import static org.apache.spark.sql.functions.col;

import it.unimi.dsi.fastutil.doubles.DoubleArrayFIFOQueue;
import it.unimi.dsi.fastutil.longs.Long2DoubleOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayFIFOQueue;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import it.unimi.dsi.fastutil.longs.LongSets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The template branch points of a trace: blocks after which at least {@code templateFanout}
 * distinct full blocks were <em>founded independently</em>. A shared system prompt ends at such a
 * block, because every session that uses it continues with its own content; a session's history
 * branches there only a few times.
 *
 * <p>What "independently" excludes: one request's own children. A request whose response spawns a
 * dozen sub-agents that inherit its whole prompt makes its last block branch a dozen times, like a
 * template; an earlier version counted every distinct successor and so took wide fan-outs for
 * templates (and turned those sub-agents into new root sessions). Here a successor founded by a
 * request that extends an earlier request R is <em>explained</em> by R as long as R's window is
 * open; the window closes when R's second generation appears (a request extending one that
 * extends R). Sub-agents arrive together, right after their spawner's response, before any of
 * them or the spawner goes on; sessions of a template keep arriving after earlier ones have moved
 * on. Requests whose prompt ends in the template's last block (short first prompts of a chat
 * template) all extend one another without adding a full block and without room for the first
 * one's response (a follow-up repeats its parent's prompt and response): such a request counts
 * as a child of the group's first member (the origin), and one that joins after the origin's
 * window closed founds a line of its own at that block (its partial last block is the branch).
 *
 * <p>The scan is one ordered pass (a {@link PrefixLinker} without templates, plus the windows),
 * with memory bounded by one window like pass 1; the count of distinct successors is a
 * distributed aggregate. Chaining makes "followed by" a tree, so the set holds about one id per
 * template and is shipped to the pass-1 task.
 */
public final class TemplateBlocks {
  private static final StructType FOUNDINGS = new StructType().add("prev", DataTypes.LongType, false)
      .add("id", DataTypes.LongType, false);

  private TemplateBlocks() {}

  /**
   * @param ordered one partition in (arrival, seq) order with columns seq, arrival_s,
   *     input_tokens, block_size, blocks, output_tokens (as pass 1 reads them)
   */
  public static LongOpenHashSet find(Dataset<Row> ordered, InferenceOptions o) {
    List<Row> rows = ordered
        .mapPartitions((MapPartitionsFunction<Row, Row>) it -> new Scan(it, o), Encoders.row(FOUNDINGS))
        .distinct()
        .groupBy("prev").count()
        .where(col("count").geq(o.templateFanout()))
        .select("prev")
        .collectAsList();
    LongOpenHashSet s = new LongOpenHashSet(rows.size());
    for (Row r : rows) s.add(r.getLong(0));
    return s;
  }

  /** Emits (block, successor) for every successor founded by a request that its parent does not explain. */
  static final class Scan implements Iterator<Row> {
    private final Iterator<Row> in;
    private final PrefixLinker linker;
    private final double window;
    /** Per request of the last window: the request it extends (-1: none). */
    private final Long2LongOpenHashMap parentOf = new Long2LongOpenHashMap();
    /** Per request: when its second generation appeared (its window closed). */
    private final Long2DoubleOpenHashMap closeT = new Long2DoubleOpenHashMap();
    private final LongArrayFIFOQueue order = new LongArrayFIFOQueue();
    private final DoubleArrayFIFOQueue orderT = new DoubleArrayFIFOQueue();
    private final List<Row> pending = new ArrayList<>();
    private int next;

    Scan(Iterator<Row> in, InferenceOptions o) {
      this.in = in;
      this.linker = new PrefixLinker(o, LongSets.EMPTY_SET);
      this.window = o.windowS();
      parentOf.defaultReturnValue(-1);
      closeT.defaultReturnValue(Double.POSITIVE_INFINITY);
    }

    @Override
    public boolean hasNext() {
      while (next >= pending.size()) {
        if (!in.hasNext()) return false;
        pending.clear();
        next = 0;
        Row r = in.next();
        accept(r.getLong(0), r.getDouble(1), r.getInt(2), r.getInt(5), r.getInt(3), SessionInference.longs(r.get(4)));
      }
      return true;
    }

    @Override
    public Row next() {
      if (!hasNext()) throw new java.util.NoSuchElementException();
      return pending.get(next++);
    }

    /**
     * A request r that extends p: r is a second generation of p's own parent, whose window closes.
     * r's founding (its first block nobody held) is explained by p while p's window is open. A
     * request that joins an equal-prefix group late founds a line of its own (below).
     */
    private void accept(long seq, double t, int inputTokens, int outputTokens, int blockSize, long[] blocks) {
      while (!order.isEmpty() && orderT.firstDouble() < t - window) {
        long old = order.dequeueLong();
        orderT.dequeueDouble();
        parentOf.remove(old);
        closeT.remove(old);
      }
      PrefixLinker.Link l = linker.link(seq, t, inputTokens, outputTokens, blockSize, blocks);
      long p = l.kind == PrefixLinker.EXTENDS ? l.parent : -1;
      // a request that adds no full block to its group's origin and has no room for the origin's
      // response (a follow-up repeats its parent's prompt and response) is not the origin's next
      // turn: it stands beside the group's members, as another child of the origin
      boolean member = p >= 0 && l.origin >= 0 && l.origin != seq && !l.follows;
      long up = member ? l.origin : p;
      if (up >= 0) {
        long grand = parentOf.get(up);
        if (grand >= 0 && t < closeT.get(grand)) closeT.put(grand, t);
      }
      int n = blocks == null ? 0 : Math.min(blocks.length, (int) ((inputTokens + (long) blockSize - 1) / blockSize));
      int full = Math.min(n, inputTokens / blockSize);
      if (member && !(t < closeT.get(l.origin))) {
        // arriving after the origin's window closed, it is a line of its own that starts at the
        // group's block: another session on the same prefix (the short first prompts of a chat
        // template) or a sub-agent spawned later with that prefix. Its partial block is the branch.
        if (full >= 1 && full < n) pending.add(RowFactory.create(blocks[full - 1], blocks[full]));
      }
      boolean explained = p >= 0 && t < closeT.get(p);
      int known = l.known;
      if (!explained && known >= 1 && known < full) pending.add(RowFactory.create(blocks[known - 1], blocks[known]));
      parentOf.put(seq, up);
      order.enqueue(seq);
      orderT.enqueue(t);
    }
  }
}
