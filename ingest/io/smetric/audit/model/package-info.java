/**
 * The canonical trace model shared by every stage: the request record and its Spark schema
 * (docs/trace-model.md section 1) and the prefix-chaining of block ids.
 */
package io.smetric.audit.model;
