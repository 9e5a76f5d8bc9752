package io.smetric.audit.generate;

import io.smetric.audit.common.OutputExistsException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

/**
 * Generates a trace file and its ground-truth side file atomically: both are written to hidden
 * temporary siblings and renamed into place only when complete, so an interrupted run never
 * leaves a file that looks finished. Names ending in {@code .gz} are gzip-compressed.
 */
public final class TraceGeneration {
  private TraceGeneration() {}

  /**
   * The ground-truth side file of a trace: {@code <out>.truth.jsonl}; for a gzip trace
   * {@code x.jsonl.gz} it is {@code x.jsonl.truth.jsonl.gz} (also gzip).
   */
  public static Path truthPathFor(Path out) {
    String name = out.getFileName().toString();
    String truth = name.endsWith(".gz")
        ? name.substring(0, name.length() - 3) + ".truth.jsonl.gz"
        : name + ".truth.jsonl";
    return out.resolveSibling(truth);
  }

  /** Generates {@code requests} requests into {@code out} and its truth file; returns the counts. */
  public static WorkloadGenerator.Stats write(WorkloadGenerator generator, long requests, OutputFormat format,
      Path out, boolean overwrite) throws IOException {
    Path truth = truthPathFor(out);
    if (!overwrite) {
      if (Files.exists(out)) throw OutputExistsException.file(out.toString());
      if (Files.exists(truth)) throw OutputExistsException.file(truth.toString());
    }
    Path dir = out.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    String tag = ".tmp-" + UUID.randomUUID();
    Path tmpOut = dir.resolve("." + out.getFileName() + tag);
    Path tmpTruth = dir.resolve("." + truth.getFileName() + tag);
    boolean done = false;
    try {
      WorkloadGenerator.Stats stats;
      try (TraceWriter w = new TraceWriter(format, new JsonlOut(open(tmpOut, gz(out))), new JsonlOut(open(tmpTruth, gz(truth))))) {
        stats = generator.run(requests, w);
      }
      Files.move(tmpTruth, truth, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.move(tmpOut, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      done = true;
      return stats;
    } finally {
      if (!done) {
        Files.deleteIfExists(tmpOut);
        Files.deleteIfExists(tmpTruth);
      }
    }
  }

  private static boolean gz(Path p) {
    return p.getFileName().toString().endsWith(".gz");
  }

  private static OutputStream open(Path p, boolean gzip) throws IOException {
    OutputStream os = Files.newOutputStream(p);
    if (gzip) {
      return new GZIPOutputStream(new BufferedOutputStream(os, 1 << 16), 1 << 16);
    }
    return os;
  }
}
