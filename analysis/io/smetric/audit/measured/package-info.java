/**
 * Predicted against provider-measured prefix-cache hits (trace-model section 9): a Spark job over
 * a canonical trace whose requests carry the provider's cache accounting. A stage of its own: it
 * imports only the hub; the CLI runs it (hash, audit) and writes its output under
 * {@code measured-cache/}, which the report reads by the names in the contract.
 */
package io.smetric.audit.measured;
