package io.smetric.audit.generate;

import java.io.IOException;

/** Receives generated requests in arrival order (ties in generation order). */
@FunctionalInterface
public interface RequestSink {
  void accept(GeneratedRequest r) throws IOException;
}
