package io.smetric.audit.replay.policy;

import java.util.SplittableRandom;

/** Uniform random instance (Vidur's random scheduler), from a fixed seed so runs repeat. */
public final class RandomPolicy implements Policy {
  private final SplittableRandom rnd;

  public RandomPolicy(long seed) {
    this.rnd = new SplittableRandom(seed);
  }

  @Override
  public int route(ClusterView v) {
    return rnd.nextInt(v.instances());
  }
}
