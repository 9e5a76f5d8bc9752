package io.smetric.audit.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.ExitCodes;
import io.smetric.audit.common.Json;
import io.smetric.audit.report.ReportJob;
import io.smetric.audit.report.CompareFixtures;
import io.smetric.audit.testing.TestSpark;
import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompareCommandTest {
  @TempDir Path tmp;

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(args, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  /** Two audits: "week1" fits with conditions (see AuditFixture), "week2" has 55% reuse and no replay. */
  private List<Path> twoAudits() throws Exception {
    Path a = CompareFixtures.agentAudit(tmp.resolve("week1"));
    Path b = CompareFixtures.chatAuditWithoutReplay(tmp.resolve("week2"));
    for (Path p : List.of(a, b)) new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(p.toString());
    return List.of(a, b);
  }

  @Test
  void compare_twoAudits_verdictsCriteriaAndOverlaidCharts() throws Exception {
    List<Path> in = twoAudits();
    Path out = tmp.resolve("cmp");
    Run r = run("compare", in.get(0).toString(), in.get(1).toString(), "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("compared 2 audits: fits-with-conditions, does-not-fit"), r.out());

    JsonNode j = Json.MAPPER.readTree(out.resolve("compare.json").toFile());
    assertEquals("week1", j.path("audits").get(0).path("label").asText());
    assertEquals("fits-with-conditions", j.path("audits").get(0).path("verdict").asText());
    assertEquals("does-not-fit", j.path("audits").get(1).path("verdict").asText());
    assertEquals(0.82, j.path("audits").get(0).path("criteria").path("ideal_reuse").path("value").asDouble(), 0);
    assertEquals(0.55, j.path("audits").get(1).path("criteria").path("ideal_reuse").path("value").asDouble(), 0);
    assertEquals("not-applicable", j.path("audits").get(1).path("criteria").path("replay_gain_with_global").path("status").asText());

    String html = Files.readString(out.resolve("index.html"));
    Matcher row = Pattern.compile("<tr id=\"criterion-ideal_reuse\">(.*?)</tr>").matcher(html);
    assertTrue(row.find());
    assertTrue(row.group(1).contains("82.0% <span class=\"pass\">pass</span>"), row.group(1));
    assertTrue(row.group(1).contains("55.0% <span class=\"fail\">fail</span>"), row.group(1));
    assertTrue(html.contains("<tr><td>ideal reuse</td><td>82.0%</td><td>55.0%</td></tr>"), "headline row");
    assertTrue(html.contains("<tr><td>smetric gain with global tier</td><td>+12.0%</td><td>n/a</td></tr>"), "gain row");
    // the TPS chart shows the one audit with a replay and says why the other is missing
    assertTrue(html.contains("Not shown: week2: no replay."), "missing replay noted");
    List<String> srcs = new ArrayList<>();
    Matcher m = Pattern.compile("<img src=\"([^\"]*)\"").matcher(html);
    while (m.find()) srcs.add(m.group(1));
    assertEquals(List.of("reuse_interval_cdf.png", "session_lorenz.png", "reuse_over_time.png", "request_instance_ratio.png",
        "tps_by_capacity.png"), srcs);
    for (String s : srcs) {
      BufferedImage img = ImageIO.read(out.resolve(s).toFile());
      assertNotNull(img, s);
      assertTrue(Files.size(out.resolve(s)) > 5000, s);
    }
    String lower = html.toLowerCase(java.util.Locale.ROOT);
    for (String bad : List.of("http:", "https:", "<script", "<link", "url(")) assertFalse(lower.contains(bad), bad);
  }

  @Test
  void compare_labelsWithMarkup_areEscaped() throws Exception {
    List<Path> in = twoAudits();
    Path out = tmp.resolve("cmp");
    Run r = run("compare", in.get(0).toString(), in.get(1).toString(), "--label", "<script>alert(1)</script>",
        "--label", "\"&'", "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    String html = Files.readString(out.resolve("index.html"));
    assertFalse(html.contains("<script"));
    assertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assertTrue(html.contains("&quot;&amp;&#39;"));
  }

  @Test
  void compare_folderWithoutAuditJson_isBadInputNamingIt() throws Exception {
    List<Path> in = twoAudits();
    Path empty = Files.createDirectories(tmp.resolve("not-an-audit"));
    Run r = run("compare", in.get(0).toString(), empty.toString(), "--out", tmp.resolve("cmp").toString());
    assertEquals(ExitCodes.BAD_INPUT, r.code());
    assertTrue(r.err().contains("not-an-audit: no audit.json"), r.err());
    assertFalse(Files.exists(tmp.resolve("cmp")), "no output folder after a failure");
  }

  @Test
  void compare_singleFolder_isUsageError() {
    Run r = run("compare", tmp.toString(), "--out", tmp.resolve("cmp").toString());
    assertEquals(ExitCodes.USAGE, r.code());
  }
}
