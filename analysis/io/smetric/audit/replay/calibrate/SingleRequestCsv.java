package io.smetric.audit.replay.calibrate;

import io.smetric.audit.common.BadInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Single-request tables (one request on an idle engine per row), CSV with a header:
 *
 * <ul>
 *   <li>required: {@code input_tokens}, {@code output_tokens};
 *   <li>at least one of {@code ttft_s}, {@code e2e_s}, {@code tokens_per_s}, {@code tpot_s}, where
 *       {@code tokens_per_s} is (input + output tokens) / end-to-end time (the convention of Qwen's
 *       speed benchmark) and {@code tpot_s} the time per output token after the first;
 *   <li>optional: {@code group} (else the file's name), {@code id}, {@code source}, {@code model},
 *       {@code engine}, {@code engine_version}, {@code tp} or {@code gpus} (tensor parallel size),
 *       {@code block_size} (default 16). Other columns are ignored.
 * </ul>
 *
 * If a row gives both {@code e2e_s} and {@code tokens_per_s} they must agree within 1%.
 */
final class SingleRequestCsv {
  static final String[] TIMING = {"ttft_s", "e2e_s", "tokens_per_s", "tpot_s"};

  private SingleRequestCsv() {}

  static boolean looksLike(Csv csv) {
    if (!csv.has("input_tokens") || !csv.has("output_tokens")) return false;
    for (String t : TIMING) if (csv.has(t)) return true;
    return false;
  }

  static List<Measurement> read(String file, String text) {
    Csv csv = new Csv(file, text);
    if (!csv.has("input_tokens") || !csv.has("output_tokens")) {
      throw new BadInputException(file, 1, null, "a single-request table needs the columns input_tokens and output_tokens; header is " + csv.header);
    }
    boolean any = false;
    for (String t : TIMING) any |= csv.has(t);
    if (!any) throw new BadInputException(file, 1, null, "a single-request table needs one of ttft_s, e2e_s, tokens_per_s, tpot_s; header is " + csv.header);
    String stem = stem(file);
    List<Measurement> out = new ArrayList<>();
    for (int r = 0; r < csv.rows.size(); r++) {
      int line = csv.lines.get(r);
      int in = csv.requiredInt(r, "input_tokens", 1);
      int outTok = csv.requiredInt(r, "output_tokens", 1);
      double ttft = csv.positive(r, "ttft_s");
      double e2e = csv.positive(r, "e2e_s");
      double tps = csv.positive(r, "tokens_per_s");
      double tpot = csv.positive(r, "tpot_s");
      List<String> notes = new ArrayList<>();
      if (!Double.isNaN(tps)) {
        double fromRate = (in + outTok) / tps;
        if (!Double.isNaN(e2e) && Math.abs(fromRate - e2e) > 0.01 * e2e) {
          throw new BadInputException(file, line, "tokens_per_s", String.format(Locale.ROOT,
              "(input + output) / tokens_per_s = %.4f s disagrees with e2e_s = %.4f s", fromRate, e2e));
        }
        if (Double.isNaN(e2e)) {
          e2e = fromRate;
          notes.add("e2e = (input_tokens + output_tokens) / tokens_per_s");
        }
      }
      if (Double.isNaN(ttft) && Double.isNaN(e2e) && Double.isNaN(tpot)) {
        throw new BadInputException(file, line, null, "no timing: fill one of ttft_s, e2e_s, tokens_per_s, tpot_s");
      }
      if (!Double.isNaN(ttft) && !Double.isNaN(e2e) && ttft > e2e) {
        throw new BadInputException(file, line, "ttft_s", "time to first token " + ttft + " s exceeds the end-to-end time " + e2e + " s");
      }
      Integer tp = null;
      if (csv.get(r, "tp") != null) tp = csv.requiredInt(r, "tp", 1);
      else if (csv.get(r, "gpus") != null) tp = csv.requiredInt(r, "gpus", 1);
      int blockSize = csv.get(r, "block_size") == null ? 16 : csv.requiredInt(r, "block_size", 1);
      EngineConfig engine = new EngineConfig(csv.get(r, "engine"), csv.get(r, "engine_version"), tp, 1, null, blockSize,
          null, null, null, null, null, null);
      String group = csv.get(r, "group") != null ? csv.get(r, "group") : stem;
      String id = csv.get(r, "id") != null ? csv.get(r, "id") : file + ":" + line;
      String source = csv.get(r, "source") != null ? csv.get(r, "source") : file + ":" + line;
      Metrics m = new Metrics(Stat.ofMean(ttft), Stat.ofMean(tpot), Stat.NONE, Stat.ofMean(e2e), Double.NaN,
          Double.NaN, Double.NaN, 1, 0);
      out.add(new Measurement(id, source, group, Kind.SINGLE_REQUEST, engine,
          new SingleRequestWorkload(in, outTok, blockSize), m, null, csv.get(r, "model"), null, notes));
    }
    if (out.isEmpty()) throw new BadInputException(file, "no data rows after the header");
    return out;
  }

  static String stem(String file) {
    String name = file.replace('\\', '/');
    name = name.substring(name.lastIndexOf('/') + 1);
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }
}
