package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.report.verdict.AuditCriteria;
import io.smetric.audit.report.verdict.Outcome;
import io.smetric.audit.report.verdict.Verdict;
import io.smetric.audit.testing.TestSpark;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditReportTest {
  @TempDir Path tmp;

  static final String CONDITION_SENTENCE = "Session-first routing fits this workload, on condition that a global KV tier of "
      + "at least 0.4x the cluster's local KV capacity is deployed (the smallest replayed capacity where SMetric gains at "
      + "least +2.0% over the best baseline).";

  static List<String> imgSources(String html) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("<img src=\"([^\"]*)\"").matcher(html);
    while (m.find()) out.add(m.group(1));
    return out;
  }

  private Path fixture(AuditFixture f) throws IOException {
    return f.write(tmp.resolve("audit"));
  }

  @Test
  void report_handMadeFolder_verdictSentenceAndLevelInHtmlAndJson() throws IOException {
    Path dir = fixture(new AuditFixture());
    Verdict v = new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString()).verdict();
    assertEquals(Outcome.FITS_WITH_CONDITIONS, v.outcome());
    assertEquals(CONDITION_SENTENCE, v.sentence());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("<section id=\"verdict\" class=\"verdict fits-with-conditions\">"), html);
    assertTrue(html.contains("<p class=\"level\">fits with conditions</p>"));
    assertTrue(html.contains(Html.esc(CONDITION_SENTENCE)));
    JsonNode a = Json.MAPPER.readTree(dir.resolve("audit.json").toFile());
    assertEquals("fits-with-conditions", a.path("verdict").asText());
    assertEquals(CONDITION_SENTENCE, a.path("sentence").asText());
  }

  @Test
  void report_handMadeFolder_everyCriterionRowWithHandComputedStatus() throws IOException {
    Path dir = fixture(new AuditFixture());
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    JsonNode crit = Json.MAPPER.readTree(dir.resolve("audit.json").toFile()).path("criteria");
    // see AuditFixture: every criterion passes except the gain without a global tier (-10% < -2%)
    Map<String, String> expected = new java.util.HashMap<>(Map.of("ideal_reuse", "pass", "intra_session_share", "pass",
        "first_turn_fraction", "pass", "reuse_within_100s", "pass", "requests_per_instance", "pass", "system_prompt_reuse", "pass",
        "replay_gain_with_global", "pass", "replay_gain_without_global", "fail", "sample_sessions", "pass"));
    // the fixture's replay.json predates the preconditions block: not measurable, so they do not block
    for (String id : List.of("regime_requests_per_instance", "regime_reuse_within_100s", "regime_local_hold", "regime_hot_spots",
        "regime_cache_first_stickiness", "replay_session_trees")) {
      expected.put(id, "not-applicable");
    }
    assertEquals(AuditCriteria.defaults().size(), crit.size());
    for (JsonNode c : crit) {
      String id = c.path("id").asText();
      assertEquals(expected.get(id), c.path("status").asText(), id);
      Matcher m = Pattern.compile("<tr id=\"criterion-" + id + "\">(.*?)</tr>").matcher(html);
      assertTrue(m.find(), "row for " + id);
      assertTrue(m.group(1).contains("<td class=\"tag " + expected.get(id) + "\">" + expected.get(id) + "</td>"), m.group(1));
    }
    JsonNode gain = crit.get(7);
    assertEquals(-0.10, gain.path("value").asDouble(), 1e-12);
    assertEquals(-0.02, gain.path("threshold").asDouble(), 1e-12);
    assertEquals(">=", gain.path("op").asText());
    assertEquals("condition", gain.path("level").asText());
    assertTrue(html.contains("<td class=\"num\">-10.0%</td><td class=\"num\">&gt;= -2.0%</td>"), "measured and threshold cells");
  }

  @Test
  void report_handMadeFolder_everyImageExistsAndIsAValidPng() throws IOException {
    Path dir = fixture(new AuditFixture());
    ReportJob.Result r = new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    List<String> srcs = imgSources(html);
    // 4 workload charts; replay: hit ratio, TPS by capacity, TPS by rate at 0 and 0.4, 3 heatmaps (one per policy),
    // stickiness, TTFT and TPOT CDFs, ablation (smetric + smetric-basic), OVERLOAD sensitivity (1.5 and 3)
    assertEquals(List.of("reuse_over_time.png", "reuse_interval_cdf.png", "session_lorenz.png", "request_instance_ratio.png",
        "hit_ratio_by_capacity.png", "tps_by_capacity.png", "tps_by_rate_g0.png", "tps_by_rate_g0_4.png",
        "imbalance_01_smetric.png", "imbalance_02_least-load.png", "imbalance_03_smetric-basic.png", "stickiness.png",
        "ttft_cdf.png", "tpot_cdf.png", "ablation.png", "sensitivity_overload.png"), srcs);
    for (String s : srcs) {
      Path p = dir.resolve(s);
      assertTrue(Files.size(p) > 5000, s + " is " + Files.size(p) + " bytes");
      BufferedImage img = ImageIO.read(p.toFile());
      assertNotNull(img, s);
      assertEquals(Charts.W, img.getWidth());
      assertEquals(Charts.H, img.getHeight());
    }
    // the one chart without data says why in its place: HIT_RATIO was not swept
    assertEquals(srcs.size(), r.charts().stream().filter(ReportCharts.Entry::drawn).count());
  }

  @Test
  void report_handMadeFolder_selfContainedWithoutScriptsOrExternalUrls() throws IOException {
    Path dir = fixture(new AuditFixture());
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html")).toLowerCase(java.util.Locale.ROOT);
    for (String bad : List.of("http:", "https:", "//", "<script", "<link", "url(", "@import", "<iframe", "src=\"/")) {
      assertFalse(html.contains(bad), "found " + bad);
    }
  }

  @Test
  void report_withoutReplay_inconclusiveAndEveryReplayChartSaysWhy() throws IOException {
    AuditFixture f = new AuditFixture();
    f.withReplay = false;
    Path dir = fixture(f);
    Verdict v = new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString()).verdict();
    assertEquals(Outcome.INCONCLUSIVE, v.outcome());
    // provenance records no_replay = true
    assertEquals("Inconclusive: the audit cannot judge SMetric vs the judged router, TPS within SLO at equal load, with a global tier "
        + "(the replay was skipped (--no-replay)).", v.sentence());
    String html = Files.readString(dir.resolve("index.html"));
    assertEquals(4, imgSources(html).size());
    for (String t : List.of("TPS within SLO by global-tier capacity", "Follow-up stickiness by policy", "TTFT CDF by policy",
        "Guard ablation: SMetric variants by global-tier capacity")) {
      assertTrue(html.contains("<strong>" + t + "</strong>"), t);
    }
    assertTrue(html.contains("not drawn: the replay was skipped (--no-replay).</p>"));
    JsonNode a = Json.MAPPER.readTree(dir.resolve("audit.json").toFile());
    assertTrue(a.path("headline").path("smetric_gain_with_global_tier").isNull());
  }

  @Test
  void report_findingsQuarantineAndNotApplicableListed() throws IOException {
    Path dir = fixture(new AuditFixture());
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("5 of 275 records were quarantined (malformed_json 4, missing_field 1)"), "quarantine");
    assertTrue(html.contains("analysis: block count mismatch requests: 2"));
    // characterization metrics with a reason, the skipped policy and the chart not drawn
    assertTrue(html.contains("<td>sessions/think_time_s</td><td>no follow-up request (turn &gt; 0) has its parent in the trace</td>"));
    assertTrue(html.contains("<td>replay policy</td><td>session-hash: not applicable: the trace has no session ids</td>"));
    assertTrue(html.contains("<td>chart: Guard threshold sensitivity</td>") == false, "OVERLOAD was swept, so the chart exists");
    JsonNode a = Json.MAPPER.readTree(dir.resolve("audit.json").toFile());
    assertEquals(0.82, a.path("headline").path("ideal_reuse").asDouble(), 0);
    assertEquals(0.12, a.path("headline").path("smetric_gain_with_global_tier").asDouble(), 0);
    assertEquals(0.4, a.path("headline").path("smetric_gain_at_global_ratio").asDouble(), 0);
    assertEquals("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        a.path("provenance").path("inputs").get(0).path("sha256").asText());
    assertTrue(html.contains("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"));
  }

  @Test
  void report_overriddenThreshold_changesTheVerdict() throws IOException {
    Path dir = fixture(new AuditFixture());
    // raising the reuse bound above the measured 0.82 makes a critical criterion fail
    Verdict v = new ReportJob(TestSpark.get(), new ReportJob.Options(null, Map.of("ideal_reuse", 0.9))).run(dir.toString()).verdict();
    assertEquals(Outcome.DOES_NOT_FIT, v.outcome());
    assertEquals("Session-first routing does not fit this workload: ideal prefix reuse fails.", v.sentence());
  }

  @Test
  void report_traceDerivedMarkup_isEscapedEverywhere() throws IOException {
    String evil = "<script>alert(1)</script>\"&'";
    AuditFixture f = new AuditFixture();
    f.policyLabel = "pol" + evil;
    f.sessionId = "sess" + evil;
    f.inputPath = "/data/in" + evil + ".jsonl";
    f.finding = "file" + evil + ": 1 records arrive out of order";
    Path dir = fixture(f);
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    assertFalse(html.contains("<script"), "raw markup");
    assertFalse(html.contains("\"&'"), "raw quote/ampersand/apostrophe");
    String escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;";
    for (String s : List.of("pol", "sess", "/data/in", "file")) assertTrue(html.contains(s + escaped), s);
    // file names derived from the policy label are sanitised
    for (String src : imgSources(html)) assertTrue(src.matches("[a-z0-9_.-]+"), src);
    // audit.json is JSON: the strings come back verbatim
    JsonNode a = Json.MAPPER.readTree(dir.resolve("audit.json").toFile());
    assertEquals("/data/in" + evil + ".jsonl", a.path("provenance").path("inputs").get(0).path("path").asText());
  }

  @Test
  void report_writtenIntoATemporaryFolder_namesTheFinalFolder() throws IOException {
    Path dir = fixture(new AuditFixture());
    new ReportJob(TestSpark.get(), new ReportJob.Options("s3a://bucket/audits/week1", Map.of())).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("audit folder s3a://bucket/audits/week1."), html);
    assertFalse(html.contains(dir.toString()), "the temporary path leaks into the page");
    JsonNode a = Json.MAPPER.readTree(dir.resolve("audit.json").toFile());
    assertEquals("s3a://bucket/audits/week1", a.path("report").path("audit_dir").asText());
  }

  @Test
  void report_traceWithoutBlocks_inconclusiveAndBlockChartsGiveTheCharacterizationReason() throws IOException {
    AuditFixture f = new AuditFixture();
    f.noBlocks = true;
    f.withReplay = false;
    f.withProvenance = false;
    Path dir = fixture(f);
    ReportJob.Result r = new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    assertEquals(Outcome.INCONCLUSIVE, r.verdict().outcome());
    String nb = "trace has no block hashes (blocks or block_size null in every request)";
    // no provenance: the replay's absence is explained by the characterization's has_blocks = false
    assertTrue(r.verdict().sentence().contains("ideal prefix reuse (" + nb + ")"), r.verdict().sentence());
    assertTrue(r.verdict().sentence().contains("(the trace has no block hashes, so the KV cache cannot be replayed)"),
        r.verdict().sentence());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("<strong>Ideal reuse over time, stacked by source</strong> (Figure 5): not drawn: " + nb + ".</p>"));
    assertTrue(html.contains("<strong>Reuse-interval CDF (token-weighted)</strong>"));
    assertEquals(List.of("session_lorenz.png", "request_instance_ratio.png"), imgSources(html));
    assertTrue(html.contains("The audit folder has no provenance.json"));
  }

  @Test
  void report_longTrace_perMinuteChartsDrawnInBins() throws IOException {
    // 5,000 minutes: bins of ceil(5000 / 2000) = 3 minutes; the low minute (10 + 5, ratio 1) stays visible
    AuditFixture f = new AuditFixture();
    f.longMinutes = 5000;
    Path dir = fixture(f);
    ReportJob.Result r = new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("The trace spans more than 2000 minutes: drawn in 3-minute bins (the mean and the lowest minute "
        + "of each bin)."), "ratio caption");
    assertTrue(html.contains("drawn in 3-minute bins (hit and prefill tokens summed over the bin)."), "reuse caption");
    for (String png : List.of("request_instance_ratio.png", "reuse_over_time.png")) {
      assertTrue(r.charts().stream().anyMatch(e -> e.file().equals(png) && e.drawn()), png);
    }
  }

  @Test
  void report_inferredSessions_findingSaysSo() throws IOException {
    AuditFixture f = new AuditFixture();
    f.inferred = true;
    Path dir = fixture(f);
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("Sessions were inferred from prompt content (no session ids in the trace): method "
        + "prefix-continuation, 40 sessions over 270 requests, 3 forks."), "finding");
    assertTrue(html.contains("<td>sessions (inferred)</td><td>40</td>"));
    assertTrue(Json.MAPPER.readTree(dir.resolve("audit.json").toFile()).path("headline").path("sessions_inferred").asBoolean());
  }

  @Test
  void report_rawLogAudit_hasherFindingsReplaceTheIngestOnes() throws IOException {
    AuditFixture f = new AuditFixture();
    Path dir = fixture(f);
    // a raw-log audit has hashed/ instead of ingest/
    Files.delete(dir.resolve("ingest/ingest-summary.json"));
    Files.createDirectories(dir.resolve("hashed"));
    Files.writeString(dir.resolve("hashed/hash-summary.json"), "{\"records_read\":12,\"requests\":10,\"sessions\":3,"
        + "\"tokenizer\":\"o200k_base\",\"block_size\":16,\"output_tokens_missing\":2,"
        + "\"skipped\":{\"count\":2,\"reasons\":[\"a.jsonl:4: no messages\"]},"
        + "\"arrivals\":{\"synthesised\":10,\"rule\":\"conversation i starts at i*60 s\"}}");
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("Raw chat logs were hashed (tokenizer o200k_base, 16-token blocks): 12 records read, 10 requests in 3 sessions."));
    assertTrue(html.contains("2 log records were skipped, e.g. a.jsonl:4: no messages."));
    assertTrue(html.contains("10 requests had no log timestamp; their arrivals are synthesised (conversation i starts at i*60 s)"));
    assertFalse(html.contains("No ingest summary"));
  }

  /**
   * The two answers (fixture numbers): (a) least-load is the only paper baseline simulated;
   * SMetric gains +12% >= +2% at 0.4x, the one capacity with a global tier, so the claim holds;
   * (b) least-load leads at 0x by 100 / 90 - 1 = +11.1%, SMetric at 0.4x by +12%. The first line
   * names the audited trace (provenance input /data/trace.jsonl), not the folder.
   */
  @Test
  void report_twoAnswersSideBySide_andTheTraceInTheFirstLine() throws IOException {
    AuditFixture f = new AuditFixture();
    f.withAnswers = true;
    f.currentRouter = "least-load";
    Path dir = fixture(f);
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    JsonNode a = Json.MAPPER.readTree(dir.resolve("audit.json").toFile());
    assertEquals("trace.jsonl", a.path("trace").asText());
    JsonNode pc = a.path("answers").path("paper_claim");
    assertEquals("Yes: with a global tier SMetric gains at least +2.0% over the best of least-load at every replayed "
        + "capacity (0.4x).", pc.path("summary").asText());
    assertFalse(pc.path("by_global_ratio").get(0).path("holds").asBoolean());
    assertTrue(pc.path("by_global_ratio").get(1).path("holds").asBoolean());
    JsonNode wr = a.path("answers").path("what_to_run");
    assertEquals("Best router by maximum TPS within SLO: 0x: least-load (+11.1% over smetric); 0.4x: smetric (+12.0% over "
        + "least-load).", wr.path("summary").asText());
    assertEquals("least-load", a.path("answers").path("judged_router").path("name").asText());
    assertEquals("least-load", a.path("headline").path("judged_router").asText());
    String html = Files.readString(dir.resolve("index.html"));
    assertTrue(html.contains("<h1>SMetric audit of trace.jsonl</h1>"), html);
    int verdict = html.indexOf("<section id=\"verdict\"");
    int answers = html.indexOf("<section id=\"answers\" class=\"answers\">");
    int key = html.indexOf("<section id=\"key-numbers\">");
    assertTrue(verdict >= 0 && verdict < answers && answers < key, "answers sit between the verdict and the key numbers");
    assertTrue(html.contains("id=\"answer-paper-claim\"") && html.contains("id=\"answer-what-to-run\""));
    assertTrue(html.contains("The verdict judges SMetric against least-load"), html);
    // the condition of the verdict names the router judged against
    assertTrue(a.path("conditions").get(0).asText().endsWith("over least-load)"), a.path("conditions").toString());
  }
}
