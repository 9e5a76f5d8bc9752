package io.smetric.audit.cli;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.hasher.HashJob;
import io.smetric.audit.hasher.LogFormat;
import io.smetric.audit.ingest.InputFiles;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * What the audit's inputs are: raw chat/agent logs for the block-hasher, or a trace for ingest
 * ({@code --input-kind}, else sniffed from the first file's extension and first record), and the
 * files each stage reads.
 */
final class InputDetection {
  private InputDetection() {}

  /** Raw logs or a trace, and the input files as the stage that reads them lists them. */
  record Kind(boolean logs, List<Path> files) {}

  /**
   * @param inputKind auto, trace or logs (validated by the command)
   * @param messagesPath whether --messages-path was given (only raw logs have a message list)
   */
  static Kind detect(List<String> inputs, String inputKind, boolean messagesPath, Configuration conf) {
    boolean logs = isLogs(candidates(inputs, inputKind, conf), inputKind, messagesPath, conf);
    // each stage's own view of the inputs: the hasher takes only log files from folders
    List<Path> files = logs ? HashJob.expand(inputs, conf).stream().map(Path::new).toList() : InputFiles.expand(inputs, conf);
    return new Kind(logs, files);
  }

  /**
   * The files whose kind decides the input's: the trace reader's (a folder's own files), or, for a
   * folder that holds only folders (raw logs kept per tool or per day), the hasher's recursive listing.
   */
  private static List<Path> candidates(List<String> inputs, String inputKind, Configuration conf) {
    try {
      return InputFiles.expand(inputs, conf);
    } catch (BadInputException e) {
      if (inputKind.equals("trace")) throw e;
      try {
        return HashJob.expand(inputs, conf).stream().map(Path::new).toList();
      } catch (BadInputException | java.io.UncheckedIOException e2) {
        throw e; // neither a trace nor logs: the trace reader's message names the input
      }
    }
  }

  /** Raw logs or a trace: by --input-kind, else by the first file's extension and first record. */
  private static boolean isLogs(List<Path> files, String inputKind, boolean messagesPath, Configuration conf) {
    if (!inputKind.equals("auto")) return inputKind.equals("logs");
    if (messagesPath) return true; // only raw logs have a message list to point at
    for (Path f : files) {
      String name = f.getName().toLowerCase(Locale.ROOT).replaceFirst("\\.(gz|bz2|zst|lz4|snappy|deflate)$", "");
      if (name.endsWith(".traj")) return true;
      if (name.endsWith(".parquet") || name.endsWith(".csv")) return false;
      if (!(name.endsWith(".jsonl") || name.endsWith(".json") || name.endsWith(".ndjson"))) continue; // LICENSE, README...
      try {
        return LogFormat.sniff(f.toString(), conf) != null;
      } catch (BadInputException | IOException e) {
        return false; // not a JSON record: ingest names the problem with file and line
      }
    }
    return false;
  }

  /** A Parquet file, a folder of Parquet files, or an ingest / record-trace folder (its trace/ holds them). */
  static boolean isCanonicalTrace(String arg) {
    java.nio.file.Path p = java.nio.file.Path.of(arg.startsWith("file:") ? java.net.URI.create(arg).getPath() : arg);
    if (java.nio.file.Files.isRegularFile(p)) return p.getFileName().toString().endsWith(".parquet");
    if (!java.nio.file.Files.isDirectory(p)) return false;
    java.nio.file.Path t = p.resolve(io.smetric.audit.contract.AuditLayout.TRACE_DIR);
    if (java.nio.file.Files.isDirectory(t)) p = t;
    try (var s = java.nio.file.Files.list(p)) {
      return s.anyMatch(f -> f.getFileName().toString().endsWith(".parquet"));
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
