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
 * Block-hasher throughput against jtokkit alone, single thread, no Spark (docs/benchmarks.md,
 * "Block-hasher"). Usage: {@code HasherBench REPO [rounds]} (reads REPO/sample-traces/raw-logs).
 * <ol>
 *   <li>raw: jtokkit encodeOrdinary over every message text of the inputs (the same text runs the
 *       hasher tokenises), tokens per second;
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
    Path raw = repo.resolve("sample-traces/raw-logs");
    List<Path> files = List.of(
        raw.resolve("swe-agent/function_calling_simple.traj"),
        raw.resolve("swe-agent/marshmallow-1867__function_calling.traj"),
        raw.resolve("swe-agent/swe-agent__test-repo-i1__gpt4.traj"),
        raw.resolve("glaive-sharegpt/glaive_toolcall_en_demo_first50.json"));

    // the text runs between special tokens, exactly as the template produces them
    List<String> runs = new ArrayList<>();
    ChatMlTemplate t = new ChatMlTemplate();
    for (Path p : files) {
      JsonNode root = Messages.MAPPER.readTree(p.toFile());
      List<JsonNode> convs = new ArrayList<>();
      if (root.isArray()) root.forEach(convs::add);
      else convs.add(root);
      for (JsonNode c : convs) {
        List<String> tools = Messages.tools(c.get("tools"), "b", 0, "tools");
        List<ChatMessage> msgs = new ArrayList<>();
        if (c.has("history")) for (JsonNode m : c.get("history")) msgs.add(Messages.openai(m, "b", 0, "h"));
        else for (JsonNode m : c.get("conversations")) msgs.add(Messages.sharegpt(m, "b", 0, "c"));
        StringBuilder cur = new StringBuilder();
        ChatTemplate.Sink sink = new ChatTemplate.Sink() {
          @Override
          public void text(String s) {
            cur.append(s);
          }

          @Override
          public void special(String token) {
            if (cur.length() > 0) runs.add(cur.toString());
            cur.setLength(0);
          }
        };
        for (int i = 0; i < msgs.size(); i++) t.message(msgs.get(i), i == 0 ? tools : List.of(), sink);
        if (cur.length() > 0) runs.add(cur.toString());
      }
    }
    TiktokenTokenizer tok = new TiktokenTokenizer(EncodingType.O200K_BASE);
    var enc = tok.encoding();

    HashSettings s = new HashSettings(TokenizerSpec.parse("o200k", new Configuration()),
        HashKey.fromSalt("benchmark salt, not a secret!!".getBytes(StandardCharsets.UTF_8)), 16, LogFormat.AUTO, 10, 5, 1, 1, 256);
    for (int w = 0; w < 15; w++) { // the JIT needs a dozen rounds before both loops are steady
      for (String r : runs) enc.encodeOrdinary(r);
      hashAll(s, files);
    }
    // the machine is shared: alternate the two measurements and report medians of 5 repetitions
    int reps = 5;
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
    long uniqueTokens = rawTokens; // the hasher tokenises each message's text once: the same runs

    System.out.printf(Locale.ROOT, "inputs: %d files, %d text runs; %d rounds x %d repetitions (medians)%n", files.size(), runs.size(), rounds, reps);
    System.out.printf(Locale.ROOT, "raw jtokkit o200k encodeOrdinary : %,.0f tokens/s (%d tokens in %.2f s; min..max %.2f..%.2f s)%n",
        rawTokens / rawS, rawTokens, rawS, raws[0], raws[reps - 1]);
    System.out.printf(Locale.ROOT, "hasher, unique tokens tokenised   : %,.0f tokens/s (%.2f s; min..max %.2f..%.2f s)%n",
        uniqueTokens / hashS, hashS, hashes[0], hashes[reps - 1]);
    System.out.printf(Locale.ROOT, "hasher, prompt tokens covered     : %,.0f tokens/s (%d requests, %d prompt tokens)%n",
        acc[1] / hashS, acc[0], acc[1]);
    System.out.printf(Locale.ROOT, "hasher / raw (unique tokens)      : %.2f%n", (uniqueTokens / hashS) / (rawTokens / rawS));

    if (args.length > 2 && args[2].equals("--streaming")) streaming(s);
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
