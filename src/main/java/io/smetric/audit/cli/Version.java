package io.smetric.audit.cli;

import io.smetric.audit.common.BuildInfo;
import picocli.CommandLine.IVersionProvider;

/** picocli's --version: the build's version. */
public final class Version implements IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {"smetric-audit " + BuildInfo.version()};
  }
}
