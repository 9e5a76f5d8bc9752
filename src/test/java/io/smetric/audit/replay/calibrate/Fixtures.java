package io.smetric.audit.replay.calibrate;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Paths of the reader fixtures under src/test/resources/calibrate (PROVENANCE.md there). */
final class Fixtures {
  private Fixtures() {}

  static Path resource(String rel) {
    try {
      var url = Fixtures.class.getResource("/calibrate/" + rel);
      if (url == null) throw new IllegalStateException("missing test resource calibrate/" + rel);
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static Path write(Path dir, String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }
}
