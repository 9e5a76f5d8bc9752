package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.Canonical;
import io.smetric.audit.measured.MeasuredCache;
import io.smetric.audit.testing.TestSpark;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real samples of every new format through the commands: {@code hash} over all of them at once
 * (privacy: no 12-character fragment of any input string in any output, Parquet read back as
 * values), and {@code audit} of the mini-SWE-agent sample, whose report gets the measured-against-
 * predicted section.
 */
class RealLogsTest {
  static final Path RAW = HashCommandTest.REPO.resolve("sample-traces/raw-logs");
  static final List<String> NEW_FORMATS = List.of("mini-swe-agent", "claude-code", "codex", "otel-genai", "openai-gateway");
  static final String SALT = "real-logs test salt 0123456789";

  @TempDir static Path dir;

  @BeforeAll
  static void shareTheTestSession() {
    TestSpark.get();
  }

  static Path salt() throws Exception {
    Path p = dir.resolve("salt");
    Files.writeString(p, SALT);
    return p;
  }

  @Test
  void hash_allNewFormats_noInputFragmentInAnyOutput() throws Exception {
    Path out = dir.resolve("hashed");
    List<String> args = new ArrayList<>(List.of("hash"));
    for (String f : NEW_FORMATS) args.add(RAW.resolve(f).toString());
    args.addAll(List.of("--salt-file", salt().toString(), "--out", out.toString(), "--jsonl"));
    HashCommandTest.Run r = HashCommandTest.run(args.toArray(new String[0]));
    assertEquals(ExitCodes.OK, r.code(), r.err());
    // 73 mini-swe-agent + 4 claude-code + 69 codex (3 + 66) + 5 spans + 1 LiteLLM payload
    assertTrue(r.out().contains("hashed 152 requests"), r.out());
    assertTrue(r.out().contains("provider cache (deepseek, 64-token units): 73 request(s)"), r.out());

    // the measured-cache outputs are scanned too
    SparkSession spark = TestSpark.get();
    MeasuredCache.Result m = MeasuredCache.compute(spark.read().schema(Canonical.SCHEMA).parquet(out.resolve("trace").toString()));
    m.perRequest().write().parquet(out.resolve("measured/requests").toString());
    Files.writeString(out.resolve("measured/summary.json"), Json.MAPPER.writeValueAsString(m.summary()));
    m.perRequest().unpersist();

    Set<String> fragments = new HashSet<>();
    try (Stream<Path> s = Files.walk(RAW)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        String n = p.toString();
        if (!NEW_FORMATS.stream().anyMatch(f -> n.contains("/" + f + "/")) || n.endsWith("LICENSE") || n.endsWith(".md")) continue;
        try (InputStream in = n.endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(p)) : Files.newInputStream(p)) {
          String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          for (String line : n.contains(".jsonl") ? text.split("\n") : new String[] {text}) {
            if (!line.isBlank()) collect(Json.MAPPER.readTree(line), fragments);
          }
        }
      }
    }
    windows(SALT, fragments);
    assertTrue(fragments.size() > 100_000, "fragments: " + fragments.size());
    List<String> found = new ArrayList<>();
    try (Stream<Path> s = Files.walk(out)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".crc") || name.startsWith("_")) continue;
        if (name.endsWith(".parquet")) {
          for (Row row : spark.read().parquet(f.toString()).collectAsList()) scan(name, row.toString(), fragments, found);
        } else if (name.endsWith(".json") || name.endsWith(".jsonl")) {
          String text = Files.readString(f);
          for (String line : name.endsWith(".jsonl") ? text.split("\n") : new String[] {text}) {
            values(Json.MAPPER.readTree(line), "", out, fragments, found, name);
          }
        } else {
          scan(name, Files.readString(f, StandardCharsets.ISO_8859_1), fragments, found);
        }
      }
    }
    assertEquals(List.of(), found);
  }

  @Test
  void audit_miniSweAgentSample_reportsMeasuredAgainstPredicted() throws Exception {
    Path out = dir.resolve("audit");
    HashCommandTest.Run r = HashCommandTest.run("audit", RAW.resolve("mini-swe-agent").toString(), "--salt-file", salt().toString(),
        "--out", out.toString(), "--instances", "1", "--no-replay");
    assertEquals(ExitCodes.OK, r.code(), r.err());
    JsonNode s = Json.MAPPER.readTree(out.resolve("measured-cache/summary.json").toFile());
    JsonNode ds = s.get("by_provider").get(0);
    assertEquals("deepseek", ds.get("provider_cache").asText());
    assertEquals(73, ds.get("requests").asLong());
    // the provider's own numbers, summed from the two files' usage objects (PROVENANCE.md)
    assertEquals(294301 + 459075, ds.get("provider_input_tokens").asLong());
    assertEquals(284672 + 446400, ds.get("provider_cached_tokens").asLong());
    assertEquals((284672.0 + 446400) / (294301 + 459075), ds.get("measured_ratio").asDouble(), 1e-12);
    String html = Files.readString(out.resolve("index.html"));
    assertTrue(html.contains("Measured against predicted prefix-cache hits"));
    assertTrue(html.contains("measured-vs-predicted.png"));
    byte[] png = Files.readAllBytes(out.resolve("measured-vs-predicted.png"));
    assertEquals((byte) 0x89, png[0]);
    assertEquals('P', png[1]);
    JsonNode audit = Json.MAPPER.readTree(out.resolve("audit.json").toFile());
    assertEquals(73, audit.at("/measured_cache/by_provider/0/requests").asLong());
    // what the logs lacked is a finding
    boolean said = false;
    for (JsonNode f : audit.get("data_quality_findings")) said |= f.asText().contains("the tool schemas sent with each request are not in the log");
    assertTrue(said, audit.get("data_quality_findings").toString());
  }

  static final int W = 12;

  static void windows(String s, Set<String> out) {
    for (int i = 0; i + W <= s.length(); i++) out.add(s.substring(i, i + W));
  }

  static void collect(JsonNode n, Set<String> out) {
    if (n.isTextual()) windows(n.asText(), out);
    else if (n.isContainerNode()) {
      n.fields().forEachRemaining(e -> collect(e.getValue(), out));
      if (n.isArray()) for (JsonNode c : n) collect(c, out);
    }
  }

  static void scan(String where, String text, Set<String> fragments, List<String> found) {
    for (int i = 0; i + W <= text.length(); i++) {
      String w = text.substring(i, i + W);
      if (fragments.contains(w)) found.add(where + ": " + w);
    }
  }

  /** String values of an output JSON; the input paths the summary names on purpose and the tool's own vocabulary are left out. */
  static void values(JsonNode n, String key, Path out, Set<String> fragments, List<String> found, String where) {
    if (n.isTextual()) {
      if (Set.of("file", "what", "rule", "hash", "format", "formats_that_fit", "log_format", "granularity", "contract", "tokenizer").contains(key)) return;
      scan(where + " " + key, n.asText(), fragments, found);
    } else if (n.isObject()) {
      n.fields().forEachRemaining(e -> values(e.getValue(), e.getKey(), out, fragments, found, where));
    } else if (n.isArray()) {
      for (JsonNode c : n) values(c, key, out, fragments, found, where);
    }
  }
}
