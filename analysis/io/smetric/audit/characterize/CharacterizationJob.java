package io.smetric.audit.characterize;

import static io.smetric.audit.contract.AuditLayout.CHARACTERIZATION_FILE;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import java.io.IOException;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The characterization stage as one job (docs/architecture.md, "Stage jobs"): a canonical trace
 * ({@link TraceInput}) and {@link Characterization.Options} in; {@link #run} characterizes it and
 * writes the stage's output into the folder it is given (characterization.json and the tables named
 * in the contract's CharacterizationTables), the writing under the job group
 * {@link Characterization#JOB_GROUP}; an immutable result out. The folder is not committed: the
 * caller owns it. {@link #write} is the same output for a result computed without Spark (analyze's
 * in-process engine).
 */
public final class CharacterizationJob {
  /**
   * What the stage wrote.
   *
   * @param json characterization.json
   * @param tables how many tables were written beside it
   */
  public record Result(JsonNode json, int tables) {
    /** One line for the console: requests, the headline reuse, what was written. */
    public String line() {
      return String.format(Locale.ROOT, "analyzed %d requests: ideal reuse (token-weighted) %s; written %d tables + %s",
          json.path("trace").path("requests").asLong(), json.path("reuse").path("token_weighted").path("value").asText("n/a"),
          tables, CHARACTERIZATION_FILE);
    }
  }

  private final SparkSession spark;
  private final TraceInput input;
  private final Characterization.Options options;
  private Characterization.Engine engine = Characterization.Engine.AUTO;

  public CharacterizationJob(SparkSession spark, TraceInput input, Characterization.Options options) {
    this.spark = spark;
    this.input = input;
    this.options = options;
  }

  public CharacterizationJob engine(Characterization.Engine e) {
    this.engine = e;
    return this;
  }

  /** Characterizes the trace and writes the stage's output into {@code out} (not committed). */
  public Result run(OutputDir out) {
    try (Characterization.Result r = new Characterization(spark, input, options).engine(engine).execute()) {
      spark.sparkContext().setJobGroup(Characterization.JOB_GROUP, "characterization: writing " + out.targetPath(), false);
      try {
        return write(r, out);
      } finally {
        spark.sparkContext().clearJobGroup();
      }
    }
  }

  /**
   * Whether the in-process engine is tried first whatever the trace's size: asked for ({@code local})
   * or a local Spark master, where Spark would only add its start-up (an {@code auto} engine on a
   * cluster master tries it only for a small trace, {@link Characterization#LOCAL_MAX_BLOCK_IDS}).
   */
  public static boolean localFirst(Characterization.Engine e, String master) {
    return e == Characterization.Engine.LOCAL || Characterization.localMaster(master);
  }

  /**
   * What {@link #withoutSpark} did: the stage's output written (and its folder committed), or, when
   * Spark must do it, null and the engine the Spark job is to run with.
   */
  public record InProcess(Result written, Characterization.Engine sparkEngine) {}

  /**
   * analyze's path without Spark: reads the trace's Parquet footers ({@code dir}), and when {@link
   * #localFirst} or the trace is small, characterizes it in this process and writes the output into
   * the folder {@code open} gives on the file system of the output path {@code out}, committing it. Files not in (arrival_s,
   * seq) order need Spark to sort them: then nothing is written and the Spark job is to run the local
   * engine on the sorted input. A large trace on a cluster master is left to Spark with {@code e}.
   */
  public static InProcess withoutSpark(String dir, Characterization.Options options, Characterization.Engine e, String master,
      String out, Function<FileSystem, OutputDir> open) throws IOException {
    Configuration conf = new Configuration();
    try (OutputDir folder = open.apply(TraceFiles.fileSystem(out, conf))) {
      Phases.mark("start");
      TraceFiles files = TraceFiles.load(dir, conf);
      Phases.mark("footers");
      if (!localFirst(e, master) && files.blockIds() > Characterization.LOCAL_MAX_BLOCK_IDS) return new InProcess(null, e);
      Characterization.Result r;
      try {
        r = Characterization.inProcess(files, options);
      } catch (Characterization.UnsortedInput unsorted) {
        return new InProcess(null, Characterization.Engine.LOCAL);
      }
      Result written = write(r, folder);
      folder.commit();
      Phases.mark("tables written");
      return new InProcess(written, null);
    }
  }

  /** Writes the tables and characterization.json of a computed result into {@code out} (not committed). */
  public static Result write(Characterization.Result r, OutputDir out) {
    try {
      for (Map.Entry<String, Table> t : r.tables().entrySet()) {
        t.getValue().write(out.child(t.getKey()), out.fs().getConf());
      }
      out.writeString(CHARACTERIZATION_FILE, Json.MAPPER.writeValueAsString(r.json()) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Result(r.json(), r.tables().size());
  }
}
