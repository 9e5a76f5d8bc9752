package io.smetric.audit.characterize;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Field-by-field comparison of two characterization outputs (folders written by {@code analyze}):
 * characterization.json equal except {@code parameters.input} and {@code plan_counters} (they name
 * the input path and describe the plan), and every table equal as Spark reads it: same schema
 * (names, types, nullability) and the same rows in file order, doubles bit for bit. Also a CLI:
 * {@code OutputDiff DIR_A DIR_B} prints the differences (none: "identical").
 */
public final class OutputDiff {
  private OutputDiff() {}

  /** The differences, one line each (empty: identical). */
  public static List<String> diff(SparkSession spark, String a, String b) throws IOException {
    List<String> out = new ArrayList<>();
    JsonNode ja = Json.MAPPER.readTree(new File(a, "characterization.json"));
    JsonNode jb = Json.MAPPER.readTree(new File(b, "characterization.json"));
    json("", strip(ja), strip(jb), out);
    String[] ta = tables(a);
    String[] tb = tables(b);
    if (!Arrays.equals(ta, tb)) out.add("tables: " + Arrays.toString(ta) + " vs " + Arrays.toString(tb));
    for (String t : ta) {
      if (!Arrays.asList(tb).contains(t)) continue;
      var da = spark.read().parquet(new File(a, t).getPath());
      var db = spark.read().parquet(new File(b, t).getPath());
      if (!da.schema().equals(db.schema())) {
        out.add(t + ": schema " + da.schema().simpleString() + " vs " + db.schema().simpleString());
        continue;
      }
      List<Row> ra = da.collectAsList();
      List<Row> rb = db.collectAsList();
      if (ra.size() != rb.size()) out.add(t + ": " + ra.size() + " rows vs " + rb.size());
      for (int i = 0; i < Math.min(ra.size(), rb.size()); i++) {
        if (!ra.get(i).equals(rb.get(i))) {
          out.add(t + " row " + i + ": " + ra.get(i) + " vs " + rb.get(i));
          break;
        }
      }
    }
    return out;
  }

  static JsonNode strip(JsonNode j) {
    ObjectNode c = j.deepCopy();
    ((ObjectNode) c.get("parameters")).remove("input");
    c.remove("plan_counters");
    return c;
  }

  private static String[] tables(String dir) {
    String[] t = new File(dir).list((d, n) -> new File(d, n).isDirectory());
    Arrays.sort(t);
    return t;
  }

  /** Structural JSON comparison; numbers compared as written (so 0.1 vs 0.10000000000000002 differ). */
  static void json(String path, JsonNode x, JsonNode y, List<String> out) {
    if (x.isObject() && y.isObject()) {
      List<String> kx = new ArrayList<>();
      x.fieldNames().forEachRemaining(kx::add);
      List<String> ky = new ArrayList<>();
      y.fieldNames().forEachRemaining(ky::add);
      if (!kx.equals(ky)) out.add(path + ": keys " + kx + " vs " + ky);
      for (Iterator<Map.Entry<String, JsonNode>> it = x.fields(); it.hasNext(); ) {
        var e = it.next();
        if (y.has(e.getKey())) json(path + "/" + e.getKey(), e.getValue(), y.get(e.getKey()), out);
      }
    } else if (x.isArray() && y.isArray()) {
      if (x.size() != y.size()) out.add(path + ": " + x.size() + " items vs " + y.size());
      for (int i = 0; i < Math.min(x.size(), y.size()); i++) json(path + "/" + i, x.get(i), y.get(i), out);
    } else if (!x.toString().equals(y.toString())) {
      out.add(path + ": " + x + " vs " + y);
    }
  }

  public static void main(String[] args) throws IOException {
    SparkSession spark = SparkSession.builder().master("local[1]").appName("output-diff")
        .config("spark.ui.enabled", "false").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1").getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    int bad = 0;
    for (int i = 0; i + 1 < args.length; i += 2) {
      List<String> d = diff(spark, args[i], args[i + 1]);
      System.out.println(args[i] + " vs " + args[i + 1] + ": " + (d.isEmpty() ? "identical" : d.size() + " differences"));
      for (String s : d) System.out.println("  " + s);
      if (!d.isEmpty()) bad++;
    }
    spark.stop();
    System.exit(bad == 0 ? 0 : 1);
  }
}
