package io.smetric.audit.replay.derive;

import io.smetric.audit.common.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One GPU's datasheet figures (measurements/facts/gpus.csv, a source for every row): memory, peak
 * memory bandwidth, BF16 dense tensor peak and GPU-to-GPU interconnect, per GPU.
 */
public record GpuSpec(String name, List<String> aliases, double memoryGB, double hbmGBps, double bf16Tflops,
    String interconnect, double interconnectGBps, String source) {

  static final String TABLE = "/io/smetric/audit/replay/measurements/facts/gpus.csv";

  /** Every GPU of the table, in file order. */
  public static List<GpuSpec> table() {
    try (InputStream in = GpuSpec.class.getResourceAsStream(TABLE)) {
      if (in == null) throw new IllegalStateException("GPU table missing from the class path: " + TABLE);
      List<GpuSpec> out = new ArrayList<>();
      boolean header = true;
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (line.isBlank() || line.startsWith("#")) continue;
        if (header) {
          header = false;
          continue;
        }
        List<String> f = fields(line);
        if (f.size() != 8) throw new IllegalStateException(TABLE + ": expected 8 fields in " + line);
        out.add(new GpuSpec(f.get(0), List.of(f.get(1).split("\\|")), Double.parseDouble(f.get(2)), Double.parseDouble(f.get(3)),
            Double.parseDouble(f.get(4)), f.get(5), Double.parseDouble(f.get(6)), f.get(7)));
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A GPU by name or alias, case and separators ignored ("H100", "h100-sxm", "A100 80GB"). */
  public static GpuSpec named(String name) {
    String want = key(name);
    List<String> known = new ArrayList<>();
    for (GpuSpec g : table()) {
      known.add(g.name());
      if (key(g.name()).equals(want)) return g;
      for (String a : g.aliases()) if (key(a).equals(want)) return g;
    }
    throw new UsageException("unknown GPU '" + name + "' (the table, measurements/facts/gpus.csv: " + String.join(", ", known) + ")");
  }

  /** Memory of one GPU in GiB (the vendor's GB are 10^9 bytes). */
  public double memoryGiB() {
    return memoryGB * 1e9 / (1L << 30);
  }

  private static String key(String s) {
    return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
  }

  /** CSV fields; a field in double quotes may hold commas. */
  private static List<String> fields(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder b = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (ch == '"') quoted = !quoted;
      else if (ch == ',' && !quoted) {
        out.add(b.toString());
        b.setLength(0);
      } else b.append(ch);
    }
    out.add(b.toString());
    return out;
  }
}
