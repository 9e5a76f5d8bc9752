package io.smetric.audit.testing;

import io.smetric.audit.replay.ModelProfile;

/** Model profiles with step costs a test can work out by hand (the shipped profiles change with calibration). */
public final class Profiles {
  private Profiles() {}

  /**
   * The default profile's memory, KV geometry and engine limits, with a linear step cost and no
   * bandwidth terms: step = a + b x tokens + e x pairs + c x decoding sequences + d x context.
   */
  public static ModelProfile linear(double a, double b, double e, double c, double d) {
    ModelProfile.Builder p = ModelProfile.defaultProfile().toBuilder();
    p.name = "test-linear";
    p.stepBaseS = a;
    p.prefillPerTokenS = b;
    p.prefillAttentionPerPairS = e;
    p.decodePerSeqS = c;
    p.decodePerContextTokenS = d;
    p.hbmGBps = 0; // no weight or KV read terms
    p.denseWeightGB = 0;
    p.expertWeightGB = 0;
    p.experts = 0;
    p.expertsPerToken = 0;
    p.frontendLatencyS = 0;
    p.globalLookupLatencyS = 0.001;
    p.globalReadGBps = 25;
    p.globalSaveGBps = Double.POSITIVE_INFINITY;
    p.globalSaveBlocksStep = false;
    return p.build();
  }

  /** The profile the replay tests were written against: the old spec-sheet estimate's coefficients. */
  public static ModelProfile estimate() {
    return linear(0.015, 1.1e-4, 1.3e-8, 2.0e-4, 2.5e-8);
  }
}
