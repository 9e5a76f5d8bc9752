package io.smetric.audit.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.BuildInfo;
import io.smetric.audit.common.Json;
import io.smetric.audit.common.SerializableConf;
import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import java.io.InputStream;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The audit's provenance.json: the tool version, the command line, the input files with their
 * sizes and SHA-256 checksums, and the parameters the audit ran with.
 */
final class AuditProvenance {
  private AuditProvenance() {}

  /** Size and SHA-256 of every input file, computed by the executors (the files may be large). */
  static ArrayNode checksums(SparkSession spark, List<Path> files) {
    SerializableConf sc = new SerializableConf(spark.sparkContext().hadoopConfiguration());
    List<String> names = files.stream().map(Path::toString).toList();
    List<String[]> sums = JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(names, Math.max(1, names.size()))
        .map(f -> sha256(f, sc.get()))
        .collect();
    ArrayNode a = Json.MAPPER.createArrayNode();
    for (String[] s : sums) a.addObject().put("path", s[0]).put("bytes", Long.parseLong(s[1])).put("sha256", s[2]);
    return a;
  }

  private static String[] sha256(String file, Configuration conf) throws Exception {
    Path p = new Path(file);
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    long n = 0;
    try (InputStream in = p.getFileSystem(conf).open(p, 1 << 16)) {
      byte[] buf = new byte[1 << 16];
      for (int k; (k = in.read(buf)) > 0; n += k) md.update(buf, 0, k);
    }
    return new String[] {file, Long.toString(n), HexFormat.of().formatHex(md.digest())};
  }

  /** provenance.json of the audit {@code a} ran (its options, and the instances and recorded routing it found). */
  static ObjectNode json(AuditCommand a, String started, ArrayNode fileNodes, boolean logs, String sessionsMode) {
    ObjectNode p = Json.MAPPER.createObjectNode();
    p.put("tool_version", BuildInfo.version());
    p.put("command_line", String.join(" ", a.spec.commandLine().getParseResult().originalArgs()));
    p.put("started_at", started);
    p.put("finished_at", Instant.now().toString());
    p.put("input_kind", logs ? "logs" : "trace");
    p.put("sessions", sessionsMode);
    p.set("inputs", fileNodes);
    ObjectNode par = p.putObject("parameters");
    par.put("instances", a.instances);
    if (a.recorded != null && a.instancesOption == null) par.put("instances_from", "recorded served_instance");
    if (a.recorded != null && a.replay.currentRouter == null && !a.noReplay) par.put("judged_router_default", Policies.AS_RECORDED.cliName());
    par.put("format", a.format);
    if (a.blockSize != null) par.put("block_size", a.blockSize);
    if (logs) par.put("tokenizer", a.hashing.tokenizer).put("log_format", a.hashing.logFormat);
    if (logs && a.hashing.messagesPath != null) par.put("messages_path", a.hashing.messagesPath);
    if (logs && a.hashing.arrivalsChanged()) {
      par.put("session_gap_s", a.hashing.sessionGap).put("think_time_s", a.hashing.thinkTime)
          .put("timestamp_unit", a.hashing.timestampUnit).put("session_cache", a.hashing.sessionCache);
    }
    par.put("infer_sessions", a.inferSessions);
    par.put("template_min_sessions", a.characterization.templateMinSessions);
    par.put("interval_threshold_s", a.characterization.intervalThreshold);
    par.put("replay", !a.noReplay);
    ReplaySettings.RateScaling rateScalingMode = a.replay.rateScalingMode();
    if (rateScalingMode != null) par.put("rate_scaling", rateScalingMode.name().toLowerCase(java.util.Locale.ROOT));
    if (a.replay.closedLoop) par.put("closed_loop", true);
    if (a.replay.openLoop) par.put("open_loop", true);
    if (!a.noReplay) par.put("rate_grid", a.replay.rateGridMode().name().toLowerCase(java.util.Locale.ROOT));
    if (a.replay.currentRouter != null) par.put("current_router", a.replay.currentRouter);
    if (!a.noReplay) par.put("bootstrap", a.replay.replicates(true));
    if (!a.noReplay && a.replay.noConditions) par.put("no_conditions", true);
    ReplaySettings.GlobalLoad globalLoadMode = a.replay.globalLoadMode();
    if (globalLoadMode != null) par.put("global_load", globalLoadMode.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    if (!a.noReplay) {
      par.put("replay_sweep", a.replay.customAxes() ? "custom" : "audit");
      if (a.replay.policies != null) a.replay.policies.forEach(par.putArray("policies")::add);
      if (a.replay.globalRatios != null) a.replay.globalRatios.forEach(par.putArray("global_ratios")::add);
      if (a.replay.rates != null) a.replay.rates.forEach(par.putArray("rate_scales")::add);
      if (a.replayConfig != null) par.put("replay_config", a.replayConfig.toString());
      if (a.replay.profile != null) par.put("profile", a.replay.profile);
      if (a.replay.globalReadGBps != null) par.put("global_read_gbps", a.replay.globalReadGBps);
      if (a.replay.globalAggregateGBps != null) par.put("global_aggregate_gbps", a.replay.globalAggregateGBps);
      if (a.replay.instancesPerNode != null) par.put("instances_per_node", a.replay.instancesPerNode);
      if (a.replay.nodeNicGBps != null) par.put("node_nic_gbps", a.replay.nodeNicGBps);
    }
    ObjectNode co = par.putObject("criterion_overrides");
    a.criterionOverrides.forEach(co::put);
    return p;
  }
}
