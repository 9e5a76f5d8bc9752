package io.smetric.audit.replay.calibrate;

import io.smetric.audit.common.BadInputException;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-step engine timings, CSV with a header: {@code prefill_tokens}, {@code decode_seqs},
 * {@code decode_context_tokens}, {@code step_s} required; {@code prefill_pairs} (prefill attention
 * pairs, see {@link StepTiming}; 0 when absent), {@code group}, {@code id}, {@code source} optional.
 */
final class StepTimingCsv {
  static final String[] REQUIRED = {"prefill_tokens", "decode_seqs", "decode_context_tokens", "step_s"};

  private StepTimingCsv() {}

  static boolean looksLike(Csv csv) {
    return csv.has("step_s");
  }

  static List<Measurement> read(String file, String text) {
    Csv csv = new Csv(file, text);
    for (String c : REQUIRED) {
      if (!csv.has(c)) throw new BadInputException(file, 1, c, "a per-step timing table needs this column; header is " + csv.header);
    }
    String stem = SingleRequestCsv.stem(file);
    List<Measurement> out = new ArrayList<>();
    for (int r = 0; r < csv.rows.size(); r++) {
      int line = csv.lines.get(r);
      int prefill = csv.requiredInt(r, "prefill_tokens", 0);
      int seqs = csv.requiredInt(r, "decode_seqs", 0);
      double ctx = csv.nonNegative(r, "decode_context_tokens");
      if (Double.isNaN(ctx)) throw new BadInputException(file, line, "decode_context_tokens", "missing");
      if (ctx != Math.rint(ctx)) throw new BadInputException(file, line, "decode_context_tokens", "not an integer: " + csv.get(r, "decode_context_tokens"));
      double pairs = csv.nonNegative(r, "prefill_pairs");
      double step = csv.positive(r, "step_s");
      if (Double.isNaN(step)) throw new BadInputException(file, line, "step_s", "missing");
      if (prefill == 0 && seqs == 0) throw new BadInputException(file, line, null, "a step with no prefill tokens and no decoding sequences");
      String group = csv.get(r, "group") != null ? csv.get(r, "group") : stem;
      String id = csv.get(r, "id") != null ? csv.get(r, "id") : file + ":" + line;
      String source = csv.get(r, "source") != null ? csv.get(r, "source") : file + ":" + line;
      out.add(new Measurement(id, source, group, Kind.STEP, EngineConfig.UNKNOWN, null, Metrics.NONE,
          new StepTiming(prefill, Double.isNaN(pairs) ? 0 : pairs, seqs, (long) ctx, step)));
    }
    if (out.isEmpty()) throw new BadInputException(file, "no data rows after the header");
    return out;
  }
}
