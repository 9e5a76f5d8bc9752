package io.smetric.audit.replay;

import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import io.smetric.audit.contract.AuditLayout;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.replay.policy.Policies;
import io.smetric.audit.replay.sim.SimOutcome;
import io.smetric.audit.replay.sim.Simulator;
import io.smetric.audit.replay.trace.ReplayTrace;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code replay --record-trace}: one simulation written back as a canonical trace whose recorded
 * routing (trace-model v1.3) the simulation filled in: the instance it routed each request to
 * ({@link #instanceName}), TTFT and end-to-end time from the moment the request was sent, and the
 * outcome ({@code aborted} when the response was not complete within the agent timeout, else
 * {@code completed}). Arrivals are the send times (under the closed loop a follow-up is sent when
 * its predecessor's response is complete, which may be later than the trace said), so that an
 * open-loop replay of the recorded trace sends every request when the recorded one was sent, and
 * {@code seq} is the order in which the simulated clients sent them (0, 1, ...), so that requests
 * sent at the same instant are replayed in the order the simulation sent them. Everything else
 * (ids, sessions, tokens, block ids, provider accounting) is copied from the input.
 */
public final class RecordTrace {
  private RecordTrace() {}

  /** The name a simulated instance gets in the recorded trace. */
  public static String instanceName(int i) {
    return "instance-" + i;
  }

  /** What was recorded: the run, and the counts written. */
  public record Result(String policy, double globalRatio, double rateScale, boolean closedLoop, int instances,
      long requests, long aborted) {}

  /** Runs the one simulation of the recording. */
  public static SimOutcome simulate(ReplayTrace t, ReplaySettings s, String policy) {
    return new Simulator(t, s, Policies.byName(policy).create(s, t)).run();
  }

  /**
   * Writes {@code DIR/trace/} (the canonical Parquet dataset, in (arrival_s, seq) order, one file)
   * and {@code DIR/recording.json} into {@code dir} (not committed).
   */
  public static Result write(SparkSession spark, String canonicalDir, SimOutcome o, String policy, OutputDir dir) {
    ReplayTrace t = o.trace;
    StructType schema = new StructType()
        .add(Canonical.REQUEST_ID, DataTypes.StringType, false)
        .add("_sent", DataTypes.DoubleType, false)
        .add("_rank", DataTypes.LongType, false)
        .add(Canonical.SERVED_INSTANCE, DataTypes.StringType, true)
        .add(Canonical.TTFT_S, DataTypes.DoubleType, true)
        .add(Canonical.E2E_S, DataTypes.DoubleType, true)
        .add(Canonical.OUTCOME, DataTypes.StringType, true);
    List<Row> rows = new ArrayList<>(t.n);
    long aborted = 0;
    double timeout = o.settings.agentTimeoutS;
    for (int r = 0; r < t.n; r++) {
      double sent = o.arrival[r];
      double ttft = o.firstToken[r] - sent;
      double e2e = o.finish[r] - sent;
      boolean late = o.timedOut(r);
      if (late) aborted++;
      // an aborted request ends for its client at the timeout; a first token after it was never seen
      Double ttftOut = Double.isFinite(ttft) && (!late || ttft <= timeout) ? ttft : null;
      Double e2eOut = late ? (Double.isFinite(timeout) ? timeout : null) : Double.isFinite(e2e) ? e2e : null;
      if (ttftOut != null && e2eOut != null && ttftOut > e2eOut) ttftOut = e2eOut;
      rows.add(RowFactory.create(t.requestIds[r], sent, (long) o.sendRank[r], instanceName(o.instance[r]), ttftOut, e2eOut,
          late ? Canonical.OUTCOME_ABORTED : Canonical.OUTCOME_COMPLETED));
    }
    Dataset<Row> rec = spark.createDataFrame(rows, schema);
    Dataset<Row> in = Canonical.withOptionalColumns(spark.read().parquet(canonicalDir));
    for (String c : Canonical.RECORDED_COLUMNS) in = in.drop(c);
    // seq = the order of sending: requests sent at the same instant (a closed loop's follow-ups
    // released by one step's finishes) reach the engine in the simulator's event order, and a
    // replay at the recorded send times breaks ties by seq (trace-model: ties by input order)
    Dataset<Row> joined = in.join(rec, Canonical.REQUEST_ID).withColumn(Canonical.ARRIVAL_S, functions.col("_sent"))
        .withColumn(Canonical.SEQ, functions.col("_rank"));
    Column[] cols = new Column[Canonical.SCHEMA.size()];
    for (int i = 0; i < cols.length; i++) {
      String f = Canonical.SCHEMA.fields()[i].name();
      cols[i] = functions.col(f); // already of the schema's types (a cast would trip on the block list's nullability)
    }
    spark.sparkContext().setJobGroup("smetric-replay-record", "replay: record the simulated trace", false);
    try {
      joined.select(cols).orderBy(functions.col(Canonical.ARRIVAL_S), functions.col(Canonical.SEQ)).coalesce(1)
          .write().mode(SaveMode.ErrorIfExists).parquet(dir.child(AuditLayout.TRACE_DIR));
    } finally {
      spark.sparkContext().clearJobGroup();
    }
    Result res = new Result(policy, o.settings.globalRatio, o.settings.rateScale, o.settings.followUpsWaitForPrevious,
        o.settings.instances, t.n, aborted);
    var j = Json.object();
    j.put("trace_model", "1.3");
    j.put("source", canonicalDir);
    j.put("policy", policy);
    j.put("global_ratio", res.globalRatio());
    j.put("rate_scale", res.rateScale());
    j.put("closed_loop", res.closedLoop());
    j.put("instances", res.instances());
    j.put("requests", res.requests());
    j.put("aborted", aborted);
    j.put("seed", o.settings.seed);
    j.put("served_instance", "instance-<i>, i = the simulated instance 0.." + (res.instances() - 1));
    j.put("times", "arrival_s = when the simulated client sent the request; ttft_s and e2e_s from then");
    j.put("seq", "the order in which the simulated clients sent the requests, 0 first (ties in arrival_s in the simulation's order)");
    j.put("profile", o.settings.profile.name);
    j.put("agent_timeout_s", o.settings.agentTimeoutS);
    j.put("rate_scaling", o.settings.rateScaling.name().toLowerCase(java.util.Locale.ROOT));
    try {
      dir.writeString(AuditLayout.RECORDING_FILE, Json.MAPPER.writeValueAsString(j));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    return res;
  }
}
