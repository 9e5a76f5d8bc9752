package io.smetric.audit.replay.calibrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.smetric.audit.common.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the measurement files users have into {@link Measurement}s, recognising the format from
 * the file (docs/validation.md, "Formats"):
 *
 * <ul>
 *   <li>{@link Format#SINGLE_REQUEST_CSV}: a table of single requests ({@code input_tokens},
 *       {@code output_tokens} and any of {@code ttft_s}, {@code e2e_s}, {@code tokens_per_s},
 *       {@code tpot_s});
 *   <li>{@link Format#STEP_TIMING_CSV}: per-step engine timings ({@code step_s} column);
 *   <li>{@link Format#VLLM_BENCH_JSON}: {@code vllm bench serve} / {@code benchmark_serving.py}
 *       results;
 *   <li>{@link Format#INFERENCE_PERF}: inference-perf {@code stage_<N>_lifecycle_metrics.json} with
 *       the run's {@code config.yaml} beside it, or a results folder;
 *   <li>{@link Format#GUIDELLM}: GuideLLM {@code benchmarks.json} (or .yaml);
 *   <li>{@link Format#MEASUREMENT_SET}: the project's normalised {@code smetric-measurements/1} JSON
 *       (the shipped sets under {@code io/smetric/audit/replay/measurements/}).
 * </ul>
 *
 * Bad input raises {@link BadInputException} naming the file and the line (CSV) or the JSON path.
 */
public final class MeasurementReader {
  /** The classpath folder of the shipped measurement sets. */
  public static final String RESOURCE_ROOT = "/io/smetric/audit/replay/measurements/";

  public enum Format { SINGLE_REQUEST_CSV, STEP_TIMING_CSV, VLLM_BENCH_JSON, INFERENCE_PERF, GUIDELLM, MEASUREMENT_SET }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final SharedPrefixWorkload.MultiTurn inferencePerfMultiTurn;

  public MeasurementReader() {
    this(null);
  }

  /**
   * A reader that replays inference-perf multi-turn runs with the given prompt construction
   * instead of the one guessed from the config's keys (the keys cannot tell every version apart).
   */
  public MeasurementReader(SharedPrefixWorkload.MultiTurn inferencePerfMultiTurn) {
    this.inferencePerfMultiTurn = inferencePerfMultiTurn;
  }

  /** Reads one file or folder with the default reader. */
  public static List<Measurement> read(Path path) {
    return new MeasurementReader().readPath(path);
  }

  /** Reads several files or folders, in order. */
  public List<Measurement> readAll(List<Path> paths) {
    List<Measurement> out = new ArrayList<>();
    for (Path p : paths) out.addAll(readPath(p));
    return out;
  }

  public List<Measurement> readPath(Path path) {
    String file = path.toString();
    if (Files.isDirectory(path)) {
      List<Path> stages = InferencePerfReport.stageFiles(path);
      if (stages.isEmpty()) {
        throw new BadInputException(file, "a folder is read as an inference-perf results folder, but it has no"
            + " stage_<N>_lifecycle_metrics.json (nor its results/ subfolder)");
      }
      List<Measurement> out = new ArrayList<>();
      for (Path s : stages) out.add(InferencePerfReport.read(s, inferencePerfMultiTurn));
      return out;
    }
    if (!Files.isRegularFile(path)) throw new BadInputException(file, "no such file or folder");
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    if (InferencePerfReport.stageIndex(path) >= 0) return List.of(InferencePerfReport.read(path, inferencePerfMultiTurn));
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (IOException e) {
      throw new BadInputException(file, "cannot read: " + e.getMessage());
    }
    List<Measurement> ms = readBytes(file, name, bytes);
    if (ms != null) return ms;
    JsonNode tree = InferencePerfReport.parse(JSON, path);
    if (InferencePerfReport.looksLike(tree)) {
      throw new BadInputException(file, "an inference-perf report, but not a stage file (stage_<N>_lifecycle_metrics.json):"
          + " the summary mixes stages and cannot be replayed");
    }
    throw unknown(file);
  }

  /** Reads a shipped set, e.g. {@code "inference-sim-h100/runs.json"} (see measurements/index.txt). */
  public static List<Measurement> readResource(String name) {
    String res = RESOURCE_ROOT + name;
    try (InputStream in = MeasurementReader.class.getResourceAsStream(res)) {
      if (in == null) throw new BadInputException(res, "no such shipped measurement set (see " + RESOURCE_ROOT + "index.txt)");
      List<Measurement> ms = new MeasurementReader().readBytes(res, name.toLowerCase(Locale.ROOT), in.readAllBytes());
      if (ms == null) throw unknown(res);
      return ms;
    } catch (IOException e) {
      throw new BadInputException(res, "cannot read: " + e.getMessage());
    }
  }

  /** The shipped measurement files listed in {@code measurements/index.txt}. */
  public static List<String> shippedSets() {
    try (InputStream in = MeasurementReader.class.getResourceAsStream(RESOURCE_ROOT + "index.txt")) {
      if (in == null) return List.of();
      List<String> out = new ArrayList<>();
      for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\r?\n")) {
        String t = l.trim();
        if (!t.isEmpty() && !t.startsWith("#")) out.add(t);
      }
      return out;
    } catch (IOException e) {
      throw new BadInputException(RESOURCE_ROOT + "index.txt", "cannot read: " + e.getMessage());
    }
  }

  /** The format of a file (without reading it as measurements), or a BadInputException. */
  public static Format detect(Path path) {
    if (Files.isDirectory(path) || InferencePerfReport.stageIndex(path) >= 0) return Format.INFERENCE_PERF;
    String file = path.toString();
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    try {
      Format f = detect(file, name, Files.readAllBytes(path));
      if (f == null) throw unknown(file);
      return f;
    } catch (IOException e) {
      throw new BadInputException(file, "cannot read: " + e.getMessage());
    }
  }

  private static Format detect(String file, String name, byte[] bytes) {
    if (name.endsWith(".csv")) {
      Csv csv = new Csv(file, new String(bytes, StandardCharsets.UTF_8));
      if (StepTimingCsv.looksLike(csv)) return Format.STEP_TIMING_CSV;
      if (SingleRequestCsv.looksLike(csv)) return Format.SINGLE_REQUEST_CSV;
      throw new BadInputException(file, 1, null, "a CSV measurement table needs either input_tokens, output_tokens and one of"
          + " ttft_s/e2e_s/tokens_per_s/tpot_s (single requests) or step_s (per-step timings); header is " + csv.header);
    }
    JsonNode n = tree(file, name, bytes);
    if (MeasurementSetJson.looksLike(n)) return Format.MEASUREMENT_SET;
    if (GuideLlmJson.looksLike(n)) return Format.GUIDELLM;
    if (VllmBenchJson.looksLike(n)) return Format.VLLM_BENCH_JSON;
    return null;
  }

  /** Reads a file's bytes; null if it is JSON of no known kind (the caller words the error). */
  private List<Measurement> readBytes(String file, String name, byte[] bytes) {
    Format f = detect(file, name, bytes);
    if (f == null) return null;
    String text = new String(bytes, StandardCharsets.UTF_8);
    return switch (f) {
      case SINGLE_REQUEST_CSV -> SingleRequestCsv.read(file, text);
      case STEP_TIMING_CSV -> StepTimingCsv.read(file, text);
      case MEASUREMENT_SET -> MeasurementSetJson.read(file, tree(file, name, bytes));
      case GUIDELLM -> GuideLlmJson.read(file, tree(file, name, bytes));
      case VLLM_BENCH_JSON -> VllmBenchJson.read(file, tree(file, name, bytes));
      case INFERENCE_PERF -> throw new IllegalStateException("inference-perf reports are read from their folder");
    };
  }

  private static JsonNode tree(String file, String name, byte[] bytes) {
    ObjectMapper mapper = name.endsWith(".yaml") || name.endsWith(".yml") ? YAML : JSON;
    try {
      JsonNode n = mapper.readTree(bytes);
      if (n == null || n.isMissingNode()) throw new BadInputException(file, "empty file");
      return n;
    } catch (IOException e) {
      throw new BadInputException(file, "cannot parse as " + (mapper == YAML ? "YAML" : "JSON") + ": "
          + InferencePerfReport.firstLine(e.getMessage()));
    }
  }

  private static BadInputException unknown(String file) {
    return new BadInputException(file, "not a measurement format this reader knows: expected a single-request or per-step CSV,"
        + " vllm bench serve result JSON, an inference-perf stage_<N>_lifecycle_metrics.json, GuideLLM benchmarks.json, or"
        + " smetric-measurements/1 JSON (docs/validation.md, Formats)");
  }

  /** Writes measurements as an {@code smetric-measurements/1} JSON file. */
  public static void write(List<Measurement> ms, Path out) {
    try {
      Files.writeString(out, io.smetric.audit.common.Json.MAPPER.writeValueAsString(MeasurementSetJson.write(ms)));
    } catch (IOException e) {
      throw new BadInputException(out.toString(), "cannot write: " + e.getMessage());
    }
  }
}
