package io.smetric.audit.replay.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smetric.audit.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A {@link ReplayTrace} as a folder of Arrow IPC stream files on any Hadoop file system, so that
 * a sweep's tasks load the compact trace from storage once per executor JVM instead of the driver
 * holding and broadcasting it. One file per array ({@code <name>.arrow}, a single non-null column
 * named {@code v}, written in batches of at most {@link #BATCH} values so that arrays of any length
 * stream with bounded buffers) plus {@code meta.json} with the scalars and every array's length.
 * Arrow keeps the format language-neutral (pyarrow reads each file with {@code pa.ipc.open_stream}).
 */
public final class TraceFile {
  static final int BATCH = 1 << 20;
  static final int FORMAT = 2;

  private TraceFile() {}

  /** Writes {@code t} into the folder {@code dir} (created; must not exist). */
  public static void write(ReplayTrace t, String dir, Configuration conf) {
    Path d = new Path(dir);
    try (BufferAllocator alloc = new RootAllocator()) {
      FileSystem fs = d.getFileSystem(conf);
      if (!fs.mkdirs(d)) throw new IOException("cannot create " + dir);
      Map<String, Long> lengths = new LinkedHashMap<>();
      ints(fs, d, alloc, lengths, "input", t.input);
      ints(fs, d, alloc, lengths, "output", t.output);
      ints(fs, d, alloc, lengths, "turn", t.turn);
      ints(fs, d, alloc, lengths, "session", t.session);
      ints(fs, d, alloc, lengths, "blocks", t.blocks);
      ints(fs, d, alloc, lengths, "est_hit_blocks", t.estHitBlocks);
      ints(fs, d, alloc, lengths, "prev_in_session", t.prevInSession);
      ints(fs, d, alloc, lengths, "session_first", t.sessionFirst);
      ints(fs, d, alloc, lengths, "fork_parent", t.forkParent);
      ints(fs, d, alloc, lengths, "seg_parent", t.segParent);
      ints(fs, d, alloc, lengths, "seg_start", t.segStart);
      ints(fs, d, alloc, lengths, "seg_len", t.segLen);
      ints(fs, d, alloc, lengths, "path_off", t.pathOff);
      ints(fs, d, alloc, lengths, "path_nodes", t.pathNodes);
      doubles(fs, d, alloc, lengths, "arrival", t.arrival);
      longs(fs, d, alloc, lengths, "session_hash", t.sessionHash);
      if (t.segBlocks != null) {
        longs(fs, d, alloc, lengths, "seg_blocks", t.segBlocks);
        longs(fs, d, alloc, lengths, "seg_block_off", t.segBlockOff);
      }
      strings(fs, d, alloc, lengths, "request_id", t.requestIds);
      ObjectNode m = Json.object();
      m.put("format", "smetric-audit replay trace (Arrow IPC stream per array)");
      m.put("format_version", FORMAT);
      m.put("n", t.n);
      m.put("block_size", t.blockSize);
      m.put("has_blocks", t.hasBlocks);
      m.put("has_sessions", t.hasSessions);
      m.put("has_turns", t.hasTurns);
      m.put("sessions", t.sessions);
      m.put("block_count_mismatches", t.blockCountMismatches);
      m.put("segments", t.segments);
      ObjectNode ln = m.putObject("lengths");
      lengths.forEach(ln::put);
      try (OutputStream os = fs.create(new Path(d, "meta.json"), false)) {
        os.write(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(m));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the replay trace to " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Reads a folder written by {@link #write}. */
  public static ReplayTrace read(String dir, Configuration conf) {
    Path d = new Path(dir);
    try (BufferAllocator alloc = new RootAllocator()) {
      FileSystem fs = d.getFileSystem(conf);
      JsonNode m;
      try (InputStream in = fs.open(new Path(d, "meta.json"))) {
        m = Json.MAPPER.readTree(in);
      }
      if (m.path("format_version").asInt() != FORMAT) {
        throw new IOException("unsupported format_version " + m.path("format_version") + " (expected " + FORMAT + ")");
      }
      JsonNode len = m.get("lengths");
      boolean keep = len.has("seg_blocks");
      return new ReplayTrace(m.get("n").asInt(), m.get("block_size").asInt(), m.get("has_blocks").asBoolean(),
          m.get("has_sessions").asBoolean(), m.get("has_turns").asBoolean(),
          readStrings(fs, d, alloc, len, "request_id"), readDoubles(fs, d, alloc, len, "arrival"),
          readInts(fs, d, alloc, len, "input"), readInts(fs, d, alloc, len, "output"),
          readInts(fs, d, alloc, len, "turn"), readInts(fs, d, alloc, len, "session"),
          readLongs(fs, d, alloc, len, "session_hash"), m.get("sessions").asInt(),
          readInts(fs, d, alloc, len, "blocks"), m.get("block_count_mismatches").asInt(),
          readInts(fs, d, alloc, len, "est_hit_blocks"), readInts(fs, d, alloc, len, "prev_in_session"),
          readInts(fs, d, alloc, len, "session_first"), readInts(fs, d, alloc, len, "fork_parent"),
          m.get("segments").asInt(),
          readInts(fs, d, alloc, len, "seg_parent"), readInts(fs, d, alloc, len, "seg_start"),
          readInts(fs, d, alloc, len, "seg_len"), readInts(fs, d, alloc, len, "path_off"),
          readInts(fs, d, alloc, len, "path_nodes"),
          keep ? readLongs(fs, d, alloc, len, "seg_blocks") : null,
          keep ? readLongs(fs, d, alloc, len, "seg_block_off") : null);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot read the replay trace " + dir + ": " + e.getMessage(), e);
    }
  }

  // ------------------------------------------------------------------ writing

  private interface Filler {
    /** Fills the vector with values [from, from + count). */
    void fill(FieldVector v, int from, int count);
  }

  private static void column(FileSystem fs, Path d, BufferAllocator alloc, Map<String, Long> lengths, String name,
      ArrowType type, long length, Filler filler) throws IOException {
    Schema schema = new Schema(List.of(new Field("v", FieldType.notNullable(type), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
        OutputStream os = fs.create(new Path(d, name + ".arrow"), false);
        ArrowStreamWriter w = new ArrowStreamWriter(root, null, Channels.newChannel(os))) {
      w.start();
      FieldVector v = root.getVector(0);
      for (long from = 0; from < length; from += BATCH) {
        int count = (int) Math.min(BATCH, length - from);
        v.reset();
        filler.fill(v, (int) from, count);
        v.setValueCount(count);
        root.setRowCount(count);
        w.writeBatch();
      }
      w.end();
    }
    lengths.put(name, length);
  }

  private static void ints(FileSystem fs, Path d, BufferAllocator a, Map<String, Long> l, String name, int[] x)
      throws IOException {
    column(fs, d, a, l, name, new ArrowType.Int(32, true), x.length, (v, from, count) -> {
      IntVector iv = (IntVector) v;
      iv.allocateNew(count);
      for (int i = 0; i < count; i++) iv.set(i, x[from + i]);
    });
  }

  private static void longs(FileSystem fs, Path d, BufferAllocator a, Map<String, Long> l, String name, long[] x)
      throws IOException {
    column(fs, d, a, l, name, new ArrowType.Int(64, true), x.length, (v, from, count) -> {
      BigIntVector bv = (BigIntVector) v;
      bv.allocateNew(count);
      for (int i = 0; i < count; i++) bv.set(i, x[from + i]);
    });
  }

  private static void doubles(FileSystem fs, Path d, BufferAllocator a, Map<String, Long> l, String name, double[] x)
      throws IOException {
    column(fs, d, a, l, name, new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE),
        x.length, (v, from, count) -> {
          Float8Vector fv = (Float8Vector) v;
          fv.allocateNew(count);
          for (int i = 0; i < count; i++) fv.set(i, x[from + i]);
        });
  }

  private static void strings(FileSystem fs, Path d, BufferAllocator a, Map<String, Long> l, String name, String[] x)
      throws IOException {
    column(fs, d, a, l, name, new ArrowType.Utf8(), x.length, (v, from, count) -> {
      VarCharVector sv = (VarCharVector) v;
      sv.allocateNew(count);
      for (int i = 0; i < count; i++) sv.setSafe(i, x[from + i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
    });
  }

  // ------------------------------------------------------------------ reading

  private interface Drainer {
    void drain(FieldVector v, int at, int count);
  }

  private static void readColumn(FileSystem fs, Path d, BufferAllocator alloc, JsonNode lengths, String name,
      Drainer drainer) throws IOException {
    long expected = lengths.get(name).asLong();
    long at = 0;
    try (InputStream in = fs.open(new Path(d, name + ".arrow"));
        ArrowStreamReader r = new ArrowStreamReader(in, alloc)) {
      VectorSchemaRoot root = r.getVectorSchemaRoot();
      while (r.loadNextBatch()) {
        int count = root.getRowCount();
        if (at + count > expected) throw new IOException(name + ".arrow: more values than meta.json's " + expected);
        drainer.drain(root.getVector(0), (int) at, count);
        at += count;
      }
    }
    if (at != expected) throw new IOException(name + ".arrow: " + at + " values, meta.json says " + expected);
  }

  private static int[] readInts(FileSystem fs, Path d, BufferAllocator a, JsonNode l, String name) throws IOException {
    int[] x = new int[Math.toIntExact(l.get(name).asLong())];
    readColumn(fs, d, a, l, name, (v, at, count) -> {
      IntVector iv = (IntVector) v;
      for (int i = 0; i < count; i++) x[at + i] = iv.get(i);
    });
    return x;
  }

  private static long[] readLongs(FileSystem fs, Path d, BufferAllocator a, JsonNode l, String name) throws IOException {
    long[] x = new long[Math.toIntExact(l.get(name).asLong())];
    readColumn(fs, d, a, l, name, (v, at, count) -> {
      BigIntVector bv = (BigIntVector) v;
      for (int i = 0; i < count; i++) x[at + i] = bv.get(i);
    });
    return x;
  }

  private static double[] readDoubles(FileSystem fs, Path d, BufferAllocator a, JsonNode l, String name)
      throws IOException {
    double[] x = new double[Math.toIntExact(l.get(name).asLong())];
    readColumn(fs, d, a, l, name, (v, at, count) -> {
      Float8Vector fv = (Float8Vector) v;
      for (int i = 0; i < count; i++) x[at + i] = fv.get(i);
    });
    return x;
  }

  private static String[] readStrings(FileSystem fs, Path d, BufferAllocator a, JsonNode l, String name)
      throws IOException {
    String[] x = new String[Math.toIntExact(l.get(name).asLong())];
    readColumn(fs, d, a, l, name, (v, at, count) -> {
      VarCharVector sv = (VarCharVector) v;
      for (int i = 0; i < count; i++) x[at + i] = new String(sv.get(i), java.nio.charset.StandardCharsets.UTF_8);
    });
    return x;
  }
}
