package io.smetric.audit.infer;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.posexplode;

import io.smetric.audit.model.Canonical;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The template branch points of a trace: chained block ids followed by at least
 * {@code templateFanout} distinct <em>full</em> blocks over the whole trace. A shared system
 * prompt (or the one block every Mooncake prompt starts with) ends at such a block, because every
 * session's own content follows it; a session's own history branches only where it forked or
 * compacted, a handful of times. Chaining makes the successor relation a tree, so only the last
 * block of each template branches: the set holds about one id per template, small enough to ship
 * to the pass-1 task. Partial last blocks are left out: every prompt ends in a unique one, which
 * says nothing about sharing. Computed globally (a distributed aggregate over (block, next block)
 * pairs) so the first sessions of each template are treated like the later ones.
 */
public final class TemplateBlocks {
  private TemplateBlocks() {}

  public static LongOpenHashSet find(Dataset<Row> canonical, int templateFanout) {
    List<Row> rows = canonical
        .select(col(Canonical.BLOCKS), floor(col(Canonical.INPUT_TOKENS).divide(col(Canonical.BLOCK_SIZE))).as("full"),
            posexplode(col(Canonical.BLOCKS)).as(new String[] {"pos", "id"}))
        .where(col("pos").geq(1).and(col("pos").lt(col("full"))))
        // element_at is 1-based: element_at(blocks, pos) is blocks[pos - 1], the predecessor
        .select(element_at(col(Canonical.BLOCKS), col("pos")).as("prev"), col("id"))
        .distinct()
        .groupBy("prev").count()
        .where(col("count").geq(templateFanout))
        .select("prev")
        .collectAsList();
    LongOpenHashSet s = new LongOpenHashSet(rows.size());
    for (Row r : rows) s.add(r.getLong(0));
    return s;
  }
}
