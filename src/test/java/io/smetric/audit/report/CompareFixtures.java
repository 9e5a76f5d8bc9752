package io.smetric.audit.report;

import java.io.IOException;
import java.nio.file.Path;

/** Audit folders for the compare tests (the fixture is package-private; the CLI test lives in cli). */
public final class CompareFixtures {
  private CompareFixtures() {}

  /** The AuditFixture defaults: fits with conditions. */
  public static Path agentAudit(Path dir) throws IOException {
    return new AuditFixture().write(dir);
  }

  /** Ideal reuse 55% (< 70%: does not fit), no replay. */
  public static Path chatAuditWithoutReplay(Path dir) throws IOException {
    AuditFixture f = new AuditFixture();
    f.reuse = 0.55;
    f.withReplay = false;
    return f.write(dir);
  }
}
