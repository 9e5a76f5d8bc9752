package io.smetric.audit.infer;

import io.smetric.audit.common.UsageException;
import java.io.Serializable;

/**
 * Parameters of the inference rule (docs/session-inference.md).
 *
 * @param windowS a parent must have arrived at most this many seconds before its child; also the
 *     expiry of every index entry, so memory is bounded by the requests of one window
 * @param templateFanout a block after which at least this many distinct full blocks were founded
 *     independently over the whole trace (not by one request's own sub-agents, see TemplateBlocks)
 *     ends a template (shared system prompt); a match that lies entirely inside a template does
 *     not link two requests
 */
public record InferenceOptions(double windowS, int templateFanout) implements Serializable {
  public static final double DEFAULT_WINDOW_S = 3600;
  public static final int DEFAULT_TEMPLATE_FANOUT = 8;
  /** Name written into summaries, so reports can say how sessions were obtained. */
  public static final String METHOD = "prefix-continuation-v2";

  public InferenceOptions {
    if (!(windowS > 0) || Double.isInfinite(windowS)) throw new UsageException("--window-s must be a positive number of seconds, got " + windowS);
    if (templateFanout < 2) throw new UsageException("--template-fanout must be >= 2, got " + templateFanout);
  }

  public static InferenceOptions defaults() {
    return new InferenceOptions(DEFAULT_WINDOW_S, DEFAULT_TEMPLATE_FANOUT);
  }
}
