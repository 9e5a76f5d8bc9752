package io.smetric.audit.replay.policy;

/**
 * LMetric (arXiv 2603.15202; Dynamo port in ai-dynamo/dynamo PR 11028): argmin over instances of
 * (new prefill tokens if routed there) x (batch size + 1). The +1 keeps an empty instance from
 * scoring 0 whatever its miss (the zero-product tie the anchors warn about). Batch size = requests
 * in flight on the instance. Ties: fewer new prefill tokens, then fewer requests, then round robin.
 */
public final class LMetricPolicy extends ScoringPolicy {
  @Override
  int score(ClusterView v, int n) {
    long bestScore = Long.MAX_VALUE;
    long bestMiss = Long.MAX_VALUE;
    long bestReq = Long.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      long miss = v.inputTokens() - v.localHitTokens(i);
      long score = miss * (v.requests(i) + 1L);
      long req = v.requests(i);
      if (score < bestScore || (score == bestScore && (miss < bestMiss || (miss == bestMiss && req < bestReq)))) {
        bestScore = score;
        bestMiss = miss;
        bestReq = req;
      }
    }
    for (int i = 0; i < n; i++) {
      long miss = v.inputTokens() - v.localHitTokens(i);
      boolean tied = miss * (v.requests(i) + 1L) == bestScore && miss == bestMiss && v.requests(i) == bestReq;
      key[i] = tied ? 0 : 1;
    }
    return tie.roundRobinArgmin(key, n);
  }
}
