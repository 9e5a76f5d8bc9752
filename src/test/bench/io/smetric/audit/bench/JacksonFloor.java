package io.smetric.audit.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * The practical floor for ingest: one thread, Jackson's streaming parser, every field of every
 * line read (block ids into a reused primitive list), nothing written. Usage:
 * {@code JacksonFloor FILE [FILE...]}. Prints records, block ids and seconds.
 */
public final class JacksonFloor {
  public static void main(String[] args) throws Exception {
    JsonFactory f = new JsonFactory();
    long t0 = System.nanoTime();
    long records = 0;
    long ids = 0;
    long checksum = 0;
    LongArrayList blocks = new LongArrayList();
    for (String file : args) {
      InputStream raw = new FileInputStream(file);
      InputStream in = file.endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16)) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.isBlank()) continue;
          try (JsonParser p = f.createParser(line)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              JsonToken v = p.nextToken();
              if (v == JsonToken.START_ARRAY) {
                blocks.clear();
                while (p.nextToken() != JsonToken.END_ARRAY) blocks.add(p.getLongValue());
                ids += blocks.size();
                if (!blocks.isEmpty()) checksum += blocks.getLong(blocks.size() - 1);
              } else if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
                checksum += (long) p.getDoubleValue();
              } else if (v == JsonToken.VALUE_STRING) {
                checksum += p.getText().length();
              } else {
                p.skipChildren();
              }
            }
          }
          records++;
        }
      }
    }
    double s = (System.nanoTime() - t0) / 1e9;
    System.out.printf(Locale.ROOT, "jackson-floor: %d records, %d block ids, %.2f s (checksum %d)%n", records, ids, s, checksum);
  }
}
