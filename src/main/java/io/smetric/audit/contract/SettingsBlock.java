package io.smetric.audit.contract;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * replay.json's {@code settings} block as the report reads it: the replay's settings, written by
 * the replay as its settings value serialized whole (every knob under its field name; a number
 * Jackson cannot write, such as an infinite OVERLOAD, as the string "Infinity", which reads back as
 * infinity). This record names the knobs the report reads; the page's parameter table lists the
 * whole block as written. The names are the settings' field names, so a test holds every key here
 * to the written JSON (SettingsBlockTest). Unknown fields are ignored.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SettingsBlock(
    @JsonProperty(INSTANCES) Integer instances,
    /** UNIFORM or SESSIONS: how an offered-rate multiplier moves arrivals. */
    @JsonProperty(RATE_SCALING) String rateScaling,
    @JsonProperty(IMBALANCE_WINDOW_S) Double imbalanceWindowS,
    /** The TTFT SLO: base + per input token [s]. */
    @JsonProperty(TTFT_BASE_S) Double ttftBaseS,
    @JsonProperty(TTFT_PER_TOKEN_S) Double ttftPerTokenS,
    @JsonProperty(TPOT_S) Double tpotS,
    /** SMetric's OVERLOAD and HIT_RATIO defaults (the sensitivity curves vary them). */
    @JsonProperty(OVERLOAD) Double overload,
    @JsonProperty(HIT_RATIO) Double hitRatio,
    /** The model profile, as written (the page's profile section reads it field by field). */
    @JsonProperty(PROFILE) JsonNode profile) {

  /** The block's name in replay.json. */
  public static final String BLOCK = "settings";
  public static final String INSTANCES = "instances";
  public static final String RATE_SCALING = "rateScaling";
  public static final String IMBALANCE_WINDOW_S = "imbalanceWindowS";
  public static final String TTFT_BASE_S = "ttftBaseS";
  public static final String TTFT_PER_TOKEN_S = "ttftPerTokenS";
  public static final String TPOT_S = "tpotS";
  public static final String OVERLOAD = "overload";
  public static final String HIT_RATIO = "hitRatio";
  public static final String PROFILE = "profile";
  /** The rate scaling that keeps each session tree's own time between turns. */
  public static final String SESSIONS = "SESSIONS";

  /** The block in replay.json; null when replay.json (or its block) is missing or not an object. */
  public static SettingsBlock of(JsonNode replay) {
    return ContractJson.block(replay, BLOCK, SettingsBlock::read);
  }

  /** Reads one block; {@code where} names it in an error. */
  public static SettingsBlock read(JsonNode n, String where) {
    return ContractJson.read(n, SettingsBlock.class, where, "a settings block");
  }

  /** Whether the replay scaled session-tree starts (rateScaling SESSIONS) rather than every arrival. */
  public boolean sessionScaling() {
    return SESSIONS.equals(rateScaling);
  }

  /** The profile's name, or null. */
  public String profileName() {
    return profile == null || !profile.path("name").isTextual() ? null : profile.path("name").asText();
  }
}
