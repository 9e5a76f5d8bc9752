package io.smetric.audit.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smetric.audit.testing.TestSpark;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Opens a rendered report in headless Chromium (Debian's {@code chromium}; {@code .ci/run}
 * installs it): the page must render (a screenshot that is not blank), log no console error, and
 * every image must load in the browser. The report has no script, so image loading is checked on
 * a probe copy of the page (same markup and files, plus a script that lists each image's
 * naturalWidth) read back with --dump-dom. Skips, saying so, where no browser exists. Output
 * stays under target/chromium-report/ (never in the repository).
 */
class ReportChromiumTest {
  static String chromium() {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
        File f = new File(dir, name);
        if (f.canExecute()) return f.getPath();
      }
    }
    return null;
  }

  record Proc(int code, String out, String err) {}

  static Proc run(List<String> cmd, Path work) throws IOException, InterruptedException {
    Path out = work.resolve("chromium.out");
    Path err = work.resolve("chromium.err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish in 120 s: " + cmd);
    }
    return new Proc(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  static List<String> base(String exe, Path profile) {
    return new ArrayList<>(List.of(exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-extensions", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
        "--hide-scrollbars"));
  }

  @Test
  void report_inHeadlessChromium_rendersWithImagesLoadedAndNoConsoleErrors() throws Exception {
    String exe = chromium();
    if (exe == null) System.out.println("SKIPPED: no chromium (install it with: apt-get install -y chromium)");
    Assumptions.assumeTrue(exe != null, "SKIPPED: no chromium on PATH (apt-get install -y chromium)");

    Path work = Path.of("target", "chromium-report").toAbsolutePath();
    deleteTree(work);
    Files.createDirectories(work);
    Path dir = new AuditFixture().write(work.resolve("audit"));
    new ReportJob(TestSpark.get(), ReportJob.Options.defaults()).run(dir.toString());
    Path index = dir.resolve("index.html");
    String html = Files.readString(index);
    List<String> srcs = AuditReportTest.imgSources(html);
    assertFalse(srcs.isEmpty());

    // 1. the report itself: screenshot + console
    Path shot = work.resolve("screenshot.png");
    List<String> cmd = base(exe, work.resolve("profile"));
    cmd.addAll(List.of("--window-size=1280,4000", "--screenshot=" + shot, index.toUri().toString()));
    Proc p = run(cmd, work);
    assertEquals(0, p.code(), p.err());
    for (String line : p.err().split("\n")) {
      assertFalse(line.contains(":CONSOLE") || line.contains("Uncaught"), "console message: " + line);
    }
    BufferedImage img = ImageIO.read(shot.toFile());
    assertNotNull(img, "screenshot");
    assertEquals(1280, img.getWidth());
    // not blank: a rendered page with charts has many distinct colours
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < img.getHeight(); y += 3) for (int x = 0; x < img.getWidth(); x += 3) colours.add(img.getRGB(x, y));
    assertTrue(colours.size() > 50, "screenshot looks blank: " + colours.size() + " colours");

    // 2. a probe copy of the page that reports every image's naturalWidth into the DOM
    String probe = html.replace("</body>", "<script>window.addEventListener('load',function(){var o=[];"
        + "for(var i=0;i<document.images.length;i++){var m=document.images[i];o.push(m.getAttribute('src')+' '"
        + "+(m.complete?m.naturalWidth:-1)+'x'+(m.complete?m.naturalHeight:-1));}"
        + "var p=document.createElement('pre');p.id='probe';p.textContent=o.join('\\n');document.body.appendChild(p);});"
        + "</script></body>");
    Path probeFile = dir.resolve("probe.html");
    Files.writeString(probeFile, probe, StandardCharsets.UTF_8);
    List<String> dump = base(exe, work.resolve("profile"));
    dump.addAll(List.of("--virtual-time-budget=10000", "--dump-dom", probeFile.toUri().toString()));
    Proc d = run(dump, work);
    assertEquals(0, d.code(), d.err());
    Matcher m = Pattern.compile("<pre id=\"probe\">([^<]*)</pre>").matcher(d.out());
    assertTrue(m.find(), "probe output missing from the DOM dump");
    List<String> loaded = List.of(m.group(1).split("\n"));
    List<String> expected = new ArrayList<>();
    for (String s : srcs) expected.add(s + " " + Charts.W + "x" + Charts.H);
    assertEquals(expected, loaded);
    Files.delete(probeFile);
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (Stream<Path> s = Files.walk(p)) {
      for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(x);
    }
  }
}
