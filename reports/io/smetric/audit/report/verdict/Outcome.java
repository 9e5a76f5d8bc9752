package io.smetric.audit.report.verdict;

import java.util.Locale;

/** The verdict levels; the JSON names are the ones audit.json promises. */
public enum Outcome {
  FITS,
  FITS_WITH_CONDITIONS,
  DOES_NOT_FIT,
  INCONCLUSIVE;

  public String id() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static Outcome parse(String s) {
    for (Outcome o : values()) if (o.id().equalsIgnoreCase(s)) return o;
    throw new io.smetric.audit.common.UsageException(
        "unknown verdict '" + s + "' (expected fits, fits-with-conditions, does-not-fit or inconclusive)");
  }
}
