package io.smetric.audit.replay;

import java.io.Serializable;

/**
 * One knob of a router configuration as the replay understood it: the router, the knob (the
 * router's own name for it, then the replay setting it sets), the value and where the value came
 * from (a line of the user's file or flag list, or the router's own default with its source).
 */
public record RouterKnob(String router, String knob, String value, String source) implements Serializable {}
