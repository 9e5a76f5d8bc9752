package io.smetric.audit.infer.corpus;

import com.fasterxml.jackson.databind.JsonNode;
import io.smetric.audit.common.Json;
import io.smetric.audit.contract.BlockChain;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Mooncake-format trace and a truth file of the project's generator ({@code line,
 * session_id, parent_line, turn, fork, compacted}) into corpus requests, so that the same content
 * classes and per-class scores apply to it. The truth has no family: it is the root of the
 * parent-link tree (a request whose parent was sent before the trace starts roots its own). Link
 * classes come from the truth's flags: root, mid_trace_start (no parent but turn &gt; 0 or a fork),
 * fork (a sub-agent's turn 0), compaction, continuation.
 */
public final class ExternalTrace {
  private ExternalTrace() {}

  public static List<CorpusRequest> read(Path trace, Path truth) throws IOException {
    List<CorpusRequest> out = new ArrayList<>();
    Long2IntOpenHashMap ids = new Long2IntOpenHashMap();
    ids.defaultReturnValue(-1);
    try (BufferedReader r = Files.newBufferedReader(trace, StandardCharsets.UTF_8)) {
      String s;
      while ((s = r.readLine()) != null) {
        if (s.isBlank()) continue;
        JsonNode n = Json.MAPPER.readTree(s);
        CorpusRequest c = new CorpusRequest();
        c.line = out.size();
        c.timestampMs = n.get("timestamp").asLong();
        c.inputTokens = n.get("input_length").asInt();
        c.outputTokens = n.get("output_length").asInt();
        JsonNode h = n.get("hash_ids");
        long[] raw = new long[h.size()];
        for (int i = 0; i < raw.length; i++) raw[i] = h.get(i).asLong();
        long[] chained = BlockChain.chain(raw); // equal id = equal prefix, whatever the source hashed
        c.hashIds = new int[chained.length];
        for (int i = 0; i < chained.length; i++) {
          int id = ids.get(chained[i]);
          if (id < 0) {
            id = ids.size();
            ids.put(chained[i], id);
          }
          c.hashIds[i] = id;
        }
        out.add(c);
      }
    }
    int k = 0;
    try (BufferedReader r = Files.newBufferedReader(truth, StandardCharsets.UTF_8)) {
      String s;
      while ((s = r.readLine()) != null) {
        if (s.isBlank()) continue;
        JsonNode n = Json.MAPPER.readTree(s);
        CorpusRequest c = out.get(n.get("line").asInt());
        c.session = n.get("session_id").asText();
        c.parentLine = n.get("parent_line").isNull() ? -1 : n.get("parent_line").asInt();
        c.turn = n.get("turn").asInt();
        c.trigger = n.path("trigger").asText("unknown");
        c.fork = n.path("fork").asBoolean(false);
        c.compacted = n.path("compacted").asBoolean(false);
        k++;
      }
    }
    if (k != out.size()) throw new IOException(truth + ": " + k + " truth lines for " + out.size() + " requests");
    for (CorpusRequest c : out) {
      CorpusRequest root = c;
      while (root.parentLine >= 0) root = out.get(root.parentLine);
      c.family = "f" + root.line;
      if (c.parentLine < 0) c.linkClass = c.turn > 0 || c.fork ? LinkClass.MID_TRACE_START : LinkClass.ROOT;
      else if (c.compacted) c.linkClass = LinkClass.COMPACTION;
      else if (c.fork && c.turn == 0) c.linkClass = "fork";
      else c.linkClass = LinkClass.CONTINUATION;
    }
    return out;
  }
}
