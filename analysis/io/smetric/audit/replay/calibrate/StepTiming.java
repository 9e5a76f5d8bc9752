package io.smetric.audit.replay.calibrate;

/**
 * One engine step as a per-step timing table records it: uncached prefill tokens, prefill
 * attention pairs (sum over chunks of P x (L + P/2) for a chunk of P tokens after L cached ones),
 * decoding sequences, their summed context tokens, and the step's duration in seconds.
 */
public record StepTiming(int prefillTokens, double prefillPairs, int decodeSeqs, long decodeContextTokens,
    double stepS) {}
