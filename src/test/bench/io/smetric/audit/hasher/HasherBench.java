package io.smetric.audit.hasher;

import com.fasterxml.jackson.databind.JsonNode;
import com.knuddels.jtokkit.api.EncodingType;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;

/**
 * Block-hasher throughput against jtokkit alone, single thread, no Spark (docs/lab/benchmarks.md,
 * "Block-hasher"). Usage: {@code HasherBench REPO [rounds] [--files DIR] [--warmup N] [--reps N] [--streaming]} (reads every
 * log file under DIR, default REPO/sample-traces/raw-logs: all formats).
 * <ol>
 *   <li>raw: jtokkit encodeOrdinary over the text runs the hasher hands its tokenizer (recorded in
 *       one pass over the same files), tokens per second;
 *   <li>hasher: FileHasher over the same files (parse, render, tokenise, chain-hash, rows): unique
 *       tokens tokenised per second, and prompt tokens covered (sum of input_tokens) per second;
 *   <li>streaming: a generated trajectory with a 200 MB field before a 4,000-message history,
 *       hashed under the heap the JVM was given (run with -Xmx256m to show it does not load it).
 * </ol>
 */
public final class HasherBench {
  public static void main(String[] args) throws Exception {
    Path repo = Path.of(args.length > 0 ? args[0] : ".");
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    List<String> opts = List.of(args).subList(Math.min(2, args.length), args.length);
    String dir = opts.contains("--files") ? opts.get(opts.indexOf("--files") + 1) : repo.resolve("sample-traces/raw-logs").toString();
    // every log file of every format under the folder (the hash command's own folder expansion)
    List<Path> files = HashJob.expand(List.of(dir), CONF).stream().map(u -> Path.of(java.net.URI.create(u))).toList();

    HashSettings s = new HashSettings(TokenizerSpec.parse("o200k", new Configuration()),
        HashKey.fromSalt("benchmark salt, not a secret!!".getBytes(StandardCharsets.UTF_8)), 16, LogFormat.AUTO, 10, 5, 1, 1, 256);
    // the text runs the hasher hands to the tokenizer, recorded in one pass: raw jtokkit then
    // tokenises exactly the same text (messages, tool schemas, completions counted for output tokens)
    List<String> runs = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      try (FileHasher h = new FileHasher(s, i, files.get(i).toString(), CONF)) {
        java.lang.reflect.Field f = FileHasher.class.getDeclaredField("tokenizer");
        f.setAccessible(true);
        ChatTokenizer inner = (ChatTokenizer) f.get(h);
        f.set(h, new ChatTokenizer() {
          @Override
          public void encodeText(String text, it.unimi.dsi.fastutil.ints.IntArrayList out) {
            runs.add(text);
            inner.encodeText(text, out);
          }

          @Override
          public int special(String token) {
            return inner.special(token);
          }

          @Override
          public String describe() {
            return inner.describe();
          }
        });
        h.forEachRemaining(r -> { });
      }
    }
    TiktokenTokenizer tok = new TiktokenTokenizer(EncodingType.O200K_BASE);
    var enc = tok.encoding();
    int warmup = opts.contains("--warmup") ? Integer.parseInt(opts.get(opts.indexOf("--warmup") + 1)) : 15;
    for (int w = 0; w < warmup; w++) { // the JIT needs a dozen rounds before both loops are steady
      for (String r : runs) enc.encodeOrdinary(r);
      hashAll(s, files);
    }
    // the machine is shared: alternate the two measurements and report medians of 5 repetitions
    int reps = opts.contains("--reps") ? Integer.parseInt(opts.get(opts.indexOf("--reps") + 1)) : 5;
    double[] raws = new double[reps], hashes = new double[reps];
    long rawTokens = 0;
    long[] acc = new long[2];
    for (int rep = 0; rep < reps; rep++) {
      rawTokens = 0;
      long t0 = System.nanoTime();
      for (int k = 0; k < rounds; k++) for (String r : runs) rawTokens += enc.encodeOrdinary(r).size();
      raws[rep] = (System.nanoTime() - t0) / 1e9;
      acc = new long[2];
      t0 = System.nanoTime();
      for (int k = 0; k < rounds; k++) {
        long[] a = hashAll(s, files);
        acc[0] += a[0];
        acc[1] += a[1];
      }
      hashes[rep] = (System.nanoTime() - t0) / 1e9;
    }
    java.util.Arrays.sort(raws);
    java.util.Arrays.sort(hashes);
    double rawS = raws[reps / 2];
    double hashS = hashes[reps / 2];
    long uniqueTokens = rawTokens; // the recorded runs are exactly what the hasher tokenises

