package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.HashSummary;
import io.smetric.audit.hasher.HashJob;
import io.smetric.audit.hasher.HashKey;
import io.smetric.audit.hasher.HashSettings;
import io.smetric.audit.hasher.LogFormat;
import io.smetric.audit.hasher.TokenizerSpec;
import io.smetric.audit.testing.StageRuns;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The block-hasher's warnings and what the logs lacked become findings of the audit report. */
class HashFindingsTest {
  static final Path REPO = Path.of(System.getProperty("smetric.repo", "."));

  @TempDir Path tmp;

  @Test
  void warningsAndSynthesisedInputs_areFindings() throws Exception {
    JsonNode h = Json.MAPPER.readTree("{\"records_read\":5,\"requests\":2,\"sessions\":1,"
        + "\"warnings\":[\"file:/x/a.jsonl: 3 of 4 record(s) skipped (read as openai; top reasons: malformed JSON at column N (3))\"],"
        + "\"per_file\":["
        + "{\"file\":\"a\",\"synthesised\":{\"arrival\":{\"count\":2,\"what\":\"no timestamp in the record: arrival synthesised\"}}},"
        + "{\"file\":\"b\",\"synthesised\":{\"arrival\":{\"count\":1,\"what\":\"no timestamp in the record: arrival synthesised\"},"
        + "\"tool_schemas\":{\"count\":1,\"what\":\"the tool schemas are not in the log\"}}}]}");
    List<String> f = AuditJson.hashFindings(HashSummary.read(h, "test"));
    assertTrue(f.contains("Mostly skipped: file:/x/a.jsonl: 3 of 4 record(s) skipped (read as openai; top reasons: malformed JSON at column N (3))."), f.toString());
    assertTrue(f.contains("Synthesised or missing in 2 file(s), 3 time(s): no timestamp in the record: arrival synthesised."), f.toString());
    assertTrue(f.contains("Synthesised or missing in 1 file(s), 1 time(s): the tool schemas are not in the log."), f.toString());
    assertEquals(1, f.stream().filter(x -> x.startsWith("Mostly skipped")).count());
  }

  /**
   * ShareGPT and SWE-agent logs hashed together: both note synthesised arrivals under the same key
   * with their own sentence; each sentence is a finding of its own, with its own counts (it once
   * became one finding over both, with the last format's sentence).
   */
  @Test
  void twoFormatsHashedTogether_eachNoteKeepsItsOwnText() throws Exception {
    HashJob.Options o = new HashJob.Options(List.of(REPO.resolve("sample-traces/raw-logs/glaive-sharegpt").toString(),
        REPO.resolve("sample-traces/raw-logs/swe-agent").toString()), TokenizerSpec.parse("o200k", new Configuration()),
        HashKey.fromSalt("unit-test salt, not a secret".getBytes(StandardCharsets.UTF_8)), 16, LogFormat.AUTO,
        HashSettings.DEFAULT_SESSION_GAP_S, HashSettings.DEFAULT_THINK_TIME_S, 1, HashSettings.DEFAULT_SESSION_CACHE, false, false);
    List<String> notes = AuditJson.hashFindings(StageRuns.hash(o, tmp.resolve("hashed").toString()).summary()).stream()
        .filter(x -> x.startsWith("Synthesised or missing")).toList();
    // the 21 requests of the 3 SWE-agent trajectories; the 50 conversations of the ShareGPT sample
    // (ordered by kind, then sentence)
    assertEquals(List.of(
        "Synthesised or missing in 3 file(s), 21 time(s): SWE-agent trajectories have no timestamps: arrivals synthesised"
            + " (trajectory i at i * session gap, its j-th request j * think time later).",
        "Synthesised or missing in 1 file(s), 50 time(s): ShareGPT has no timestamps: arrivals synthesised (conversation i"
            + " at i * session gap, its j-th request j * think time later)."), notes);
  }
}
