package io.smetric.audit.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Benchmark peer (test scope, not in the product): the characterization's headline numbers as
 * DuckDB SQL over the canonical Parquet, the way an analyst would write them: explode every block
 * occurrence, window functions per block and per (block, session), aggregate.
 *
 * <p>usage: {@code DuckDbCharacterize TRACE_PARQUET_DIR [K] [THRESHOLD_S]} prints one JSON line;
 * {@code DuckDbCharacterize --export TRACE_PARQUET_DIR OUT.jsonl} writes the trace as JSONL sorted
 * by (arrival_s, seq) for the Python peer.
 */
public final class DuckDbCharacterize {
  public static void main(String[] args) throws Exception {
    Class.forName("org.duckdb.DuckDBDriver");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
      st.execute("SET preserve_insertion_order = false");
      // Bounded like the Spark run's heap, spilling to disk beyond it (the machine is shared).
      st.execute("SET memory_limit = '" + System.getProperty("duckdb.memory", "6GB") + "'");
      st.execute("SET temp_directory = '" + System.getProperty("java.io.tmpdir") + "/duckdb-bench-spill'");
      if (args[0].equals("--export")) {
        st.execute("COPY (SELECT request_id, session_id, parent_id, turn, trigger, arrival_s, input_tokens, "
            + "output_tokens, block_size, blocks, seq FROM read_parquet('" + glob(args[1]) + "') "
            + "ORDER BY arrival_s, seq) TO '" + args[2] + "' (FORMAT JSON)");
        return;
      }
      String src = glob(args[0]);
      int k = args.length > 1 ? Integer.parseInt(args[1]) : 3;
      double thr = args.length > 2 ? Double.parseDouble(args[2]) : 100.0;
      Map<String, Object> out = new TreeMap<>();
      st.execute("CREATE TEMP TABLE req AS SELECT request_id, session_id, parent_id, turn, trigger, arrival_s, seq, "
          + "input_tokens, output_tokens, block_size, blocks, "
          + "CASE WHEN blocks IS NULL OR block_size IS NULL THEN 0 "
          + "ELSE least(len(blocks), CAST(ceil(input_tokens / block_size) AS INTEGER)) END AS used "
          + "FROM read_parquet('" + src + "')");
      st.execute("CREATE TEMP TABLE occ AS SELECT coalesce(session_id, chr(0) || 'req:' || request_id) AS s, "
          + "arrival_s AS a, seq, turn, parent_id, trigger, session_id, input_tokens AS n_in, block_size AS b, "
          + "unnest(list_slice(blocks, 1, used)) AS c, unnest(range(used)) AS i FROM req WHERE used > 0");
      st.execute("CREATE TEMP TABLE tmpl AS SELECT c FROM occ WHERE session_id IS NOT NULL AND turn = 0 "
          + "AND parent_id IS NULL AND trigger <> 'subagent' GROUP BY c HAVING count(DISTINCT s) >= " + k);
      // Hit = not the first occurrence of the chained block (prefix chaining makes this equal to
      // the contract's "largest k whose c[k-1] appeared earlier").
      st.execute("CREATE TEMP TABLE hits AS SELECT least(b, n_in - i * b) AS w, "
          + "CASE WHEN rn_s > 1 THEN 0 WHEN c IN (SELECT c FROM tmpl) THEN 1 ELSE 2 END AS src, "
          + "CAST(round((a - prev_a) * 1e6) AS BIGINT) AS us FROM ("
          + "SELECT c, a, b, n_in, i, lag(a) OVER (PARTITION BY c ORDER BY a, seq) AS prev_a, "
          + "row_number() OVER (PARTITION BY c, s ORDER BY a, seq) AS rn_s FROM occ) WHERE prev_a IS NOT NULL");
      double prefill = scalar(st, "SELECT sum(input_tokens) FROM req");
      double hit = scalar(st, "SELECT coalesce(sum(w), 0) FROM hits");
      out.put("reuse_token_weighted", hit / prefill);
      boolean hasSessions = scalar(st, "SELECT count(session_id) FROM req") > 0;
      if (hasSessions && hit > 0) {
        String[] names = {"share_intra_session", "share_system_prompt", "share_inter_session"};
        for (int s = 0; s < 3; s++) {
          out.put(names[s], scalar(st, "SELECT coalesce(sum(w), 0) FROM hits WHERE src = " + s) / hit);
        }
      }
      if (hit > 0) {
        out.put("interval_p90_s", scalar(st, "SELECT min(us) FROM (SELECT us, sum(w) OVER (ORDER BY us) AS cum "
            + "FROM (SELECT us, sum(w) AS w FROM hits GROUP BY us)) WHERE cum >= ceil(0.9 * " + (long) hit + ")") / 1e6);
        out.put("interval_share_within_threshold",
            scalar(st, "SELECT coalesce(sum(w), 0) FROM hits WHERE us <= " + Math.round(thr * 1e6)) / hit);
      }
      if (hasSessions) {
        out.put("top_25pct_session_token_share", scalar(st,
            "WITH t AS (SELECT sum(input_tokens + output_tokens) AS tok FROM req WHERE session_id IS NOT NULL "
                + "GROUP BY session_id) SELECT (SELECT sum(tok) FROM (SELECT tok FROM t ORDER BY tok DESC "
                + "LIMIT (SELECT CAST(ceil(0.25 * count(*)) AS BIGINT) FROM t))) / (SELECT sum(tok) FROM t)"));
      }
      StringBuilder sb = new StringBuilder("{");
      for (Map.Entry<String, Object> e : out.entrySet()) {
        if (sb.length() > 1) sb.append(", ");
        sb.append('"').append(e.getKey()).append("\": ").append(String.format(Locale.ROOT, "%.17g", (Double) e.getValue()));
      }
      System.out.println(sb.append('}'));
    }
  }

  private static String glob(String dir) {
    return dir.endsWith(".parquet") ? dir : dir.replaceAll("/$", "") + "/**/*.parquet";
  }

  private static double scalar(Statement st, String sql) throws Exception {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getDouble(1);
    }
  }
}
