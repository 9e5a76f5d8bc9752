package io.smetric.audit.replay;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.smetric.audit.common.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One model instance as the replay sees it: the step-time cost model, the KV geometry and memory
 * budget, the engine's limits and the global KV tier's costs, every number with its source. A
 * profile is data: a JSON or YAML file with these field names, a shipped one from the catalogue
 * ({@link #named}, `smetric-audit profiles`), or one written by `smetric-audit calibrate`.
 *
 * <p>One scheduler step that computes P uncached prefill tokens (in chunks of P_c tokens, each
 * after L_c tokens of context) and D decode tokens (contexts ctx_j) takes
 *
 * <pre>
 *   a + max(R + W x f(T), b x T) + e x sum_c P_c x (L_c + P_c / 2) + c x D + d x sum_j ctx_j + s x P
 *
 *   T = P + D tokens in the step
 *   R = denseWeightGB / (hbmGBps x hbmEfficiency)    weights every token needs
 *   W = expertWeightGB / (hbmGBps x hbmEfficiency)   all routed experts' weights
 *   f(T) = 1 - (1 - k / E)^T   expected share of the E routed experts (k per token) that T tokens
 *                              activate, for uniform routing; 0 for a dense model (E = 0)
 *   s = kvBytesPerToken / (globalSaveGBps x 1e9) when KV saves to the global tier block the step
 * </pre>
 *
 * The max is a roofline: a step reads the weights it needs (an MoE only the experts its batch
 * activates, so a batch-1 decode step reads 8 of 128 experts) and computes 2 x active parameters
 * FLOP per token, whichever takes longer; small decode batches are memory-bound, prefill chunks
 * compute-bound. Attention is added on top (prefill: quadratic in the chunk; decode: reading the
 * context's KV, d per token, whose physical floor is kvBytesPerToken / hbmGBps). Without weight
 * figures (R = W = 0) the model is linear in the tokens, BLIS-style.
 *
 * <p>The KV capacity is {@link #kvCapacityTokens} when measured (vLLM logs "GPU KV cache size"),
 * else derived from the memory figures. Every figure describes one whole instance: with tensor
 * parallelism over g GPUs, memory and bandwidth are the sums over the g GPUs.
 *
 * <p>A profile is an immutable value (issue 30: settings as values), shared freely between runs and
 * threads: its fields are documented, with their defaults, on {@link Builder}, the mutable schema a
 * file is read into; {@link #with} gives a changed copy.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonDeserialize(using = ModelProfile.FromJson.class)
public final class ModelProfile implements Serializable {
  private static final long serialVersionUID = 2L;

  /** The shipped profile the replay uses unless told otherwise. */
  public static final String DEFAULT_NAME = "qwen3-30b-a3b-h20";

  // the fields of Builder, which documents each one and its default
  public final String name;
  public final String description;
  public final String model;
  public final String hardware;
  public final String engine;

  // ---- step cost ----
  public final double stepBaseS;
  public final double prefillPerTokenS;
  public final double prefillAttentionPerPairS;
  public final double decodePerSeqS;
  public final double decodePerContextTokenS;
  public final double denseWeightGB;
  public final double expertWeightGB;
  public final int experts;
  public final int expertsPerToken;
  public final double hbmGBps;
  public final double hbmEfficiency;

  public final double frontendLatencyS;

  // ---- KV geometry and memory ----
  public final long kvBytesPerToken;
  public final Long kvCapacityTokens;
  public final double gpuMemoryGiB;
  public final double memoryUtilization;
  public final double weightsGiB;
  public final double runtimeOverheadGiB;

  // ---- engine limits ----
  public final int maxBatch;
  public final int tokenBudget;
  public final int prefillChunkTokens;

  // ---- global KV tier (a remote/CPU KV store reached over PCIe and the network) ----
  public final double globalReadGBps;
  public final double globalLookupLatencyS;
  public final double globalSaveGBps;
  public final boolean globalSaveBlocksStep;
  public final double globalAggregateGBpsPerNode;

  /** Where every number comes from: field name -> source, in the file's order (unmodifiable). */
  public final Map<String, Source> sources;
  public final Validation validation;

  private ModelProfile(Builder b) {
    name = b.name;
    description = b.description;
    model = b.model;
    hardware = b.hardware;
    engine = b.engine;
    stepBaseS = b.stepBaseS;
    prefillPerTokenS = b.prefillPerTokenS;
    prefillAttentionPerPairS = b.prefillAttentionPerPairS;
    decodePerSeqS = b.decodePerSeqS;
    decodePerContextTokenS = b.decodePerContextTokenS;
    denseWeightGB = b.denseWeightGB;
    expertWeightGB = b.expertWeightGB;
    experts = b.experts;
    expertsPerToken = b.expertsPerToken;
    hbmGBps = b.hbmGBps;
    hbmEfficiency = b.hbmEfficiency;
    frontendLatencyS = b.frontendLatencyS;
    kvBytesPerToken = b.kvBytesPerToken;
    kvCapacityTokens = b.kvCapacityTokens;
    gpuMemoryGiB = b.gpuMemoryGiB;
    memoryUtilization = b.memoryUtilization;
    weightsGiB = b.weightsGiB;
    runtimeOverheadGiB = b.runtimeOverheadGiB;
    maxBatch = b.maxBatch;
    tokenBudget = b.tokenBudget;
    prefillChunkTokens = b.prefillChunkTokens;
    globalReadGBps = b.globalReadGBps;
    globalLookupLatencyS = b.globalLookupLatencyS;
    globalSaveGBps = b.globalSaveGBps;
    globalSaveBlocksStep = b.globalSaveBlocksStep;
    globalAggregateGBpsPerNode = b.globalAggregateGBpsPerNode;
    sources = b.sources == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(b.sources));
    validation = b.validation;
  }

  /** A builder holding this profile's values, to derive another profile from it. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.name = name;
    b.description = description;
    b.model = model;
    b.hardware = hardware;
    b.engine = engine;
    b.stepBaseS = stepBaseS;
    b.prefillPerTokenS = prefillPerTokenS;
    b.prefillAttentionPerPairS = prefillAttentionPerPairS;
    b.decodePerSeqS = decodePerSeqS;
    b.decodePerContextTokenS = decodePerContextTokenS;
    b.denseWeightGB = denseWeightGB;
    b.expertWeightGB = expertWeightGB;
    b.experts = experts;
    b.expertsPerToken = expertsPerToken;
    b.hbmGBps = hbmGBps;
    b.hbmEfficiency = hbmEfficiency;
    b.frontendLatencyS = frontendLatencyS;
    b.kvBytesPerToken = kvBytesPerToken;
    b.kvCapacityTokens = kvCapacityTokens;
    b.gpuMemoryGiB = gpuMemoryGiB;
    b.memoryUtilization = memoryUtilization;
    b.weightsGiB = weightsGiB;
    b.runtimeOverheadGiB = runtimeOverheadGiB;
    b.maxBatch = maxBatch;
    b.tokenBudget = tokenBudget;
    b.prefillChunkTokens = prefillChunkTokens;
    b.globalReadGBps = globalReadGBps;
    b.globalLookupLatencyS = globalLookupLatencyS;
    b.globalSaveGBps = globalSaveGBps;
    b.globalSaveBlocksStep = globalSaveBlocksStep;
    b.globalAggregateGBpsPerNode = globalAggregateGBpsPerNode;
    b.sources = sources == null ? null : new LinkedHashMap<>(sources);
    b.validation = validation;
    return b;
  }

  /** This profile with the changes {@code edit} makes to a builder of it; this one is left as it is. */
  public ModelProfile with(Consumer<Builder> edit) {
    Builder b = toBuilder();
    edit.accept(b);
    return b.build();
  }

  /**
   * The profile's schema: every field with its default and its meaning, mutable, for reading a file
   * (Jackson fills a builder, then {@link #build}s the value) and for making a profile in code
   * ({@link ModelProfile#with}, {@link ModelProfile#toBuilder}). Field names are the file's keys.
   */
  public static final class Builder {
    public String name = "unnamed";
    public String description;
    /** Model (Hugging Face id), hardware of one instance, serving engine and version. */
    public String model;
    public String hardware;
    public String engine;

    // ---- step cost ----
    /** a: fixed cost of a step [s] (launches, scheduling, sampling). */
    public double stepBaseS;
    /** b: compute per token in the step [s] (2 x active parameters FLOP at the achieved rate). */
    public double prefillPerTokenS;
    /** e: prefill attention per (new token x context token) pair [s]. */
    public double prefillAttentionPerPairS;
    /** c: per decoding sequence [s] (sampling, per-sequence kernels). */
    public double decodePerSeqS;
    /** d: per context token of a decoding sequence [s] (reading its KV: at least kvBytesPerToken / hbmGBps). */
    public double decodePerContextTokenS;
    /** Weights every step reads whatever its batch (dense layers, attention, embeddings) [GB]. */
    public double denseWeightGB;
    /** Weights of all routed experts together [GB]; a step reads the share f(T) of them. */
    public double expertWeightGB;
    /** Routed experts per MoE layer (0 = dense model). */
    public int experts;
    /** Experts each token is routed to. */
    public int expertsPerToken;
    /** HBM bandwidth of the instance [GB/s] (spec sheet, summed over its GPUs). */
    public double hbmGBps;
    /** Share of {@link #hbmGBps} that weight reads achieve (fitted or assumed). */
    public double hbmEfficiency = 1.0;

    /**
     * Time from the client's send to the engine's scheduler plus the first token's way back (HTTP,
     * tokenisation, detokenisation, streaming) [s]: it adds to TTFT and E2E, not to TPOT.
     */
    public double frontendLatencyS;

    // ---- KV geometry and memory ----
    /** KV bytes per token of the whole model (all layers, K and V). */
    public long kvBytesPerToken;
    /** Measured KV capacity of the instance in tokens (engine log); null = derived from memory. */
    public Long kvCapacityTokens;
    public double gpuMemoryGiB;
    /** Share of GPU memory the engine takes (vLLM gpu_memory_utilization, SGLang mem_fraction_static). */
    public double memoryUtilization = 0.90;
    public double weightsGiB;
    /** Activations, CUDA graphs, fragmentation. */
    public double runtimeOverheadGiB;

    // ---- engine limits ----
    /** Most sequences in one step (vLLM max_num_seqs). */
    public int maxBatch = 256;
    /** Most tokens in one step (vLLM max_num_batched_tokens). */
    public int tokenBudget = 8192;
    /** Largest prefill chunk of one request in one step (SGLang chunked_prefill_size); 0 = tokenBudget. */
    public int prefillChunkTokens;

    // ---- global KV tier (a remote/CPU KV store reached over PCIe and the network) ----
    /** Effective read rate of one instance's fetches [GB/s]. */
    public double globalReadGBps = 25.0;
    /** Fixed time of one global-tier lookup and fetch [s]. */
    public double globalLookupLatencyS = 0.001;
    /** Effective write rate of one instance's KV saves [GB/s]; Infinity = saves cost nothing. */
    public double globalSaveGBps = Double.POSITIVE_INFINITY;
    /** Whether a step waits for the KV it computed to be saved (LMCache wait_for_save). */
    public boolean globalSaveBlocksStep;
    /**
     * The global tier's serving bandwidth per server node of the cluster [GB/s]: the whole tier
     * serves at most nodes x this to all fetches together (the tier pools the nodes' DRAM, each node
     * serving its share through its NIC; issue 26 item 5). Infinity = no aggregate limit (profiles
     * written before this field).
     */
    public double globalAggregateGBpsPerNode = Double.POSITIVE_INFINITY;

    /** Where every number comes from: field name -> source (a file's order kept). */
    public Map<String, Source> sources = new LinkedHashMap<>();
    /** How this profile was fitted and checked against real runs, and in which regime (null = never checked). */
    public Validation validation;

    public Builder() {}

    /** The immutable profile with these values (not validated: {@link ModelProfile#validate} checks them). */
    public ModelProfile build() {
      return new ModelProfile(this);
    }
  }

  /** The origin of one number. low/high: the range it may take (null = not stated). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class Source implements Serializable {
    private static final long serialVersionUID = 1L;
    /** measured | fitted | derived | documented | assumption */
    public final String kind;
    public final String ref;
    public final Double low;
    public final Double high;

    @JsonCreator
    public Source(@JsonProperty("kind") String kind, @JsonProperty("ref") String ref, @JsonProperty("low") Double low,
        @JsonProperty("high") Double high) {
      this.kind = kind;
      this.ref = ref;
      this.low = low;
      this.high = high;
    }
  }

  /**
   * How the profile was fitted and how well it reproduced real runs (docs/validation.md;
   * `smetric-audit validate` recomputes the errors). {@link #checks} keep the three kinds of
   * comparison apart: the fitted points themselves (in-sample), leave-one-out (each fitted point
   * predicted by a refit without it: the same runs and regime) and held-out runs (runs of another
   * workload or load the fit never saw); {@link #regime} is what those runs asked of the engine.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonDeserialize(using = Validation.FromJson.class)
  public static final class Validation implements Serializable {
    private static final long serialVersionUID = 2L;
    // the fields of Validation.Builder, which documents each one
    public final String summary;
    public final List<Check> checks;
    public final Regime regime;
    public final List<String> data;
    public final String group;
    public final List<String> heldOut;
    public final Integer heldOutPoints;
    public final Double e2eMedianAbsError;
    public final Double tpotMedianAbsError;
    public final Double ttftMedianAbsError;
    public final String doc;

    private Validation(Builder b) {
      summary = b.summary;
      checks = b.checks == null ? null : Collections.unmodifiableList(new ArrayList<>(b.checks));
      regime = b.regime;
      data = b.data == null ? null : Collections.unmodifiableList(new ArrayList<>(b.data));
      group = b.group;
      heldOut = b.heldOut == null ? null : Collections.unmodifiableList(new ArrayList<>(b.heldOut));
      heldOutPoints = b.heldOutPoints;
      e2eMedianAbsError = b.e2eMedianAbsError;
      tpotMedianAbsError = b.tpotMedianAbsError;
      ttftMedianAbsError = b.ttftMedianAbsError;
      doc = b.doc;
    }

    /** A builder holding these values. */
    public Builder toBuilder() {
      Builder b = new Builder();
      b.summary = summary;
      b.checks = checks == null ? null : new ArrayList<>(checks);
      b.regime = regime;
      b.data = data == null ? null : new ArrayList<>(data);
      b.group = group;
      b.heldOut = heldOut == null ? null : new ArrayList<>(heldOut);
      b.heldOutPoints = heldOutPoints;
      b.e2eMedianAbsError = e2eMedianAbsError;
      b.tpotMedianAbsError = tpotMedianAbsError;
      b.ttftMedianAbsError = ttftMedianAbsError;
      b.doc = doc;
      return b;
    }

    /** The check of one kind, or null. */
    public Check check(String kind) {
      if (checks == null) return null;
      for (Check c : checks) if (kind.equals(c.kind)) return c;
      return null;
    }

    /** The mutable schema of a Validation: the file's keys with their meaning; {@link #build} gives the value. */
    public static final class Builder {
      public String summary;
      /** One entry per kind of comparison that was made: fit, leave-one-out, held-out, overloaded. */
      public List<Check> checks;
      /** The envelope of the runs the profile was fitted and checked on (overloaded stages apart). */
      public Regime regime;
      /** The measurements: a shipped set's name (MeasurementReader.readResource) or file paths. */
      public List<String> data;
      /** Only measurements whose group contains this. */
      public String group;
      /** Measurements whose id contains one of these were held out of the fit; the others were fitted. */
      public List<String> heldOut;
      public Integer heldOutPoints;
      /** Medians over the held-out numbers of |modelled / measured - 1|, per metric. */
      public Double e2eMedianAbsError;
      public Double tpotMedianAbsError;
      public Double ttftMedianAbsError;
      public String doc;

      public Validation build() {
        return new Validation(this);
      }
    }

    static final class FromJson extends ViaBuilder<Validation, Builder> {
      private static final long serialVersionUID = 1L;

      FromJson() {
        super(Validation.class, Builder.class, Builder::build);
      }
    }
  }

  /**
   * One kind of comparison with real runs: {@code fit} (the points the coefficients were fitted to,
   * in-sample), {@code leave-one-out} (each fitted point predicted by a refit without it),
   * {@code held-out} (runs the fit never saw), {@code overloaded} (stages where the client gave up
   * on requests: replayed, not counted as validation), {@code cross-validated} (a derived profile: the
   * derivation's error on other models and GPUs). Errors are medians of |modelled / measured - 1|.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonDeserialize(using = Check.FromJson.class)
  public static final class Check implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final String FIT = "fit";
    public static final String LEAVE_ONE_OUT = "leave-one-out";
    public static final String HELD_OUT = "held-out";
    public static final String OVERLOADED = "overloaded";
    /** A derived profile's error: the derivation cross-validated on the calibrated profiles (derive.CrossValidation). */
    public static final String CROSS_VALIDATED = "cross-validated";

    // the fields of Check.Builder, which documents each one
    public final String kind;
    public final String meaning;
    public final Integer measurements;
    public final Integer points;
    public final Double e2eMedianAbsError;
    public final Double tpotMedianAbsError;
    public final Double ttftMedianAbsError;
    public final Double e2eP90AbsError;
    public final Double ttftP90AbsError;
    public final Double maxAbsError;
    public final Regime regime;

    private Check(Builder b) {
      kind = b.kind;
      meaning = b.meaning;
      measurements = b.measurements;
      points = b.points;
      e2eMedianAbsError = b.e2eMedianAbsError;
      tpotMedianAbsError = b.tpotMedianAbsError;
      ttftMedianAbsError = b.ttftMedianAbsError;
      e2eP90AbsError = b.e2eP90AbsError;
      ttftP90AbsError = b.ttftP90AbsError;
      maxAbsError = b.maxAbsError;
      regime = b.regime;
    }

    /** A builder holding these values. */
    public Builder toBuilder() {
      Builder b = new Builder();
      b.kind = kind;
      b.meaning = meaning;
      b.measurements = measurements;
      b.points = points;
      b.e2eMedianAbsError = e2eMedianAbsError;
      b.tpotMedianAbsError = tpotMedianAbsError;
      b.ttftMedianAbsError = ttftMedianAbsError;
      b.e2eP90AbsError = e2eP90AbsError;
      b.ttftP90AbsError = ttftP90AbsError;
      b.maxAbsError = maxAbsError;
      b.regime = regime;
      return b;
    }

    /** The mutable schema of a Check: the file's keys with their meaning; {@link #build} gives the value. */
    public static final class Builder {
      public String kind;
      /** What this kind of check can and cannot show, in words. */
      public String meaning;
      public Integer measurements;
      /** Compared numbers (TTFT, TPOT, E2E means, step times). */
      public Integer points;
      public Double e2eMedianAbsError;
      public Double tpotMedianAbsError;
      public Double ttftMedianAbsError;
      /** 90th percentiles of |error| (per-request checks on a recorded trace, calibrate TRACE; null elsewhere). */
      public Double e2eP90AbsError;
      public Double ttftP90AbsError;
      /** Largest |error| over the compared numbers. */
      public Double maxAbsError;
      /** What the compared runs asked of the engine. */
      public Regime regime;

      public Check build() {
        return new Check(this);
      }
    }

    static final class FromJson extends ViaBuilder<Check, Builder> {
      private static final long serialVersionUID = 1L;

      FromJson() {
        super(Check.class, Builder.class, Builder::build);
      }
    }
  }

  /**
   * What a set of real runs asked of the engine, derived from the measurements (their workloads as
   * the benchmark tool generated them and their measured summaries; calibrate.MeasurementRegime):
   * prompt lengths, contexts (prompt + output), requests in flight (batch 1 for single requests;
   * Little's law, measured completed rate x mean E2E, for load stages; the step's decoding
   * sequences for step timings), offered request rates, the share of prompt tokens an unbounded
   * prefix cache would hit, and how many stages were saturated (measured throughput below 95% of
   * the offered rate, or more than 1% of requests failed).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonDeserialize(using = Regime.FromJson.class)
  public static final class Regime implements Serializable {
    private static final long serialVersionUID = 1L;
    // the fields of Regime.Builder, which documents each one
    public final String summary;
    public final String kinds;
    public final Integer measurements;
    public final Long promptTokensMin;
    public final Long promptTokensMax;
    public final Long contextTokensMax;
    public final Double concurrencyMin;
    public final Double concurrencyMax;
    public final Double requestRateMin;
    public final Double requestRateMax;
    public final Double cacheHitShareMin;
    public final Double cacheHitShareMax;
    public final Integer saturatedMeasurements;
    public final String derivedFrom;

    private Regime(Builder b) {
      summary = b.summary;
      kinds = b.kinds;
      measurements = b.measurements;
      promptTokensMin = b.promptTokensMin;
      promptTokensMax = b.promptTokensMax;
      contextTokensMax = b.contextTokensMax;
      concurrencyMin = b.concurrencyMin;
      concurrencyMax = b.concurrencyMax;
      requestRateMin = b.requestRateMin;
      requestRateMax = b.requestRateMax;
      cacheHitShareMin = b.cacheHitShareMin;
      cacheHitShareMax = b.cacheHitShareMax;
      saturatedMeasurements = b.saturatedMeasurements;
      derivedFrom = b.derivedFrom;
    }

    /** A builder holding these values. */
    public Builder toBuilder() {
      Builder b = new Builder();
      b.summary = summary;
      b.kinds = kinds;
      b.measurements = measurements;
      b.promptTokensMin = promptTokensMin;
      b.promptTokensMax = promptTokensMax;
      b.contextTokensMax = contextTokensMax;
      b.concurrencyMin = concurrencyMin;
      b.concurrencyMax = concurrencyMax;
      b.requestRateMin = requestRateMin;
      b.requestRateMax = requestRateMax;
      b.cacheHitShareMin = cacheHitShareMin;
      b.cacheHitShareMax = cacheHitShareMax;
      b.saturatedMeasurements = saturatedMeasurements;
      b.derivedFrom = derivedFrom;
      return b;
    }

    /** The mutable schema of a Regime: the file's keys with their meaning; {@link #build} gives the value. */
    public static final class Builder {
      public String summary;
      /** single requests | load stages | engine steps (comma-joined when mixed). */
      public String kinds;
      public Integer measurements;
      public Long promptTokensMin;
      public Long promptTokensMax;
      public Long contextTokensMax;
      /** Requests in flight on the instance (mean over each run), smallest and largest run. */
      public Double concurrencyMin;
      public Double concurrencyMax;
      /** Offered requests per second on the instance; null when no run was rate-driven. */
      public Double requestRateMin;
      public Double requestRateMax;
      /** Share of prompt tokens an unbounded prefix cache would hit, smallest and largest run. */
      public Double cacheHitShareMin;
      public Double cacheHitShareMax;
      public Integer saturatedMeasurements;
      /** The measurements it was derived from (set, group, ids). */
      public String derivedFrom;

      public Regime build() {
        return new Regime(this);
      }
    }

    static final class FromJson extends ViaBuilder<Regime, Builder> {
      private static final long serialVersionUID = 1L;

      FromJson() {
        super(Regime.class, Builder.class, Builder::build);
      }
    }
  }

  /**
   * Reads a value of the profile format wherever one is read (a profile file, a settings file's
   * {@code profile}): the fields into its builder, then the value. An unknown field is reported
   * against the value's class, the name the errors have always given, not against the builder.
   */
  abstract static class ViaBuilder<T, B> extends StdDeserializer<T> {
    private static final long serialVersionUID = 1L;
    private final Class<B> builder;
    private final transient Function<B, T> build;

    ViaBuilder(Class<T> value, Class<B> builder, Function<B, T> build) {
      super(value);
      this.builder = builder;
      this.build = build;
    }

    @Override
    public T deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      try {
        return build.apply(ctxt.readValue(p, builder));
      } catch (UnrecognizedPropertyException e) {
        if (e.getReferringClass() != builder) throw e;
        throw UnrecognizedPropertyException.from(p, handledType(), e.getPropertyName(), e.getKnownPropertyIds());
      }
    }
  }

  static final class FromJson extends ViaBuilder<ModelProfile, Builder> {
    private static final long serialVersionUID = 1L;

    FromJson() {
      super(ModelProfile.class, Builder.class, Builder::build);
    }
  }

  /** The numeric fields every profile states a source for. */
  public static final List<String> SOURCED_FIELDS = List.of(
      "stepBaseS", "prefillPerTokenS", "prefillAttentionPerPairS", "decodePerSeqS",
      "decodePerContextTokenS", "frontendLatencyS", "denseWeightGB", "expertWeightGB", "experts", "expertsPerToken",
      "hbmGBps", "hbmEfficiency", "kvBytesPerToken", "gpuMemoryGiB", "memoryUtilization",
      "weightsGiB", "runtimeOverheadGiB", "maxBatch", "tokenBudget", "globalReadGBps",
      "globalLookupLatencyS", "globalSaveGBps", "globalSaveBlocksStep", "globalAggregateGBpsPerNode");

  // ---- derived terms ----

  /** R [s]: dense weights read once. */
  public double denseReadS() {
    return hbmGBps > 0 ? denseWeightGB / (hbmGBps * hbmEfficiency) : 0;
  }

  /** W [s]: all routed experts read once. */
  public double expertReadS() {
    return hbmGBps > 0 && experts > 0 ? expertWeightGB / (hbmGBps * hbmEfficiency) : 0;
  }

  /** f(T): expected share of routed experts that T tokens activate (uniform routing). */
  public double expertShare(long tokens) {
    if (experts <= 0 || tokens <= 0) return 0;
    return 1 - Math.pow(1 - (double) expertsPerToken / experts, tokens);
  }

  /** Time of a step that only prefills {@code tokens} tokens at no context: a + max(R + W f(T), b T). */
  public double prefillStepS(long tokens) {
    return stepS(tokens, 0, 0, 0, 0);
  }

  /**
   * The step-cost formula (class comment): a step with {@code prefillTokens} uncached prefill tokens
   * whose attention pairs sum to {@code pairs}, {@code decodeSeqs} decoding sequences with
   * {@code decodeContext} context tokens together, and {@code savePerTokenS} of blocking KV save
   * per prefill token. The simulator computes the same expression with f(T) from a table.
   */
  public double stepS(long prefillTokens, double pairs, int decodeSeqs, long decodeContext, double savePerTokenS) {
    long tokens = prefillTokens + decodeSeqs;
    double weights = denseReadS() + expertReadS() * expertShare(tokens);
    return stepBaseS + Math.max(weights, prefillPerTokenS * tokens) + prefillAttentionPerPairS * pairs
        + decodePerSeqS * decodeSeqs + decodePerContextTokenS * decodeContext + savePerTokenS * prefillTokens;
  }

  /** The largest prefill chunk of one request in one step. */
  public int chunkLimit() {
    return prefillChunkTokens > 0 ? Math.min(prefillChunkTokens, tokenBudget) : tokenBudget;
  }

  /** Local KV capacity in blocks of {@code blockSize} tokens: measured, else from the memory figures. */
  public long derivedLocalBlocks(int blockSize) {
    if (kvCapacityTokens != null) return Math.max(1, kvCapacityTokens / blockSize);
    double freeBytes = (gpuMemoryGiB * memoryUtilization - weightsGiB - runtimeOverheadGiB) * (1L << 30);
    if (freeBytes <= 0) throw new UsageException("profile " + name + ": no memory left for KV after the weights");
    return (long) Math.floor(freeBytes / ((double) kvBytesPerToken * blockSize));
  }

  public void validate() {
    check(stepBaseS >= 0 && prefillPerTokenS >= 0 && prefillAttentionPerPairS >= 0 && decodePerSeqS >= 0
        && decodePerContextTokenS >= 0, "cost coefficients must be >= 0");
    check(denseWeightGB >= 0 && expertWeightGB >= 0 && hbmGBps >= 0, "weight sizes and bandwidth must be >= 0");
    check(hbmEfficiency > 0 && hbmEfficiency <= 1, "hbmEfficiency must be in (0, 1] (no read beats the peak bandwidth)");
    check(experts >= 0 && expertsPerToken >= 0 && expertsPerToken <= experts, "need 0 <= expertsPerToken <= experts");
    check(experts == 0 || expertsPerToken > 0, "an MoE profile needs expertsPerToken > 0");
    check((denseWeightGB == 0 && expertWeightGB == 0) || hbmGBps > 0, "weight sizes need hbmGBps > 0");
    check(stepBaseS + prefillPerTokenS > 0 || denseReadS() > 0, "a step must take time");
    check(frontendLatencyS >= 0, "frontendLatencyS must be >= 0");
    check(kvBytesPerToken > 0, "kvBytesPerToken must be > 0");
    check(kvCapacityTokens == null || kvCapacityTokens > 0, "kvCapacityTokens must be > 0");
    check(maxBatch > 0, "maxBatch must be > 0");
    check(tokenBudget > 0, "tokenBudget must be > 0");
    check(prefillChunkTokens >= 0, "prefillChunkTokens must be >= 0");
    check(globalReadGBps > 0, "globalReadGBps must be > 0");
    check(globalLookupLatencyS >= 0, "globalLookupLatencyS must be >= 0");
    check(globalSaveGBps > 0, "globalSaveGBps must be > 0 (Infinity = free saves)");
    check(globalAggregateGBpsPerNode > 0, "globalAggregateGBpsPerNode must be > 0 (Infinity = no aggregate limit)");
  }

  /** Fields of {@link #SOURCED_FIELDS} without a source entry. */
  public List<String> unsourcedFields() {
    List<String> out = new ArrayList<>();
    for (String f : SOURCED_FIELDS) {
      Source s = sources == null ? null : sources.get(f);
      if (s == null || s.ref == null || s.ref.isBlank() || s.kind == null) out.add(f);
    }
    return out;
  }

  private void check(boolean ok, String msg) {
    if (!ok) throw new UsageException("profile " + name + ": " + msg);
  }

  // ---------------------------------------------------------------- catalogue and files

  private static final String CATALOGUE = "/io/smetric/audit/replay/profiles/";
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
      .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  /** Names of the shipped profiles, in catalogue order. */
  public static List<String> catalogue() {
    try (InputStream in = ModelProfile.class.getResourceAsStream(CATALOGUE + "index.txt")) {
      if (in == null) throw new IllegalStateException("profile catalogue missing from the class path");
      List<String> names = new ArrayList<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String l = line.strip();
        if (!l.isEmpty() && !l.startsWith("#")) names.add(l);
      }
      return names;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final Map<String, ModelProfile> LOADED = new java.util.concurrent.ConcurrentHashMap<>();

  /** A shipped profile by name (read once; the value is immutable, so every caller shares it). */
  public static ModelProfile named(String name) {
    ModelProfile p = LOADED.computeIfAbsent(name, n -> {
      if (!catalogue().contains(n)) {
        throw new UsageException("unknown profile '" + n + "' (shipped: " + String.join(", ", catalogue())
            + "; or give a JSON/YAML file)");
      }
      try (InputStream in = ModelProfile.class.getResourceAsStream(CATALOGUE + n + ".yaml")) {
        if (in == null) throw new IllegalStateException("profile " + n + " listed but missing");
        ModelProfile q = YAML.readValue(in, ModelProfile.class);
        q.validate();
        return q;
      } catch (IOException e) {
        throw new IllegalStateException("shipped profile " + n + " does not parse: " + e.getMessage(), e);
      }
    });
    return p;
  }

  /** The default profile (the paper's model and GPU). */
  public static ModelProfile defaultProfile() {
    return named(DEFAULT_NAME);
  }

  /** A shipped profile's name, or a JSON/YAML file's path. */
  public static ModelProfile resolve(String nameOrFile) {
    Path f = Path.of(nameOrFile);
    if (Files.isRegularFile(f)) return load(f);
    if (nameOrFile.contains("/") || nameOrFile.endsWith(".json") || nameOrFile.endsWith(".yaml")
        || nameOrFile.endsWith(".yml")) {
      throw new UsageException("profile file not found: " + nameOrFile);
    }
    return named(nameOrFile);
  }

  /** Reads a profile file (JSON, or YAML by extension); unknown fields are an error. */
  public static ModelProfile load(Path file) {
    String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
    ObjectMapper m = n.endsWith(".yaml") || n.endsWith(".yml") ? YAML : JSON;
    ModelProfile p;
    try {
      p = m.readValue(Files.readAllBytes(file), ModelProfile.class);
    } catch (IOException e) {
      throw new UsageException("cannot read profile " + file + ": " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (p == null) throw new UsageException("profile " + file + " is empty");
    p.validate();
    return p;
  }

  public String toYaml() {
    try {
      return YAML.writerWithDefaultPrettyPrinter().writeValueAsString(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public String toJson() {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
