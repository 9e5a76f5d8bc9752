package io.smetric.audit.replay.derive;

import io.smetric.audit.common.UsageException;
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
    List<GpuSpec> out = new ArrayList<>();
    for (List<String> f : ResourceTable.rows(TABLE, 8)) {
      out.add(new GpuSpec(f.get(0), List.of(f.get(1).split("\\|")), Double.parseDouble(f.get(2)), Double.parseDouble(f.get(3)),
          Double.parseDouble(f.get(4)), f.get(5), Double.parseDouble(f.get(6)), f.get(7)));
    }
    return out;
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

}
