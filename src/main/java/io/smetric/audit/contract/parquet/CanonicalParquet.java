package io.smetric.audit.contract.parquet;

import io.smetric.audit.common.BadInputException;
import io.smetric.audit.contract.Canonical;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * A canonical Parquet dataset read without Spark: the files of one folder in name order (ingest
 * writes them in (arrival_s, seq) order), their footers (row and block-id counts), and a reader
 * that streams {@link TraceBatch}es straight from the column pages (scalar columns through
 * parquet-mr's column reader, the block lists through {@link BlockColumn}). Serializable, so that
 * Spark tasks can open the same files themselves; the Hadoop configuration travels as bytes.
 */
public final class CanonicalParquet implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Scalar columns read, in this order. */
  private static final String[] SCALARS = {Canonical.REQUEST_ID, Canonical.SESSION_ID, Canonical.PARENT_ID,
      Canonical.TURN, Canonical.TRIGGER, Canonical.ARRIVAL_S, Canonical.INPUT_TOKENS, Canonical.OUTPUT_TOKENS,
      Canonical.BLOCK_SIZE, Canonical.SEQ};
  private static final PrimitiveTypeName[] TYPES = {PrimitiveTypeName.BINARY, PrimitiveTypeName.BINARY,
      PrimitiveTypeName.BINARY, PrimitiveTypeName.INT32, PrimitiveTypeName.BINARY, PrimitiveTypeName.DOUBLE,
      PrimitiveTypeName.INT32, PrimitiveTypeName.INT32, PrimitiveTypeName.INT32, PrimitiveTypeName.INT64};
  /** The optional recorded-routing columns (trace-model v1.3), read only when asked for and present. */
  private static final String[] RECORDED = {Canonical.SERVED_INSTANCE, Canonical.TTFT_S, Canonical.E2E_S, Canonical.OUTCOME};
  private static final PrimitiveTypeName[] RECORDED_TYPES = {PrimitiveTypeName.BINARY, PrimitiveTypeName.DOUBLE,
      PrimitiveTypeName.DOUBLE, PrimitiveTypeName.BINARY};
  /** Required (non-null) in the canonical schema. */
  private static final boolean[] REQUIRED = {true, false, false, false, true, true, true, true, false, true};

  public final String folder;
  public final List<String> files;
  /** Rows per file, and entries of the block lists per file (the ids, plus one per null or empty list), from the footers. */
  public final long[] fileRows;
  public final long[] fileBlockValues;
  /** Row groups per file. */
  public final int[] fileGroups;
  private final byte[] conf;
  private transient Configuration hadoopConf;

  private CanonicalParquet(String folder, List<String> files, long[] rows, long[] values, byte[] conf) {
    this.folder = folder;
    this.fileGroups = new int[files.size()];
    this.files = files;
    this.fileRows = rows;
    this.fileBlockValues = values;
    this.conf = conf;
  }

  public long requests() {
    long n = 0;
    for (long r : fileRows) n += r;
    return n;
  }

  /** Block ids in the dataset, from the footers (counting one more for each null or empty list). */
  public long blockValues() {
    long n = 0;
    for (long r : fileBlockValues) n += r;
    return n;
  }

  /** The Parquet files of {@code folder} (a folder of part files, or one file), footers checked. */
  public static CanonicalParquet open(String folder, Configuration conf) {
    return ofFiles(folder, list(folder, conf), conf);
  }

  private static List<String> list(String folder, Configuration conf) {
    Path dir = new Path(folder);
    List<String> files = new ArrayList<>();
    try {
      FileSystem fs = fileSystem(folder, conf);
      FileStatus st = fs.getFileStatus(dir);
      if (st.isDirectory()) {
        for (FileStatus f : fs.listStatus(dir)) {
          String n = f.getPath().getName();
          if (f.isFile() && n.endsWith(".parquet") && !n.startsWith("_") && !n.startsWith(".")) {
            files.add(f.getPath().toString());
          }
        }
      } else {
        files.add(st.getPath().toString());
      }
    } catch (IOException e) {
      throw new BadInputException(folder, "cannot list the Parquet files: " + e.getMessage());
    }
    return files;
  }

  /**
   * The file system of {@code path}: for local paths a raw local file system made directly (no
   * checksum files, and none of the service scanning and user login of {@code FileSystem.get},
   * about half a second of CPU), else the configured one.
   */
  public static FileSystem fileSystem(String path, Configuration conf) throws IOException {
    if (isLocal(path)) {
      org.apache.hadoop.fs.RawLocalFileSystem fs = new org.apache.hadoop.fs.RawLocalFileSystem();
      fs.initialize(java.net.URI.create("file:///"), conf);
      return fs;
    }
    return new Path(path).getFileSystem(conf);
  }

  /** A path without a scheme, or a file: URI. */
  public static boolean isLocal(String path) {
    String scheme = new Path(path).toUri().getScheme();
    return scheme == null || scheme.equals("file");
  }

  /** Named files (sorted here by file name: ingest numbers its parts in trace order), footers checked. */
  public static CanonicalParquet ofFiles(String folder, List<String> fileList, Configuration conf) {
    List<String> files = new ArrayList<>(fileList);
    files.sort((a, b) -> new Path(a).getName().compareTo(new Path(b).getName()));
    long[] rows = new long[files.size()];
    long[] values = new long[files.size()];
    // the configuration travels only where a task needs it: files on a Hadoop file system
    boolean allLocal = files.stream().allMatch(CanonicalParquet::isLocal);
    CanonicalParquet cp = new CanonicalParquet(folder, files, rows, values, allLocal ? null : confBytes(conf));
    cp.hadoopConf = conf;
    for (int i = 0; i < files.size(); i++) {
      try (ParquetFileReader r = cp.openFile(files.get(i))) {
        MessageType schema = r.getFooter().getFileMetaData().getSchema();
        Layout layout = Layout.of(schema, files.get(i));
        cp.fileGroups[i] = r.getRowGroups().size();
        for (BlockMetaData b : r.getRowGroups()) {
          rows[i] += b.getRowCount();
          for (ColumnChunkMetaData c : b.getColumns()) {
            if (c.getPath().equals(org.apache.parquet.hadoop.metadata.ColumnPath.get(layout.blocks().getPath()))) values[i] += c.getValueCount();
          }
        }
      } catch (IOException e) {
        throw new BadInputException(files.get(i), "not a readable Parquet file: " + e.getMessage());
      }
    }
    return cp;
  }

  private static byte[] confBytes(Configuration conf) {
    try {
      ByteArrayOutputStream bo = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bo)) {
        conf.write(out);
      }
      return bo.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Configuration conf() {
    if (hadoopConf == null && conf == null) hadoopConf = new Configuration();
    if (hadoopConf == null) {
      Configuration c = new Configuration(false);
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(conf))) {
        c.readFields(in);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      hadoopConf = c;
    }
    return hadoopConf;
  }

  /** Local files bypass the Hadoop file system (no checksum files, no FS cache); others go through it. */
  private InputFile inputFile(String file) throws IOException {
    URI u = new Path(file).toUri();
    if (u.getScheme() == null || u.getScheme().equals("file")) return new LocalInputFile(Paths.get(u.getPath()));
    return HadoopInputFile.fromPath(new Path(file), conf());
  }

  private ParquetFileReader openFile(String file) throws IOException {
    InputFile in = inputFile(file);
    if (in instanceof LocalInputFile) return ParquetFileReader.open(in, ParquetReadOptions.builder().build());
    return ParquetFileReader.open(in, HadoopReadOptions.builder(conf()).build());
  }

  /**
   * Whether every row group's block-id chunk can be read page by page straight from the file
   * (plain values, RLE levels, snappy or no compression, no encryption): what Spark writes.
   */
  private static boolean rawBlocks(ParquetFileReader pf, Layout l) {
    if (pf.getFooter().getFileMetaData().getEncryptionType()
        != org.apache.parquet.hadoop.metadata.FileMetaData.EncryptionType.UNENCRYPTED) {
      return false;
    }
    org.apache.parquet.hadoop.metadata.ColumnPath path = org.apache.parquet.hadoop.metadata.ColumnPath.get(l.blocks().getPath());
    for (BlockMetaData g : pf.getRowGroups()) {
      for (ColumnChunkMetaData c : g.getColumns()) {
        if (!c.getPath().equals(path)) continue;
        if (!BlockColumn.fast(c.getEncodings(), l.blocks())) return false;
        var codec = c.getCodec();
        if (codec != org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY
            && codec != org.apache.parquet.hadoop.metadata.CompressionCodecName.UNCOMPRESSED) {
          return false;
        }
      }
    }
    return true;
  }

  private static ColumnChunkMetaData chunk(BlockMetaData g, ColumnDescriptor d) {
    org.apache.parquet.hadoop.metadata.ColumnPath path = org.apache.parquet.hadoop.metadata.ColumnPath.get(d.getPath());
    for (ColumnChunkMetaData c : g.getColumns()) if (c.getPath().equals(path)) return c;
    throw new IllegalStateException("no chunk for " + path);
  }

  /** Where each column sits in one file's schema; the canonical columns checked by name and type. */
  record Layout(ColumnDescriptor[] scalars, ColumnDescriptor blocks, int listDef, MessageType requested,
      MessageType scalarsOnly, ColumnDescriptor[] recorded) {
    static Layout of(MessageType schema, String file) {
      return of(schema, file, false);
    }

    /**
     * {@code withRecorded}: the recorded-routing columns the file has are read too ({@code
     * recorded[k]} null where the file lacks column k: all its values are null, as the Spark
     * readers' optional columns); one of another type is bad input.
     */
    static Layout of(MessageType schema, String file, boolean withRecorded) {
      ColumnDescriptor[] sc = new ColumnDescriptor[SCALARS.length];
      List<Type> fields = new ArrayList<>();
      for (int i = 0; i < SCALARS.length; i++) {
        if (!schema.containsField(SCALARS[i])) {
          throw new BadInputException(file, -1, SCALARS[i], "column missing (expected the canonical schema)");
        }
        Type t = schema.getType(SCALARS[i]);
        if (!t.isPrimitive() || t.asPrimitiveType().getPrimitiveTypeName() != TYPES[i]) {
          throw new BadInputException(file, -1, SCALARS[i], "has type " + t + ", the canonical schema says " + TYPES[i]);
        }
        sc[i] = schema.getColumnDescription(new String[] {SCALARS[i]});
        fields.add(t);
      }
      if (!schema.containsField(Canonical.BLOCKS)) {
        throw new BadInputException(file, -1, Canonical.BLOCKS, "column missing (expected the canonical schema)");
      }
      Type bt = schema.getType(Canonical.BLOCKS);
      ColumnDescriptor blocks = null;
      for (ColumnDescriptor c : schema.getColumns()) {
        if (c.getPath()[0].equals(Canonical.BLOCKS)) {
          if (blocks != null) throw new BadInputException(file, -1, Canonical.BLOCKS, "is not a list of int64");
          blocks = c;
        }
      }
      if (bt.isPrimitive() || blocks == null || blocks.getMaxRepetitionLevel() != 1
          || blocks.getPrimitiveType().getPrimitiveTypeName() != PrimitiveTypeName.INT64) {
        throw new BadInputException(file, -1, Canonical.BLOCKS, "is " + bt + ", the canonical schema says a list of int64");
      }
      ColumnDescriptor[] rec = null;
      if (withRecorded) {
        rec = new ColumnDescriptor[RECORDED.length];
        for (int k = 0; k < RECORDED.length; k++) {
          if (!schema.containsField(RECORDED[k])) continue;
          Type t = schema.getType(RECORDED[k]);
          if (!t.isPrimitive() || t.asPrimitiveType().getPrimitiveTypeName() != RECORDED_TYPES[k]) {
            throw new BadInputException(file, -1, RECORDED[k], "has type " + t + ", the canonical schema says " + RECORDED_TYPES[k]);
          }
          rec[k] = schema.getColumnDescription(new String[] {RECORDED[k]});
          fields.add(t);
        }
      }
      MessageType scalarsOnly = new MessageType(schema.getName(), new ArrayList<>(fields));
      fields.add(bt);
      int listDef = schema.getMaxDefinitionLevel(Canonical.BLOCKS);
      return new Layout(sc, blocks, listDef, new MessageType(schema.getName(), fields), scalarsOnly, rec);
    }
  }

  /**
   * A sample (the characterization's routing decision reads one): the first {@code rowsEach} rows of up to {@code groups} row groups
   * spread evenly over the dataset (deterministic).
   */
  public List<TraceBatch> sample(int groups, int rowsEach) {
    List<int[]> all = new ArrayList<>();
    for (int f = 0; f < files.size(); f++) for (int g = 0; g < fileGroups[f]; g++) all.add(new int[] {f, g});
    List<TraceBatch> out = new ArrayList<>();
    int k = Math.min(groups, all.size());
    for (int q = 0; q < k; q++) {
      int[] fg = all.get((int) ((long) q * all.size() / k));
      String file = files.get(fg[0]);
      try (ParquetFileReader pf = openFile(file)) {
        Layout l = Layout.of(pf.getFooter().getFileMetaData().getSchema(), file);
        // on the bulk path only the scalar columns of the group are read whole; the block-id
        // pages are read as far as the sampled rows need them (a group can hold 100+ MB of ids)
        boolean raw = rawBlocks(pf, l);
        pf.setRequestedSchema(raw ? l.scalarsOnly() : l.requested());
        PageReadStore store = pf.readRowGroup(fg[1]);
        BlockMetaData meta = pf.getRowGroups().get(fg[1]);
        if (raw) {
          ColumnChunkMetaData c = chunk(meta, l.blocks());
          try (org.apache.parquet.io.SeekableInputStream blockStream = inputFile(file).newStream()) {
            BlockColumn.Pages pages = new BlockColumn.RawPages(
                new BlockColumn.ChunkStream(blockStream, c.getStartingPos(), c.getTotalSize()),
                c.getCodec() == org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY, c.getValueCount());
            out.add(new RowGroup(store, l, pf.getFooter().getFileMetaData().getCreatedBy(), meta, file, pages, rowsEach)
                .take(rowsEach));
          }
        } else {
          out.add(new RowGroup(store, l, pf.getFooter().getFileMetaData().getCreatedBy(), meta, file, null, rowsEach)
              .take(rowsEach));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(file + ": " + e.getMessage(), e);
      }
    }
    return out;
  }

  /** Batches of at most {@code maxRows} requests of every file, in file order (the caller checks the order). */
  public Iterator<TraceBatch> batches(int maxRows) {
    return new Reader(maxRows, false);
  }

  /**
   * As {@link #batches(int)}, with the recorded-routing columns of trace-model v1.3 filled in each
   * batch ({@link TraceBatch#servedInstance} and the rest; nulls where a file lacks a column), in
   * the same pass: validate reads a trace and its measurements once.
   */
  public Iterator<TraceBatch> batchesWithRecorded(int maxRows) {
    return new Reader(maxRows, true);
  }

  /** Streams row groups: scalars of a whole row group at once, block lists row by row. */
  private final class Reader implements Iterator<TraceBatch> {
    private final int maxRows;
    private final boolean withRecorded;
    private int file = -1;
    private ParquetFileReader pf;
    private Layout layout;
    private String createdBy;
    private RowGroup rg;
    private int group;
    private boolean raw;
    private org.apache.parquet.io.SeekableInputStream blockStream;
    private TraceBatch ready;

    Reader(int maxRows, boolean withRecorded) {
      this.maxRows = maxRows;
      this.withRecorded = withRecorded;
    }

    @Override
    public boolean hasNext() {
      if (ready == null) ready = advance();
      return ready != null;
    }

    @Override
    public TraceBatch next() {
      if (!hasNext()) throw new NoSuchElementException();
      TraceBatch b = ready;
      ready = null;
      return b;
    }

    private void close() throws IOException {
      if (pf != null) pf.close();
      pf = null;
      if (blockStream != null) blockStream.close();
      blockStream = null;
    }

    private TraceBatch advance() {
      try {
        while (rg == null || rg.left() == 0) {
          PageReadStore store = pf == null ? null : pf.readNextRowGroup();
          if (store == null) {
            close();
            if (++file >= files.size()) return null;
            pf = openFile(files.get(file));
            group = 0;
            MessageType schema = pf.getFooter().getFileMetaData().getSchema();
            layout = Layout.of(schema, files.get(file), withRecorded);
            createdBy = pf.getFooter().getFileMetaData().getCreatedBy();
            raw = rawBlocks(pf, layout);
            if (raw) blockStream = inputFile(files.get(file)).newStream();
            pf.setRequestedSchema(raw ? layout.scalarsOnly() : layout.requested());
            continue;
          }
          BlockMetaData meta = pf.getRowGroups().get(group++);
          BlockColumn.Pages pages = null;
          if (raw) {
            ColumnChunkMetaData c = chunk(meta, layout.blocks());
            pages = new BlockColumn.RawPages(new BlockColumn.ChunkStream(blockStream, c.getStartingPos(), c.getTotalSize()),
                c.getCodec() == org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY, c.getValueCount());
          }
          rg = new RowGroup(store, layout, createdBy, meta, files.get(file), pages, Integer.MAX_VALUE);
        }
        return rg.take(maxRows);
      } catch (IOException e) {
        try {
          close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw new UncheckedIOException(files.get(Math.max(0, file)) + ": " + e.getMessage(), e);
      }
    }
  }

  /** One row group: its scalar columns decoded up front, its block lists on demand. */
  private static final class RowGroup {
    final int rows;
    int pos;
    final double[] arrival;
    final long[] seq;
    final int[] turn;
    final int[] input;
    final int[] output;
    final int[] blockSize;
    final String[] requestId;
    final String[] sessionId;
    final String[] parentId;
    final String[] trigger;
    final BlockColumn blocks;
    final String file;
    /** The recorded-routing columns (null unless the layout asks for them; null values where absent). */
    final String[] servedInstance;
    final double[] ttft;
    final double[] e2e;
    final String[] outcome;

    /**
     * {@code rawPages}: the block-id pages read from the file directly (null: through parquet-mr);
     * {@code limit}: decode only the first rows (a sample).
     */
    RowGroup(PageReadStore store, Layout l, String createdBy, BlockMetaData meta, String file, BlockColumn.Pages rawPages,
        int limit) {
      this.file = file;
      long n = store.getRowCount();
      if (n > Integer.MAX_VALUE) throw new BadInputException(file, "a row group of more than 2^31 rows");
      rows = (int) Math.min(n, limit);
      ColumnReadStoreImpl crs = new ColumnReadStoreImpl(store, new NoConverter(l.requested()), l.requested(), createdBy);
      requestId = strings(crs.getColumnReader(l.scalars()[0]), 0);
      sessionId = strings(crs.getColumnReader(l.scalars()[1]), 1);
      parentId = strings(crs.getColumnReader(l.scalars()[2]), 2);
      turn = ints(crs.getColumnReader(l.scalars()[3]), 3);
      trigger = strings(crs.getColumnReader(l.scalars()[4]), 4);
      arrival = new double[rows];
      ColumnReader a = crs.getColumnReader(l.scalars()[5]);
      int maxDefA = l.scalars()[5].getMaxDefinitionLevel();
      for (int i = 0; i < rows; i++) {
        if (a.getCurrentDefinitionLevel() != maxDefA) throw nul(5);
        arrival[i] = a.getDouble();
        a.consume();
      }
      input = ints(crs.getColumnReader(l.scalars()[6]), 6);
      output = ints(crs.getColumnReader(l.scalars()[7]), 7);
      blockSize = ints(crs.getColumnReader(l.scalars()[8]), 8);
      seq = new long[rows];
      ColumnReader s = crs.getColumnReader(l.scalars()[9]);
      int maxDefS = l.scalars()[9].getMaxDefinitionLevel();
      for (int i = 0; i < rows; i++) {
        if (s.getCurrentDefinitionLevel() != maxDefS) throw nul(9);
        seq[i] = s.getLong();
        s.consume();
      }
      if (l.recorded() != null) {
        ColumnDescriptor[] rc = l.recorded();
        servedInstance = rc[0] == null ? new String[rows] : strings(crs.getColumnReader(rc[0]), -1);
        ttft = doubles(rc[1] == null ? null : crs.getColumnReader(rc[1]));
        e2e = doubles(rc[2] == null ? null : crs.getColumnReader(rc[2]));
        outcome = rc[3] == null ? new String[rows] : strings(crs.getColumnReader(rc[3]), -1);
      } else {
        servedInstance = null;
        ttft = null;
        e2e = null;
        outcome = null;
      }
      if (rawPages != null) {
        blocks = new BlockColumn.Fast(rawPages, l.blocks(), l.listDef(), file);
      } else if (BlockColumn.fast(chunk(meta, l.blocks()).getEncodings(), l.blocks())) {
        blocks = new BlockColumn.Fast(new BlockColumn.MrPages(store.getPageReader(l.blocks())), l.blocks(), l.listDef(), file);
      } else {
        blocks = new BlockColumn.Generic(crs.getColumnReader(l.blocks()), l.blocks(), l.listDef(), file);
      }
    }

    int left() {
      return rows - pos;
    }

    private BadInputException nul(int col) {
      return new BadInputException(file, -1, SCALARS[col], "null in a required column");
    }

    private String[] strings(ColumnReader c, int col) {
      String[] out = new String[rows];
      Map<org.apache.parquet.io.api.Binary, String> seen = new HashMap<>();
      int maxDef = c.getDescriptor().getMaxDefinitionLevel();
      for (int i = 0; i < rows; i++) {
        if (c.getCurrentDefinitionLevel() == maxDef) {
          org.apache.parquet.io.api.Binary b = c.getBinary();
          // interned per row group: trigger and session ids repeat
          String s = seen.get(b);
          if (s == null) {
            s = b.toStringUsingUTF8();
            if (seen.size() < 65536) seen.put(b.copy(), s);
          }
          out[i] = s;
        } else if (col >= 0 && REQUIRED[col]) {
          throw nul(col);
        }
        c.consume();
      }
      return out;
    }

    /** An optional double column: NaN for null (and for every row when the file lacks it: {@code c} null). */
    private double[] doubles(ColumnReader c) {
      double[] out = new double[rows];
      if (c == null) {
        java.util.Arrays.fill(out, Double.NaN);
        return out;
      }
      int maxDef = c.getDescriptor().getMaxDefinitionLevel();
      for (int i = 0; i < rows; i++) {
        out[i] = c.getCurrentDefinitionLevel() == maxDef ? c.getDouble() : Double.NaN;
        c.consume();
      }
      return out;
    }

    private int[] ints(ColumnReader c, int col) {
      int[] out = new int[rows];
      int maxDef = c.getDescriptor().getMaxDefinitionLevel();
      for (int i = 0; i < rows; i++) {
        if (c.getCurrentDefinitionLevel() == maxDef) out[i] = c.getInteger();
        else if (REQUIRED[col]) throw nul(col);
        else out[i] = TraceBatch.NULL_INT;
        c.consume();
      }
      return out;
    }

    TraceBatch take(int max) {
      int k = Math.min(max, rows - pos);
      TraceBatch b = new TraceBatch(k);
      System.arraycopy(arrival, pos, b.arrival, 0, k);
      System.arraycopy(seq, pos, b.seq, 0, k);
      System.arraycopy(turn, pos, b.turn, 0, k);
      System.arraycopy(input, pos, b.input, 0, k);
      System.arraycopy(output, pos, b.output, 0, k);
      System.arraycopy(blockSize, pos, b.blockSize, 0, k);
      System.arraycopy(requestId, pos, b.requestId, 0, k);
      System.arraycopy(sessionId, pos, b.sessionId, 0, k);
      System.arraycopy(parentId, pos, b.parentId, 0, k);
      System.arraycopy(trigger, pos, b.trigger, 0, k);
      if (servedInstance != null) b.recorded(java.util.Arrays.copyOfRange(servedInstance, pos, pos + k),
          java.util.Arrays.copyOfRange(ttft, pos, pos + k), java.util.Arrays.copyOfRange(e2e, pos, pos + k),
          java.util.Arrays.copyOfRange(outcome, pos, pos + k));
      for (int i = 0; i < k; i++) {
        if (!blocks.next()) throw new BadInputException(file, "fewer block lists than rows in a row group");
        b.ids[i] = blocks.arr;
        b.idOff[i] = blocks.off;
        b.idLen[i] = blocks.len;
      }
      pos += k;
      return b;
    }
  }

  /** Converters are required by parquet-mr's column store but unused: values are read from the column readers. */
  private static final class NoConverter extends GroupConverter {
    private final Converter[] children;

    NoConverter(GroupType t) {
      children = new Converter[t.getFieldCount()];
      for (int i = 0; i < children.length; i++) {
        Type f = t.getType(i);
        children[i] = f.isPrimitive() ? new PrimitiveConverter() {} : new NoConverter(f.asGroupType());
      }
    }

    @Override
    public Converter getConverter(int i) {
      return children[i];
    }

    @Override
    public void start() {}

    @Override
    public void end() {}
  }
}
