package io.smetric.audit.contract;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * One canonical request in memory (the generator, the block-hasher and the replay use it; Spark
 * stages use {@link Canonical#SCHEMA} rows). {@code turn} is null where a format has no sessions;
 * {@code blocks} and {@code blockSize} are null where it has no hashes (Azure CSV);
 * {@code providerCache} is null where the log carries no provider cache accounting (the secondary
 * constructor, which leaves it out, is what most callers use); {@code recorded} is null where the
 * log carries no recorded routing (trace-model v1.3).
 */
public record TraceRecord(
    String requestId,
    String sessionId,
    String parentId,
    Integer turn,
    String trigger,
    double arrivalS,
    int inputTokens,
    int outputTokens,
    Integer blockSize,
    long[] blocks,
    String requestType,
    long seq,
    ProviderCache providerCache,
    Recorded recorded) {

  /**
   * The provider's own cache accounting of one request (trace-model v1.2, optional fields):
   * {@code kind} is the convention ({@link Canonical#CACHE_OPENAI}, {@link Canonical#CACHE_DEEPSEEK},
   * {@link Canonical#CACHE_ANTHROPIC}), {@code inputTokens} the provider's prompt-token count
   * (cached tokens included), {@code cachedTokens} the tokens it served from cache,
   * {@code cacheWriteTokens} the tokens it wrote to cache where it says so (Anthropic), else null.
   */
  public record ProviderCache(String kind, int inputTokens, int cachedTokens, Integer cacheWriteTokens) {
    public ProviderCache {
      if (kind == null) throw new IllegalArgumentException("provider cache kind is null");
      if (inputTokens < 0 || cachedTokens < 0 || (cacheWriteTokens != null && cacheWriteTokens < 0)) {
        throw new IllegalArgumentException("negative provider token count");
      }
    }
  }

  /**
   * Recorded routing and measured latency of one request (trace-model v1.3, optional fields), each
   * part null where the log does not say it: the instance that served it, TTFT and end-to-end time
   * in seconds from its arrival, and its outcome ({@link Canonical#OUTCOMES}). The constructor
   * enforces the contract's rules: finite, non-negative, TTFT <= end-to-end, a known outcome.
   */
  public record Recorded(String servedInstance, Double ttftS, Double e2eS, String outcome) implements java.io.Serializable {
    public Recorded {
      String bad = problem(servedInstance, ttftS, e2eS, outcome);
      if (bad != null) throw new IllegalArgumentException(bad);
    }

    /** The first rule a set of values breaks, as "field: why", or null when they are consistent. */
    public static String problem(String servedInstance, Double ttftS, Double e2eS, String outcome) {
      if (ttftS != null && !(ttftS >= 0 && ttftS < Double.POSITIVE_INFINITY)) {
        return Canonical.TTFT_S + ": " + ttftS + " is not a finite number >= 0";
      }
      if (e2eS != null && !(e2eS >= 0 && e2eS < Double.POSITIVE_INFINITY)) {
        return Canonical.E2E_S + ": " + e2eS + " is not a finite number >= 0";
      }
      // a microsecond of slack: logs round first-token and finish times separately
      if (ttftS != null && e2eS != null && ttftS > e2eS + 1e-6) {
        return Canonical.TTFT_S + ": " + ttftS + " s exceeds " + Canonical.E2E_S + " " + e2eS + " s";
      }
      if (outcome != null && !Canonical.OUTCOMES.contains(outcome)) {
        return Canonical.OUTCOME + ": '" + outcome + "' is not one of " + Canonical.OUTCOMES;
      }
      return null;
    }

    /** Whether any part is set. */
    public boolean any() {
      return servedInstance != null || ttftS != null || e2eS != null || outcome != null;
    }
  }

  /** A record without recorded routing. */
  public TraceRecord(String requestId, String sessionId, String parentId, Integer turn, String trigger, double arrivalS,
      int inputTokens, int outputTokens, Integer blockSize, long[] blocks, String requestType, long seq,
      ProviderCache providerCache) {
    this(requestId, sessionId, parentId, turn, trigger, arrivalS, inputTokens, outputTokens, blockSize, blocks,
        requestType, seq, providerCache, null);
  }

  /** A record without provider cache accounting. */
  public TraceRecord(String requestId, String sessionId, String parentId, Integer turn, String trigger, double arrivalS,
      int inputTokens, int outputTokens, Integer blockSize, long[] blocks, String requestType, long seq) {
    this(requestId, sessionId, parentId, turn, trigger, arrivalS, inputTokens, outputTokens, blockSize, blocks,
        requestType, seq, null, null);
  }

  /** This record with the provider's cache accounting set (null removes it). */
  public TraceRecord withProviderCache(ProviderCache c) {
    return new TraceRecord(requestId, sessionId, parentId, turn, trigger, arrivalS, inputTokens, outputTokens, blockSize,
        blocks, requestType, seq, c, recorded);
  }

  /** This record with its recorded routing set (null removes it). */
  public TraceRecord withRecorded(Recorded x) {
    return new TraceRecord(requestId, sessionId, parentId, turn, trigger, arrivalS, inputTokens, outputTokens, blockSize,
        blocks, requestType, seq, providerCache, x);
  }

  /** A row of {@link Canonical#SCHEMA}, in its column order. */
  public Row toRow() {
    ProviderCache c = providerCache;
    Recorded x = recorded;
    return RowFactory.create(
        requestId, sessionId, parentId, turn, trigger, arrivalS, inputTokens, outputTokens,
        blockSize, blocks, requestType, seq,
        c == null ? null : c.inputTokens(), c == null ? null : c.cachedTokens(),
        c == null ? null : c.cacheWriteTokens(), c == null ? null : c.kind(),
        x == null ? null : x.servedInstance(), x == null ? null : x.ttftS(), x == null ? null : x.e2eS(),
        x == null ? null : x.outcome());
  }

  /** Reads a row of {@link Canonical#SCHEMA} (any column order; the optional columns may be absent). */
  public static TraceRecord fromRow(Row r) {
    Object b = r.get(r.fieldIndex(Canonical.BLOCKS));
    long[] blocks = null;
    if (b != null) {
      scala.collection.Seq<?> s = (scala.collection.Seq<?>) b;
      blocks = new long[s.size()];
      scala.collection.Iterator<?> it = s.iterator();
      for (int i = 0; it.hasNext(); i++) blocks[i] = (Long) it.next();
    }
    ProviderCache c = null;
    String kind = (String) optional(r, Canonical.PROVIDER_CACHE);
    Integer in = (Integer) optional(r, Canonical.PROVIDER_INPUT_TOKENS);
    Integer cached = (Integer) optional(r, Canonical.PROVIDER_CACHED_TOKENS);
    if (kind != null && in != null && cached != null) {
      c = new ProviderCache(kind, in, cached, (Integer) optional(r, Canonical.PROVIDER_CACHE_WRITE_TOKENS));
    }
    return new TraceRecord(
        r.getString(r.fieldIndex(Canonical.REQUEST_ID)),
        (String) r.get(r.fieldIndex(Canonical.SESSION_ID)),
        (String) r.get(r.fieldIndex(Canonical.PARENT_ID)),
        (Integer) r.get(r.fieldIndex(Canonical.TURN)),
        r.getString(r.fieldIndex(Canonical.TRIGGER)),
        r.getDouble(r.fieldIndex(Canonical.ARRIVAL_S)),
        r.getInt(r.fieldIndex(Canonical.INPUT_TOKENS)),
        r.getInt(r.fieldIndex(Canonical.OUTPUT_TOKENS)),
        (Integer) r.get(r.fieldIndex(Canonical.BLOCK_SIZE)),
        blocks,
        (String) optional(r, Canonical.REQUEST_TYPE),
        r.getLong(r.fieldIndex(Canonical.SEQ)),
        c,
        recordedOf(r));
  }

  private static Recorded recordedOf(Row r) {
    Recorded x = new Recorded((String) optional(r, Canonical.SERVED_INSTANCE), (Double) optional(r, Canonical.TTFT_S),
        (Double) optional(r, Canonical.E2E_S), (String) optional(r, Canonical.OUTCOME));
    return x.any() ? x : null;
  }

  private static Object optional(Row r, String column) {
    if (r.schema() == null) return null;
    scala.Option<Object> i = r.schema().getFieldIndex(column);
    return i.isEmpty() ? null : r.get((Integer) i.get());
  }
}
