package io.smetric.audit.generate;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.smetric.audit.contract.BlockChain;
import it.unimi.dsi.fastutil.longs.Long2DoubleOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * An independent, plain sequential implementation of trace-model.md sections 2-5 over a
 * smetric-format JSONL file, used to check that the generator's presets hit their documented
 * statistics. It shares nothing with the generator but the file: it parses the JSON, chains the
 * source ids with {@link BlockChain#chain} as ingest does, and walks requests in file order
 * (which it checks is arrival order).
 */
final class TraceOracle {
  /** One parsed smetric record. */
  record Rec(String id, String session, String parent, int turn, String trigger, double arrival,
      int in, int out, int blockSize, long[] chained) {}

  /** The statistics of trace-model.md this test suite checks. */
  static final class Result {
    long requests;
    long sessions;
    long inputTokens;
    long hitTokens;
    long intraTokens;
    long systemTokens;
    long interTokens;
    long within100sTokens;
    /** Hit tokens within 100 s, per source: intra, system, inter. */
    long[] within100sBySource = new long[3];
    long firstTurns;
    long followUps;
    long toolFollowUps;
    double top25TokenShare;

    double reuse() { return (double) hitTokens / inputTokens; }

    double intraShare() { return (double) intraTokens / hitTokens; }

    double systemShare() { return (double) systemTokens / hitTokens; }

    double interShare() { return (double) interTokens / hitTokens; }

    double within100s() { return (double) within100sTokens / hitTokens; }

    double firstTurnFraction() { return (double) firstTurns / requests; }

    double toolShareOfFollowUps() { return (double) toolFollowUps / followUps; }

    double meanInput() { return (double) inputTokens / requests; }

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "requests=%d sessions=%d meanInput=%.0f reuse=%.4f intra=%.4f system=%.4f inter=%.4f within100s=%.4f "
              + "top25=%.4f tool=%.4f firstTurn=%.4f within100s[intra,sys,inter]=%.3f,%.3f,%.3f",
          requests, sessions, meanInput(), reuse(), intraShare(), systemShare(), interShare(), within100s(),
          top25TokenShare, toolShareOfFollowUps(), firstTurnFraction(),
          (double) within100sBySource[0] / intraTokens, (double) within100sBySource[1] / systemTokens,
          (double) within100sBySource[2] / interTokens);
    }
  }

  static void read(Path file, Consumer<Rec> each) throws IOException {
    JsonFactory jf = new JsonFactory();
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
        JsonParser p = jf.createParser(in)) {
      LongArrayList ids = new LongArrayList();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String id = null, session = null, parent = null, trigger = null;
        int turn = -1, inTok = -1, outTok = -1, bs = -1;
        double arrival = Double.NaN;
        ids.clear();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String f = p.currentName();
          JsonToken t = p.nextToken();
          switch (f) {
            case "request_id" -> id = p.getText();
            case "session_id" -> session = p.getText();
            case "parent_id" -> parent = t == JsonToken.VALUE_NULL ? null : p.getText();
            case "turn" -> turn = p.getIntValue();
            case "trigger" -> trigger = p.getText();
            case "arrival_s" -> arrival = p.getDoubleValue();
            case "input_tokens" -> inTok = p.getIntValue();
            case "output_tokens" -> outTok = p.getIntValue();
            case "block_size" -> bs = p.getIntValue();
            case "hash_ids" -> {
              while (p.nextToken() != JsonToken.END_ARRAY) ids.add(p.getLongValue());
            }
            default -> p.skipChildren();
          }
        }
        each.accept(new Rec(id, session, parent, turn, trigger, arrival, inTok, outTok, bs,
            BlockChain.chain(ids.toLongArray())));
      }
    }
  }

  static List<Rec> readAll(Path file) throws IOException {
    List<Rec> l = new ArrayList<>();
    read(file, l::add);
    return l;
  }

  /** Computes the statistics in two streaming passes over the file. */
  static Result compute(Path file) throws IOException {
    // Pass 1 (section 3, template rule): distinct ROOT sessions whose turn-0 request holds a block.
    Long2IntOpenHashMap rootTurn0Sessions = new Long2IntOpenHashMap();
    read(file, r -> {
      boolean root = r.turn() == 0 && r.parent() == null && !"subagent".equals(r.trigger());
      if (!root) return;
      LongOpenHashSet once = new LongOpenHashSet(r.chained());
      for (long c : once) rootTurn0Sessions.addTo(c, 1);
    });
    // Pass 2: ideal reuse, sources, intervals, session structure.
    Result res = new Result();
    Long2DoubleOpenHashMap lastSeen = new Long2DoubleOpenHashMap();
    Map<String, LongOpenHashSet> sessionBlocks = new HashMap<>();
    Map<String, Long> sessionTokens = new HashMap<>();
    double[] prevArrival = {Double.NEGATIVE_INFINITY};
    read(file, r -> {
      if (r.arrival() < prevArrival[0]) throw new IllegalStateException("not in arrival order at " + r.id());
      prevArrival[0] = r.arrival();
      res.requests++;
      res.inputTokens += r.in();
      if (r.turn() == 0) res.firstTurns++;
      else {
        res.followUps++;
        if ("tool".equals(r.trigger())) res.toolFollowUps++;
      }
      sessionTokens.merge(r.session(), (long) r.in() + r.out(), Long::sum);
      LongOpenHashSet mine = sessionBlocks.computeIfAbsent(r.session(), k -> new LongOpenHashSet());
      long[] c = r.chained();
      int n = Math.min(c.length, (r.in() + r.blockSize() - 1) / r.blockSize());
      int k = 0;
      while (k < n && lastSeen.containsKey(c[k])) k++;
      for (int i = 0; i < k; i++) {
        long tokens = Math.min(r.blockSize(), r.in() - (long) i * r.blockSize());
        res.hitTokens += tokens;
        int source;
        if (mine.contains(c[i])) {
          res.intraTokens += tokens;
          source = 0;
        } else if (rootTurn0Sessions.get(c[i]) >= 3) {
          res.systemTokens += tokens;
          source = 1;
        } else {
          res.interTokens += tokens;
          source = 2;
        }
        double interval = Math.round((r.arrival() - lastSeen.get(c[i])) * 1e6) / 1e6;
        if (interval <= 100.0) {
          res.within100sTokens += tokens;
          res.within100sBySource[source] += tokens;
        }
      }
      for (int i = 0; i < n; i++) {
        lastSeen.put(c[i], r.arrival());
        mine.add(c[i]);
      }
    });
    res.sessions = sessionTokens.size();
    long[] t = sessionTokens.values().stream().mapToLong(Long::longValue).sorted().toArray();
    long total = 0, top = 0;
    int topN = (int) Math.ceil(0.25 * t.length);
    for (int i = 0; i < t.length; i++) {
      total += t[i];
      if (i >= t.length - topN) top += t[i];
    }
    res.top25TokenShare = (double) top / total;
    return res;
  }

  /** For tuning by hand: {@code TraceOracle file...}. */
  public static void main(String[] args) throws IOException {
    for (String a : args) System.out.println(a + ": " + compute(Path.of(a)));
  }
}
