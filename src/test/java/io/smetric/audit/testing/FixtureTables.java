package io.smetric.audit.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Small hand-made Parquet tables for test fixtures, written by Spark once per JVM and copied on
 * later requests. A fixture folder (e.g. report/AuditFixture) holds about ten tiny tables and is
 * written by dozens of tests; each Spark write is a job with a fixed cost of a second or more, a
 * file copy is a few milliseconds. The copy is byte for byte the folder Spark wrote for the same
 * schema and rows, so readers cannot tell the difference. Templates live in one temporary folder
 * deleted when the JVM exits.
 */
public final class FixtureTables {
  private static final Map<String, Path> TEMPLATES = new HashMap<>();
  private static Path root;

  private FixtureTables() {}

  /** Writes {@code rows} as one Parquet file under {@code dir} (like {@code coalesce(1).write().parquet}). */
  public static synchronized void save(SparkSession spark, StructType schema, List<Row> rows, Path dir) {
    String key = key(schema, rows);
    Path template = TEMPLATES.get(key);
    try {
      if (template == null) {
        template = root().resolve("t" + TEMPLATES.size());
        spark.createDataFrame(rows, schema).coalesce(1).write().parquet(template.toString());
        TEMPLATES.put(key, template);
      }
      copyTree(template, dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Schema plus every value with its class, so 1 (int) and 1 (long) or null and "null" differ. */
  static String key(StructType schema, List<Row> rows) {
    StringBuilder sb = new StringBuilder(schema.json());
    for (Row r : rows) {
      sb.append('\n');
      for (int i = 0; i < r.length(); i++) {
        Object v = r.get(i);
        sb.append(v == null ? "<null>" : v.getClass().getName() + ':' + v).append('\u0001');
      }
    }
    return sb.toString();
  }

  private static Path root() throws IOException {
    if (root == null) {
      root = Files.createTempDirectory("smetric-fixture-tables");
      Path r = root;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(r)));
    }
    return root;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) Files.createDirectories(t);
        else Files.copy(p, t, StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
  }

  static void deleteQuietly(Path p) {
    try (Stream<Path> s = Files.walk(p)) {
      for (Path x : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(x);
    } catch (IOException ignored) {
      // a leftover temporary folder is harmless
    }
  }
}
