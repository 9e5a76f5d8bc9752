package io.smetric.audit.report;

import io.smetric.audit.common.Json;
import io.smetric.audit.common.OutputDir;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * What {@code validate} writes beside its console report: validation.json, which names the chart
 * of the replay's errors by load decile drawn beside it ({@link ValidationChart}). The command
 * owns the folder (opens and commits it); this writes into it.
 */
public final class ValidationReport {
  public static final String JSON = "validation.json";
  public static final String CHART = "validation-error-by-load.png";

  private ValidationReport() {}

  /**
   * Draws the chart and writes validation.json ({@code json}, with the chart's name added) into
   * {@code dir}. {@code byDecile}: per load decile, the TTFT median error, TTFT p90 |error|, end-to-end
   * median error and end-to-end p90 |error| (validate's TraceValidation.Result.errorsByLoadDecile).
   */
  public static void write(ObjectNode json, double[][] byDecile, OutputDir dir) {
    double[][] m = byDecile;
    try (OutputStream os = dir.create(CHART)) {
      os.write(ValidationChart.byLoadDecile(m[0], m[1], m[2], m[3]));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    json.put("chart", CHART);
    try {
      dir.writeString(JSON, Json.MAPPER.writeValueAsString(json));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
