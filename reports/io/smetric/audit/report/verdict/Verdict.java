package io.smetric.audit.report.verdict;

import java.util.List;

/** The audit's answer: outcome, one plain sentence, the conditions it depends on, the evidence. */
public record Verdict(Outcome outcome, String sentence, List<String> conditions, List<CriterionResult> results) {}
