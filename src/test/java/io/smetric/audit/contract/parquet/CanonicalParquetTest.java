package io.smetric.audit.contract.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smetric.audit.common.BadInputException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Spark-free reader of canonical Parquet: files written by parquet-mr in every layout the
 * bulk path and the generic path must take (page format v1 and v2, snappy, uncompressed and gzip,
 * plain and dictionary-encoded ids, pages far smaller than a row so that block lists run across
 * pages, null and empty block lists, nulls in the optional columns) read back exactly as written.
 */
class CanonicalParquetTest {
  @TempDir Path tmp;

  /** The canonical schema as Spark writes it (3-level list of required int64). */
  static final MessageType SCHEMA = MessageTypeParser.parseMessageType("""
      message spark_schema {
        required binary request_id (STRING);
        optional binary session_id (STRING);
        optional binary parent_id (STRING);
        optional int32 turn;
        required binary trigger (STRING);
        required double arrival_s;
        required int32 input_tokens;
        required int32 output_tokens;
        optional int32 block_size;
        optional group blocks (LIST) {
          repeated group list {
            required int64 element;
          }
        }
        optional binary request_type (STRING);
        required int64 seq;
      }
      """);

  record Req(String id, String session, String parent, Integer turn, String trigger, double arrival, int in, int out,
      Integer bsize, long[] blocks, long seq) {}

