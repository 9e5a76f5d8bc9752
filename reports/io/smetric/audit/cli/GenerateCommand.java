package io.smetric.audit.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder until the generate stage lands. */
@Command(name = "generate", mixinStandardHelpOptions = true, description = "(not yet implemented)")
public final class GenerateCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new UnsupportedOperationException("generate is not implemented yet");
  }
}
