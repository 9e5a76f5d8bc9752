/**
 * Routing policies and their registry. Each policy class names its source in its Javadoc and sees
 * only a {@link io.smetric.audit.replay.policy.ClusterView}: what a real router knows at that moment.
 */
package io.smetric.audit.replay.policy;
