package io.smetric.audit.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until the ingest stage lands. */
@Command(name = "ingest", mixinStandardHelpOptions = true, description = "(not yet implemented)")
public final class IngestCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new UnsupportedOperationException("ingest is not implemented yet");
  }
}
