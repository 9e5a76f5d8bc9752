package io.smetric.audit.contract;

import java.util.List;

/**
 * The names of the files and folders through which the stages meet (docs/report.md "Folder
 * layout"), written here once: every stage writes its output under these names and every reader
 * (the next stage, the report, the CLI) finds it by them.
 *
 * <p>A canonical dataset folder (what ingest, hash and infer-sessions write) holds the Parquet
 * trace in {@link #TRACE_DIR} beside its stage's summary. An audit folder holds one sub-folder per
 * stage ({@link #INGEST}, {@link #HASHED}, {@link #INFERRED}, {@link #CHARACTERIZATION},
 * {@link #REPLAY}, {@link #MEASURED_CACHE}) and, at the top, provenance, audit.json and the HTML.
 */
public final class AuditLayout {
  private AuditLayout() {}

  // ---- inside a canonical dataset folder
  /** The canonical Parquet trace (docs/trace-model.md section 1). */
  public static final String TRACE_DIR = "trace";
  /** Ingest's quarantined records with their reasons. */
  public static final String QUARANTINE_DIR = "quarantine";
  public static final String INGEST_SUMMARY_FILE = "ingest-summary.json";
  /**
   * Beside {@link #TRACE_DIR} in a folder {@code replay --record-trace} wrote: which simulation the
   * recorded routing and latencies come from (policy, global ratio, offered rate, settings).
   */
  public static final String RECORDING_FILE = "recording.json";
  public static final String HASH_SUMMARY_FILE = "hash-summary.json";
  public static final String INFERENCE_SUMMARY_FILE = "inference-summary.json";
  public static final String INFERENCE_ACCURACY_FILE = "inference-accuracy.json";

  // ---- inside a stage's result folder
  public static final String CHARACTERIZATION_FILE = "characterization.json";
  public static final String REPLAY_FILE = "replay.json";
  /** The replay's Parquet tables beside replay.json (docs/replay.md, "Output"): one row per simulation. */
  public static final String REPLAY_RUNS_DIR = "runs";
  /** Maximum TPS within SLO per policy, global ratio and thresholds. */
  public static final String REPLAY_HEADLINE_DIR = "headline";
  /** TTFT and TPOT CDF points per run. */
  public static final String REPLAY_LATENCY_CDF_DIR = "latency_cdf";
  /** Max/mean token load per window per run. */
  public static final String REPLAY_IMBALANCE_WINDOWS_DIR = "imbalance_windows";
  /** Token load per instance per window per run. */
  public static final String REPLAY_INSTANCE_LOAD_DIR = "instance_load";
  /** Every table the replay writes beside replay.json. */
  public static final List<String> REPLAY_TABLES = List.of(REPLAY_RUNS_DIR, REPLAY_HEADLINE_DIR,
      REPLAY_LATENCY_CDF_DIR, REPLAY_IMBALANCE_WINDOWS_DIR, REPLAY_INSTANCE_LOAD_DIR);
  public static final String MEASURED_CACHE_SUMMARY_FILE = "summary.json";
  /** The measured-cache per-request table (Parquet). */
  public static final String MEASURED_CACHE_REQUESTS_DIR = "requests";

  // ---- an audit folder: one folder per stage
  public static final String INGEST = "ingest";
  public static final String HASHED = "hashed";
  public static final String INFERRED = "inferred";
  public static final String CHARACTERIZATION = "characterization";
  public static final String REPLAY = "replay";
  public static final String MEASURED_CACHE = "measured-cache";
  /** validate TRACE's per-request comparison, run by the audit when the trace records its routing. */
  public static final String OWN_TRAFFIC = "own-traffic";
  public static final String OWN_TRAFFIC_VALIDATION = OWN_TRAFFIC + "/validation.json";
  public static final String PROVENANCE = "provenance.json";
  public static final String AUDIT_JSON = "audit.json";
  public static final String INDEX_HTML = "index.html";

  // ---- paths relative to an audit folder
  public static final String INGEST_SUMMARY = INGEST + "/" + INGEST_SUMMARY_FILE;
  public static final String INFERENCE_SUMMARY = INFERRED + "/" + INFERENCE_SUMMARY_FILE;
  public static final String CHARACTERIZATION_JSON = CHARACTERIZATION + "/" + CHARACTERIZATION_FILE;
  public static final String REPLAY_JSON = REPLAY + "/" + REPLAY_FILE;
  public static final String REPLAY_RUNS = REPLAY + "/" + REPLAY_RUNS_DIR;
  public static final String REPLAY_LATENCY_CDF = REPLAY + "/" + REPLAY_LATENCY_CDF_DIR;
  public static final String REPLAY_INSTANCE_LOAD = REPLAY + "/" + REPLAY_INSTANCE_LOAD_DIR;
  public static final String MEASURED_CACHE_SUMMARY = MEASURED_CACHE + "/" + MEASURED_CACHE_SUMMARY_FILE;
  public static final String MEASURED_CACHE_REQUESTS = MEASURED_CACHE + "/" + MEASURED_CACHE_REQUESTS_DIR;

  /** A characterization table of an audit folder, e.g. {@code characterization/sessions}. */
  public static String characterizationTable(String table) {
    return CHARACTERIZATION + "/" + table;
  }
}
