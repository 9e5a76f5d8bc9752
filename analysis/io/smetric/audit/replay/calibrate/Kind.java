package io.smetric.audit.replay.calibrate;

/** What one measurement is: one request on an idle engine, a load stage, or one engine step. */
public enum Kind { SINGLE_REQUEST, LOAD_STAGE, STEP }
