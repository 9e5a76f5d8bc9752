package io.smetric.audit.common;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The tool version, filtered into smetric-version.properties by the build. */
public final class BuildInfo {
  private BuildInfo() {}

  public static String version() {
    try (InputStream in = BuildInfo.class.getResourceAsStream("/smetric-version.properties")) {
      Properties p = new Properties();
      if (in != null) p.load(in);
      return p.getProperty("version", "dev");
    } catch (IOException e) {
      return "dev";
    }
  }
}
