package io.smetric.audit.replay.policy;

import java.util.Set;

/** How a policy describes itself: registry name, where its rule comes from, its defaults, what it needs. */
public record PolicyInfo(String name, String source, String defaults, Set<Need> needs) {}