    long bytes = 0;
    for (Path p : files) bytes += Files.size(p);
    System.out.printf(Locale.ROOT, "inputs: %d files (%,d bytes as stored) under %s, %d text runs; %d rounds x %d repetitions (medians)%n",
        files.size(), bytes, dir, runs.size(), rounds, reps);
    System.out.printf(Locale.ROOT, "raw jtokkit o200k encodeOrdinary : %,.0f tokens/s (%d tokens in %.2f s; min..max %.2f..%.2f s)%n",
        rawTokens / rawS, rawTokens, rawS, raws[0], raws[reps - 1]);
    System.out.printf(Locale.ROOT, "hasher, unique tokens tokenised   : %,.0f tokens/s (%.2f s; min..max %.2f..%.2f s)%n",
        uniqueTokens / hashS, hashS, hashes[0], hashes[reps - 1]);
    System.out.printf(Locale.ROOT, "hasher, prompt tokens covered     : %,.0f tokens/s (%d requests, %d prompt tokens)%n",
        acc[1] / hashS, acc[0], acc[1]);
    System.out.printf(Locale.ROOT, "hasher / raw (unique tokens)      : %.2f (hasher time = %.2f x jtokkit time)%n",
        (uniqueTokens / hashS) / (rawTokens / rawS), hashS / rawS);

    if (opts.contains("--streaming")) streaming(s);
  }

  static final Configuration CONF = new Configuration();

  static long[] hashAll(HashSettings s, List<Path> files) {
    long requests = 0, promptTokens = 0;
    for (int i = 0; i < files.size(); i++) {
      try (FileHasher h = new FileHasher(s, i, files.get(i).toString(), CONF)) {
        while (h.hasNext()) {
          Row r = h.next();
          if (r.getString(0).equals(StagingRows.KIND_REQUEST)) {
            requests++;
            promptTokens += r.getInt(r.fieldIndex(StagingRows.INPUT_TOKENS));
          }
        }
      }
    }
    return new long[] {requests, promptTokens};
  }

  static void streaming(HashSettings s) throws Exception {
    Path p = Files.createTempFile("hasher-bench-", ".traj");
    try {
      try (BufferedWriter w = Files.newBufferedWriter(p)) {
        w.write("{\"trajectory\": [");
        String obs = "y".repeat(10_000);
        for (int i = 0; i < 20_000; i++) w.write((i > 0 ? "," : "") + "{\"observation\": \"" + obs + "\"}");
        w.write("], \"history\": [{\"role\": \"system\", \"content\": \"You are an agent.\"}");
        for (int i = 0; i < 2000; i++) {
          w.write(",{\"role\": \"assistant\", \"content\": \"step " + i + ": let me look at file_" + i + ".py and run the tests again\"}");
          w.write(",{\"role\": \"tool\", \"content\": \"output " + i + " " + "line of tool output\\n".repeat(20) + "\"}");
        }
        w.write("]}");
      }
      long size = Files.size(p);
      long t0 = System.nanoTime();
      long requests = 0, blocks = 0;
      try (FileHasher h = new FileHasher(s, 0, p.toString(), new Configuration())) {
        while (h.hasNext()) {
          Row r = h.next();
          if (r.getString(0).equals(StagingRows.KIND_REQUEST)) {
            requests++;
            blocks += ((long[]) r.get(r.fieldIndex(StagingRows.HASH_IDS))).length;
          }
        }
      }
      double sec = (System.nanoTime() - t0) / 1e9;
      Runtime rt = Runtime.getRuntime();
      System.out.printf(Locale.ROOT, "streaming: %,d-byte trajectory, %d requests, %,d blocks in %.1f s with -Xmx%d MB%n",
          size, requests, blocks, sec, rt.maxMemory() >> 20);
    } finally {
      Files.deleteIfExists(p);
    }
  }
}
