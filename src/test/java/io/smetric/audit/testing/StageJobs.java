package io.smetric.audit.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * What the stage-job tests check on every job (docs/architecture.md, "Stage jobs"): the names a
 * job wrote into its folder, the Spark job groups its jobs ran under, and that the JSON it returns
 * is the JSON it wrote.
 */
public final class StageJobs {
  private StageJobs() {}

  /** A job's return value and the job group of every Spark job it started ({@link #NO_GROUP} for none). */
  public record Recorded<T>(T value, List<String> groups) {
    /** The distinct groups. */
    public TreeSet<String> groupSet() {
      return new TreeSet<>(groups);
    }
  }

  public static final String NO_GROUP = "(no job group)";

  /**
   * Runs {@code work} and records the group of every Spark job started meanwhile, from any thread
   * (the tests of one JVM run one after another, so no other test's job is among them).
   */
  public static <T> Recorded<T> recordGroups(SparkSession spark, Supplier<T> work) {
    List<String> groups = Collections.synchronizedList(new ArrayList<>());
    SparkListener l = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart e) {
        String g = e.properties() == null ? null : e.properties().getProperty("spark.jobGroup.id");
        groups.add(g == null ? NO_GROUP : g);
      }
    };
    drain(spark);
    spark.sparkContext().addSparkListener(l);
    try {
      T value = work.get();
      drain(spark);
      return new Recorded<>(value, List.copyOf(groups));
    } finally {
      spark.sparkContext().removeSparkListener(l);
    }
  }

  /** Waits until the listeners have seen every event posted so far (the bus delivers them asynchronously). */
  private static void drain(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The names in a folder (not below it), sorted; the checksum files Hadoop's local file system
   * writes beside every file ({@code .NAME.crc}) are the file system's, not the job's, and left out.
   */
  public static TreeSet<String> names(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> !(n.startsWith(".") && n.endsWith(".crc")))
          .collect(TreeSet::new, TreeSet::add, TreeSet::addAll);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code returned} is what {@code file} holds (compared as parsed JSON, so number widths do not matter). */
  public static void assertWritten(JsonNode returned, Path file) {
    try {
      assertEquals(Json.MAPPER.readTree(file.toFile()), Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(returned)), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
