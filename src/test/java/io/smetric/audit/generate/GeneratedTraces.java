package io.smetric.audit.generate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** Test helpers: generate a trace with the library API and read its lines back as JSON trees. */
final class GeneratedTraces {
  private GeneratedTraces() {}

  static final ObjectMapper M = new ObjectMapper();

  static WorkloadGenerator generator(Preset p, long seed, int blockSize) {
    return generator(p.config(), seed, blockSize);
  }

  static WorkloadGenerator generator(GeneratorConfig c, long seed, int blockSize) {
    double rate = 32 * c.get(Param.REQUESTS_PER_INSTANCE_MINUTE) / 60.0 / c.expectedRequestsPerRootSession();
    return new WorkloadGenerator(c, seed, blockSize, rate);
  }

  static Path write(Path dir, String name, Preset p, long seed, long n, OutputFormat f, int blockSize) {
    return write(dir, name, p.config(), seed, n, f, blockSize);
  }

  static Path write(Path dir, String name, GeneratorConfig c, long seed, long n, OutputFormat f, int blockSize) {
    try {
      Path out = dir.resolve(name);
      TraceGeneration.write(generator(c, seed, blockSize), n, f, out, false);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<JsonNode> lines(Path file) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        file.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file)) : Files.newInputStream(file),
        StandardCharsets.UTF_8))) {
      List<JsonNode> l = new ArrayList<>();
      for (String s; (s = r.readLine()) != null; ) l.add(M.readTree(s));
      return l;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long[] ids(JsonNode n) {
    JsonNode a = n.get("hash_ids");
    long[] ids = new long[a.size()];
    for (int i = 0; i < ids.length; i++) ids[i] = a.get(i).asLong();
    return ids;
  }

  static int commonPrefix(long[] a, long[] b) {
    int k = 0;
    while (k < a.length && k < b.length && a[k] == b[k]) k++;
    return k;
  }
}
