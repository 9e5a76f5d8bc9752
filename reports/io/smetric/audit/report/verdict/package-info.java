/**
 * The verdict engine: declarative criteria (metric, bound, level, paper source, hint) judged on
 * an audit's metrics, Deequ style; the verdict is the worst failed level, and a criterion the
 * trace cannot support is "not applicable" with its reason, which makes a verdict inconclusive.
 */
package io.smetric.audit.report.verdict;
