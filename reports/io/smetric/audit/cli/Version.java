package io.smetric.audit.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The tool version, filtered into smetric-version.properties by the build. */
public final class Version implements IVersionProvider {
  public static String get() {
    try (InputStream in = Version.class.getResourceAsStream("/smetric-version.properties")) {
      Properties p = new Properties();
      if (in != null) p.load(in);
      return p.getProperty("version", "dev");
    } catch (IOException e) {
      return "dev";
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {"smetric-audit " + get()};
  }
}
