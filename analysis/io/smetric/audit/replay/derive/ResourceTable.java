package io.smetric.audit.replay.derive;

import io.smetric.audit.common.CsvLine;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A small CSV table shipped on the class path: its data rows (header, blank and # lines skipped). */
final class ResourceTable {
  private ResourceTable() {}

  /** The rows of {@code path}, each with exactly {@code width} fields (else the table is broken: an error naming it). */
  static List<List<String>> rows(String path, int width) {
    try (InputStream in = ResourceTable.class.getResourceAsStream(path)) {
      if (in == null) throw new IllegalStateException("table missing from the class path: " + path);
      List<List<String>> out = new ArrayList<>();
      boolean header = true;
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (line.isBlank() || line.startsWith("#")) continue;
        if (header) {
          header = false;
          continue;
        }
        List<String> f = CsvLine.split(line.strip());
        if (f == null || f.size() != width) throw new IllegalStateException(path + ": expected " + width + " fields in " + line);
        out.add(f);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