  static List<Req> randomRequests(long seed, int n) {
    Random r = new Random(seed);
    List<Req> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long[] b = null;
      int kind = r.nextInt(10);
      if (kind == 0) {
        b = null; // no block list
      } else if (kind == 1) {
        b = new long[0];
      } else {
        b = new long[1 + r.nextInt(kind == 2 ? 3000 : 40)]; // some lists span many small pages
        for (int k = 0; k < b.length; k++) b[k] = r.nextInt(5) == 0 ? k : r.nextLong(); // repeats: dictionary pages
      }
      out.add(new Req("r" + i, r.nextInt(4) == 0 ? null : "s" + r.nextInt(7), r.nextBoolean() ? null : "p" + i,
          r.nextInt(5) == 0 ? null : r.nextInt(9), r.nextBoolean() ? "tool" : "user", i * 0.5, r.nextInt(100000),
          r.nextInt(500), r.nextInt(6) == 0 ? null : 16, b, i));
    }
    return out;
  }

  static void write(Path file, List<Req> reqs, WriterVersion v, CompressionCodecName codec, boolean dictionary)
      throws IOException {
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(SCHEMA)
        .withConf(new PlainParquetConfiguration()).withWriterVersion(v).withCompressionCodec(codec)
        .withDictionaryEncoding(dictionary).withPageSize(4096).withPageRowCountLimit(50).withRowGroupSize(64 * 1024)
        .build()) {
      for (Req q : reqs) {
        SimpleGroup g = new SimpleGroup(SCHEMA);
        g.add("request_id", q.id());
        if (q.session() != null) g.add("session_id", q.session());
        if (q.parent() != null) g.add("parent_id", q.parent());
        if (q.turn() != null) g.add("turn", q.turn());
        g.add("trigger", q.trigger());
        g.add("arrival_s", q.arrival());
        g.add("input_tokens", q.in());
        g.add("output_tokens", q.out());
        if (q.bsize() != null) g.add("block_size", q.bsize());
        if (q.blocks() != null) {
          Group list = g.addGroup("blocks");
          for (long x : q.blocks()) list.addGroup("list").add("element", x);
        }
        g.add("seq", q.seq());
        w.write(g);
      }
    }
  }

  static List<Req> readAll(CanonicalParquet cp, int batchRows) {
    List<Req> out = new ArrayList<>();
    Iterator<TraceBatch> it = cp.batches(batchRows);
    while (it.hasNext()) {
      TraceBatch b = it.next();
      for (int i = 0; i < b.n; i++) {
        long[] blocks = b.idLen[i] < 0 ? null : java.util.Arrays.copyOfRange(b.ids[i] == null ? new long[0] : b.ids[i],
            b.idOff[i], b.idOff[i] + b.idLen[i]);
        out.add(new Req(b.requestId[i], b.sessionId[i], b.parentId[i], b.turn[i] == TraceBatch.NULL_INT ? null : b.turn[i],
            b.trigger[i], b.arrival[i], b.input[i], b.output[i], b.blockSize[i] == TraceBatch.NULL_INT ? null : b.blockSize[i],
            blocks, b.seq[i]));
      }
    }
    return out;
  }

  static void assertSame(List<Req> want, List<Req> got) {
    assertEquals(want.size(), got.size());
    for (int i = 0; i < want.size(); i++) {
      Req w = want.get(i);
      Req g = got.get(i);
      assertEquals(w.id(), g.id());
      assertEquals(w.session(), g.session(), w.id());
      assertEquals(w.parent(), g.parent(), w.id());
      assertEquals(w.turn(), g.turn(), w.id());
      assertEquals(w.trigger(), g.trigger(), w.id());
      assertEquals(w.arrival(), g.arrival(), w.id());
      assertEquals(w.in(), g.in(), w.id());
      assertEquals(w.out(), g.out(), w.id());
      assertEquals(w.bsize(), g.bsize(), w.id());
      if (w.blocks() == null) assertNull(g.blocks(), w.id());
      else assertArrayEquals(w.blocks(), g.blocks(), w.id());
      assertEquals(w.seq(), g.seq(), w.id());
    }
  }

  @ParameterizedTest
  @CsvSource({"PARQUET_1_0, SNAPPY, false", "PARQUET_2_0, SNAPPY, false", "PARQUET_1_0, UNCOMPRESSED, false",
      "PARQUET_2_0, UNCOMPRESSED, false", "PARQUET_1_0, GZIP, false", "PARQUET_1_0, SNAPPY, true",
      "PARQUET_2_0, SNAPPY, true"})
  void everyLayout_readsBackWhatWasWritten(WriterVersion v, CompressionCodecName codec, boolean dictionary)
      throws IOException {
    List<Req> a = randomRequests(1, 300);
    List<Req> b = randomRequests(2, 200);
    Path dir = tmp.resolve("d");
    java.nio.file.Files.createDirectories(dir);
    write(dir.resolve("part-00000.parquet"), a, v, codec, dictionary);
    write(dir.resolve("part-00001.parquet"), b, v, codec, dictionary);
    CanonicalParquet cp = CanonicalParquet.open(dir.toString(), new Configuration(false));
    assertEquals(500, cp.requests());
    // list entries in the footers: every id, plus one entry for each null or empty list
    long entries = 0;
    for (Req q : a) entries += q.blocks() == null || q.blocks().length == 0 ? 1 : q.blocks().length;
    for (Req q : b) entries += q.blocks() == null || q.blocks().length == 0 ? 1 : q.blocks().length;
    assertEquals(entries, cp.blockValues());
    List<Req> all = new ArrayList<>(a);
    all.addAll(b);
    assertSame(all, readAll(cp, 37));
    // the routing sample: the first rows of row groups spread over both files
    List<TraceBatch> sample = cp.sample(4, 5);
    assertEquals(4, sample.size());
    assertEquals("r0", sample.get(0).requestId[0]);
  }

  /** Levels as the RLE/bit-packed hybrid, no length prefix. */
  static byte[] levels(int width, int... v) throws IOException {
    try (var enc = new org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder(width, 64, 1024,
        new org.apache.parquet.bytes.HeapByteBufferAllocator())) {
      for (int x : v) enc.writeInt(x);
      return enc.toBytes().toByteArray();
    }
  }

  /** One v2 data page (levels uncompressed, values plain, not compressed) as the file holds it. */
  static void v2Page(java.io.ByteArrayOutputStream out, int[] rep, int[] def, long[] values) throws IOException {
    byte[] rl = levels(1, rep);
    byte[] dl = levels(2, def);
    java.nio.ByteBuffer v = java.nio.ByteBuffer.allocate(values.length * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (long x : values) v.putLong(x);
    int size = rl.length + dl.length + v.capacity();
    int rows = 0;
    for (int r : rep) if (r == 0) rows++;
    var h = new org.apache.parquet.format.PageHeader(org.apache.parquet.format.PageType.DATA_PAGE_V2, size, size);
    h.setData_page_header_v2(new org.apache.parquet.format.DataPageHeaderV2(rep.length, 0, rows,
        org.apache.parquet.format.Encoding.PLAIN, dl.length, rl.length).setIs_compressed(false));
    org.apache.parquet.format.Util.writePageHeader(h, out);
    out.write(rl);
    out.write(dl);
    out.write(v.array());
  }

  /**
   * Page format v2 with plain values (parquet-mr's own v2 writer never makes plain int64 pages,
   * other writers do): rows [1, 2, 3], null, [], [4, 5 | 6] across the page boundary, [7].
   */
  @Test
  void v2Pages_plainValues_rowsAcrossPages() throws IOException {
    java.io.ByteArrayOutputStream chunk = new java.io.ByteArrayOutputStream();
    v2Page(chunk, new int[] {0, 1, 1, 0, 0, 0, 1}, new int[] {2, 2, 2, 0, 1, 2, 2}, new long[] {1, 2, 3, 4, 5});
    v2Page(chunk, new int[] {1, 0}, new int[] {2, 2}, new long[] {6, 7});
    byte[] bytes = chunk.toByteArray();
    Path f = tmp.resolve("chunk.bin");
    java.nio.file.Files.write(f, bytes);
    var in = new org.apache.parquet.io.LocalInputFile(f).newStream();
    var pages = new BlockColumn.RawPages(new BlockColumn.ChunkStream(in, 0, bytes.length), false, 9);
    var d = SCHEMA.getColumnDescription(new String[] {"blocks", "list", "element"});
    BlockColumn col = new BlockColumn.Fast(pages, d, SCHEMA.getMaxDefinitionLevel("blocks"), "chunk.bin");
    List<long[]> rows = new ArrayList<>();
    while (col.next()) rows.add(col.len < 0 ? null : java.util.Arrays.copyOfRange(col.arr == null ? new long[0] : col.arr,
        col.off, col.off + col.len));
    in.close();
    assertEquals(5, rows.size());
    assertArrayEquals(new long[] {1, 2, 3}, rows.get(0));
    assertNull(rows.get(1));
    assertArrayEquals(new long[0], rows.get(2));
    assertArrayEquals(new long[] {4, 5, 6}, rows.get(3));
    assertArrayEquals(new long[] {7}, rows.get(4));
  }

  @Test
  void missingColumn_isBadInputNamingFileAndColumn() throws IOException {
    MessageType noSeq = MessageTypeParser.parseMessageType("message m { required binary request_id (STRING); }");
    Path f = tmp.resolve("x.parquet");
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(f)).withType(noSeq)
        .withConf(new PlainParquetConfiguration()).build()) {
      SimpleGroup g = new SimpleGroup(noSeq);
      g.add("request_id", "a");
      w.write(g);
    }
    BadInputException e = assertThrows(BadInputException.class, () -> CanonicalParquet.open(f.toString(), new Configuration(false)));
    assertEquals("session_id", e.field());
    assertEquals(true, e.oneLine().contains("x.parquet"), e.oneLine());
  }
}
