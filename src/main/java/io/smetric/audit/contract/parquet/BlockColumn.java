package io.smetric.audit.contract.parquet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReader;

/**
 * Reads the {@code blocks} list column of one row group row by row, handing out each row as a
 * slice of a decoded page ({@link #arr}, {@link #off}, {@link #len}). Plain-encoded 64-bit values
 * with RLE/bit-packed levels (what Spark writes, page format v1 or v2) are decoded in bulk: the
 * values of a page are one array copy, the levels one pass over bytes; pages are decoded only when
 * a row needs them. Any other encoding goes through parquet-mr's generic column reader, value by
 * value ({@link #generic}).
 *
 * <p>Levels: an entry with repetition level 0 starts a row; definition level {@code maxDef} is a
 * value, {@code listDef} or more an empty list, less a null list; an entry below {@code maxDef}
 * inside a list would be a null element, which the canonical schema does not allow.
 */
abstract class BlockColumn {
  private static final Set<Encoding> FAST = EnumSet.of(Encoding.PLAIN, Encoding.RLE);

  /** The current row: {@code len < 0} no block list, else ids {@code arr[off .. off + len)}. */
  long[] arr;
  int off;
  int len;

  final int maxDef;
  final int listDef;
  final String where;

  BlockColumn(ColumnDescriptor d, int listDef, String where) {
    this.maxDef = d.getMaxDefinitionLevel();
    this.listDef = listDef;
    this.where = where;
  }

  /** Advances to the next row; false at the end of the chunk. */
  abstract boolean next();

  /** Whether the chunk's encodings allow the bulk path ({@link Fast}). */
  static boolean fast(Set<Encoding> chunkEncodings, ColumnDescriptor d) {
    return FAST.containsAll(chunkEncodings) && d.getMaxRepetitionLevel() == 1;
  }

  IllegalStateException bad(String what) {
    return new IllegalStateException(what + " in the blocks column of " + where);
  }

  /**
   * Bulk decoding of plain values with RLE levels, page by page. A page whose definition levels
   * are all "value present" (one RLE run: no null or empty lists in it, the usual case) is cut
   * into rows from the positions of its zero repetition levels alone; other pages are walked
   * entry by entry.
   */
  static final class Fast extends BlockColumn {
    private final Pages pages;
    private final int defWidth;
    private byte[] rep = new byte[0];
    private byte[] def = new byte[0];
    private int[] starts = new int[0];
    private int nStarts;
    private int k;
    private boolean uniform;
    private long[] values;
    private int count;
    private int e;
    private int v;

    Fast(Pages pages, ColumnDescriptor d, int listDef, String where) {
      super(d, listDef, where);
      this.pages = pages;
      this.defWidth = 32 - Integer.numberOfLeadingZeros(maxDef);
    }

    private boolean load() {
      Page page = pages.next(maxDef > 0, this);
      if (page == null) return false;
      count = page.count;
      e = 0;
      v = 0;
      k = 0;
      ByteBuffer vals = page.values;
      ByteBuffer rl = page.rep;
      ByteBuffer dl = page.def;
      int nValues;
      if (dl == null) {
        uniform = maxDef == 0;
        nValues = count;
      } else {
        if (def.length < count) def = new byte[Math.max(count, def.length * 2)];
        int u = hybrid(dl, dl.position(), dl.limit(), defWidth, def, count);
        uniform = u == maxDef;
        if (uniform) {
          nValues = count;
        } else {
          nValues = 0;
          byte full = (byte) maxDef;
          for (int i = 0; i < count; i++) if (def[i] == full) nValues++;
        }
      }
      if (uniform) {
        if (starts.length < count + 1) starts = new int[Math.max(count + 1, starts.length * 2)];
        nStarts = rowStarts(rl, rl.position(), rl.limit(), count, starts);
      } else {
        if (rep.length < count) rep = new byte[Math.max(count, rep.length * 2)];
        hybrid(rl, rl.position(), rl.limit(), 1, rep, count);
      }
      values = new long[nValues];
      vals.order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values, 0, nValues);
      return true;
    }

    /** Entries [0, x) of the page continue the previous row: x = first row start (count if none). */
    private int continuation() {
      if (uniform) return nStarts == 0 ? count : starts[0];
      int x = 0;
      while (x < count && rep[x] != 0) x++;
      return x;
    }

    private boolean atEnd() {
      return uniform ? k >= nStarts : e >= count;
    }

    @Override
    boolean next() {
      while (atEnd()) {
        if (!load()) return false;
        if (continuation() > 0) throw bad("a page starts inside a list no row opened");
      }
      if (uniform) {
        int s = starts[k++];
        int end = k < nStarts ? starts[k] : count;
        arr = values;
        off = s;
        len = end - s;
        e = end;
        v = end;
      } else {
        byte full = (byte) maxDef;
        int d = def[e];
        if (d == maxDef) {
          int start = v;
          e++;
          v++;
          while (e < count && rep[e] != 0) {
            if (def[e] != full) throw bad("a null block id inside a list");
            e++;
            v++;
          }
          arr = values;
          off = start;
          len = v - start;
        } else {
          arr = null;
          off = 0;
          len = d >= listDef ? 0 : -1;
          e++;
          if (e < count && rep[e] != 0) throw bad("a list goes on after an empty or null row");
          if (e >= count) rowEndsPage(false);
          return true;
        }
      }
      if (e >= count) rowEndsPage(true);
      return true;
    }

    /** The current row reached the end of its page: it may go on in the next page(s). */
    private void rowEndsPage(boolean list) {
      while (atEnd()) {
        if (!load()) return;
        int x = continuation();
        if (x == 0) return;
        if (!list) throw bad("a list goes on after an empty or null row");
        int nv = uniform ? x : countValues(x);
        long[] merged = Arrays.copyOfRange(arr, off, off + len + nv);
        System.arraycopy(values, 0, merged, len, nv);
        arr = merged;
        off = 0;
        len = merged.length;
        if (uniform) {
          // entries [0, x) consumed; rows start at starts[0..]
          k = 0;
          if (nStarts > 0) return;
          e = count;
        } else {
          e = x;
          v = nv;
          if (e < count) return;
        }
      }
    }

    private int countValues(int x) {
      byte full = (byte) maxDef;
      for (int i = 0; i < x; i++) if (def[i] != full) throw bad("a null block id inside a list");
      return x;
    }
  }

  /** One data page, decompressed: its level streams (RLE/bit-packed hybrid, no length prefix) and plain values. */
  static final class Page {
    int count;
    ByteBuffer rep;
    ByteBuffer def;
    ByteBuffer values;
  }

  /** Data pages of one column chunk, in order. */
  interface Pages {
    /** The next data page, or null at the end of the chunk; {@code col} names the column in errors. */
    Page next(boolean hasDef, BlockColumn col);
  }

  static ByteBuffer slice(ByteBuffer b, int pos, int len) {
    ByteBuffer d = b.duplicate();
    d.position(pos);
    d.limit(pos + len);
    return d.slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  /** A v1 page body: [rep length][rep][def length][def][values]. */
  static Page v1(ByteBuffer b, int count, boolean hasDef) {
    b = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    Page p = new Page();
    p.count = count;
    int pos = b.position();
    int n = b.getInt(pos);
    p.rep = slice(b, pos + 4, n);
    pos += 4 + n;
    if (hasDef) {
      n = b.getInt(pos);
      p.def = slice(b, pos + 4, n);
      pos += 4 + n;
    }
    p.values = slice(b, pos, b.limit() - pos);
    return p;
  }

  /**
   * The bytes of one column chunk: big reads through {@code readFully} (a local file's stream reads
   * byte by byte otherwise), served from a buffer for the small page headers.
   */
  static final class ChunkStream extends java.io.InputStream {
    private final org.apache.parquet.io.SeekableInputStream in;
    private long left;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private int lim;

    ChunkStream(org.apache.parquet.io.SeekableInputStream in, long start, long length) throws java.io.IOException {
      this.in = in;
      in.seek(start);
      this.left = length;
    }

    private boolean fill() throws java.io.IOException {
      int n = (int) Math.min(buf.length, left);
      if (n == 0) return false;
      in.readFully(buf, 0, n);
      left -= n;
      pos = 0;
      lim = n;
      return true;
    }

    @Override
    public int read() throws java.io.IOException {
      if (pos == lim && !fill()) return -1;
      return buf[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws java.io.IOException {
      if (len == 0) return 0;
      if (pos < lim) {
        int n = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
      }
      if (left == 0) return -1;
      if (len >= buf.length) {
        int n = (int) Math.min(len, left);
        in.readFully(b, off, n);
        left -= n;
        return n;
      }
      fill();
      return read(b, off, len);
    }
  }

  /** Pages through parquet-mr's page reader (any codec). */
  static final class MrPages implements Pages {
    private final PageReader reader;

    MrPages(PageReader reader) {
      this.reader = reader;
    }

    @Override
    public Page next(boolean hasDef, BlockColumn col) {
      DataPage page = reader.readPage();
      if (page == null) return null;
      try {
        if (page instanceof DataPageV1 v1) {
          if (v1.getValueEncoding() != Encoding.PLAIN || v1.getRlEncoding() != Encoding.RLE
              || (hasDef && v1.getDlEncoding() != Encoding.RLE)) {
            throw col.bad("unexpected page encoding " + v1.getValueEncoding());
          }
          return v1(v1.getBytes().toByteBuffer(), v1.getValueCount(), hasDef);
        }
        DataPageV2 v2 = (DataPageV2) page;
        if (v2.getDataEncoding() != Encoding.PLAIN) throw col.bad("unexpected page encoding " + v2.getDataEncoding());
        Page p = new Page();
        p.count = v2.getValueCount();
        p.rep = v2.getRepetitionLevels().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        if (hasDef) p.def = v2.getDefinitionLevels().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        p.values = v2.getData().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        return p;
      } catch (java.io.IOException ex) {
        throw new java.io.UncheckedIOException(ex);
      }
    }
  }

  /**
   * Pages read straight from the file: page headers parsed with parquet-format, bodies read into
   * reused buffers and decompressed by snappy-java in one call (or used as they are when
   * uncompressed), so a page costs one read, one decompression and one copy into its long[].
   */
  static final class RawPages implements Pages {
    private final java.io.InputStream in;
    private final boolean snappy;
    private long valuesLeft;
    private byte[] comp = new byte[1 << 16];
    private byte[] body = new byte[1 << 16];

    RawPages(java.io.InputStream in, boolean snappy, long values) {
      this.in = in;
      this.snappy = snappy;
      this.valuesLeft = values;
    }

    @Override
    public Page next(boolean hasDef, BlockColumn col) {
      try {
        while (valuesLeft > 0) {
          org.apache.parquet.format.PageHeader h = org.apache.parquet.format.Util.readPageHeader(in);
          int size = h.getCompressed_page_size();
          if (comp.length < size) comp = new byte[Math.max(size, comp.length * 2)];
          if (in.readNBytes(comp, 0, size) != size) throw col.bad("a page ends early");
          switch (h.getType()) {
            case DATA_PAGE -> {
              org.apache.parquet.format.DataPageHeader d = h.getData_page_header();
              if (d.getEncoding() != org.apache.parquet.format.Encoding.PLAIN
                  || d.getRepetition_level_encoding() != org.apache.parquet.format.Encoding.RLE
                  || (hasDef && d.getDefinition_level_encoding() != org.apache.parquet.format.Encoding.RLE)) {
                throw col.bad("unexpected page encoding " + d.getEncoding());
              }
              valuesLeft -= d.getNum_values();
              return v1(inflate(comp, 0, size, h.getUncompressed_page_size()), d.getNum_values(), hasDef);
            }
            case DATA_PAGE_V2 -> {
              org.apache.parquet.format.DataPageHeaderV2 d = h.getData_page_header_v2();
              if (d.getEncoding() != org.apache.parquet.format.Encoding.PLAIN) {
                throw col.bad("unexpected page encoding " + d.getEncoding());
              }
              valuesLeft -= d.getNum_values();
              int rl = d.getRepetition_levels_byte_length();
              int dl = d.getDefinition_levels_byte_length();
              Page p = new Page();
              p.count = d.getNum_values();
              ByteBuffer levels = ByteBuffer.wrap(comp, 0, rl + dl).order(ByteOrder.LITTLE_ENDIAN);
              // the levels are never compressed: copy them out of the reused buffer first
              ByteBuffer lv = ByteBuffer.allocate(rl + dl).order(ByteOrder.LITTLE_ENDIAN);
              lv.put(levels).flip();
              p.rep = slice(lv, 0, rl);
              if (hasDef) p.def = slice(lv, rl, dl);
              boolean compressed = !d.isSetIs_compressed() || d.isIs_compressed();
              p.values = compressed
                  ? inflate(comp, rl + dl, size - rl - dl, h.getUncompressed_page_size() - rl - dl)
                  : slice(ByteBuffer.wrap(comp), rl + dl, size - rl - dl);
              return p;
            }
            default -> {
              // dictionary or index pages: not in a chunk the bulk path takes; skipped
            }
          }
        }
        return null;
      } catch (java.io.IOException ex) {
        throw new java.io.UncheckedIOException(col.where + ": " + ex.getMessage(), ex);
      }
    }

    private ByteBuffer inflate(byte[] src, int off, int len, int outLen) throws java.io.IOException {
      if (!snappy) return ByteBuffer.wrap(src, off, len).slice().order(ByteOrder.LITTLE_ENDIAN);
      if (body.length < outLen) body = new byte[Math.max(outLen, body.length * 2)];
      int n = org.xerial.snappy.Snappy.uncompress(src, off, len, body, 0);
      if (n != outLen) throw new java.io.IOException("page decompressed to " + n + " bytes, header says " + outLen);
      return ByteBuffer.wrap(body, 0, n).slice().order(ByteOrder.LITTLE_ENDIAN);
    }
  }

  /** parquet-mr's column reader, one value at a time (encodings the bulk path does not take). */
  static final class Generic extends BlockColumn {
    private final ColumnReader cr;
    private long left;

    Generic(ColumnReader cr, ColumnDescriptor d, int listDef, String where) {
      super(d, listDef, where);
      this.cr = cr;
      this.left = cr.getTotalValueCount();
    }

    @Override
    boolean next() {
      if (left == 0) return false;
      int dl = cr.getCurrentDefinitionLevel();
      if (dl != maxDef) {
        arr = null;
        off = 0;
        len = dl >= listDef ? 0 : -1;
        cr.consume();
        left--;
        return true;
      }
      long[] buf = new long[16];
      int n = 0;
      do {
        if (cr.getCurrentDefinitionLevel() != maxDef) throw bad("a null block id inside a list");
        if (n == buf.length) buf = Arrays.copyOf(buf, n * 2);
        buf[n++] = cr.getLong();
        cr.consume();
        left--;
      } while (left > 0 && cr.getCurrentRepetitionLevel() != 0);
      arr = buf;
      off = 0;
      len = n;
      return true;
    }
  }

  /**
   * The ULEB128 header of a hybrid run starting at {@code pos}: the header in the high 32 bits,
   * the position after it in the low 32.
   */
  private static long runHeader(ByteBuffer buf, int pos) {
    int header = 0;
    int shift = 0;
    int b;
    do {
      b = buf.get(pos++) & 0xff;
      header |= (b & 0x7f) << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    return ((long) header << 32) | (pos & 0xffffffffL);
  }

  /**
   * Parquet's RLE/bit-packed hybrid: {@code count} levels of {@code width} bits from
   * {@code buf[pos, end)} into {@code out}. A bit-packed byte of ones (the usual "inside a list"
   * repetition levels) is filled without unpacking bit by bit. Returns the value of every level
   * when they all came in RLE runs of one value, else -1.
   */
  static int hybrid(ByteBuffer buf, int pos, int end, int width, byte[] out, int count) {
    int o = 0;
    int uniform = -2;
    int byteWidth = (width + 7) / 8;
    while (o < count) {
      if (pos >= end) throw new IllegalStateException("level data ends after " + o + " of " + count + " levels");
      long hp = runHeader(buf, pos);
      int header = (int) (hp >>> 32);
      pos = (int) hp;
      if ((header & 1) == 0) {
        int run = header >>> 1;
        int value = 0;
        for (int i = 0; i < byteWidth; i++) value |= (buf.get(pos++) & 0xff) << (8 * i);
        int to = Math.min(count, o + run);
        Arrays.fill(out, o, to, (byte) value);
        o = to;
        uniform = uniform == -2 || uniform == value ? value : -1;
      } else {
        uniform = -1;
        int groups = header >>> 1;
        int nBytes = groups * width;
        if (width == 1) {
          for (int i = 0; i < nBytes && o < count; i++) {
            int x = buf.get(pos + i) & 0xff;
            if (x == 0xff && o + 8 <= count) {
              Arrays.fill(out, o, o + 8, (byte) 1);
              o += 8;
            } else {
              for (int k = 0; k < 8 && o < count; k++) out[o++] = (byte) ((x >>> k) & 1);
            }
          }
        } else {
          int mask = (1 << width) - 1;
          long acc = 0;
          int bits = 0;
          int i = 0;
          int n = groups * 8;
          for (int k = 0; k < n && o < count; k++) {
            while (bits < width) {
              acc |= (long) (buf.get(pos + i++) & 0xff) << bits;
              bits += 8;
            }
            out[o++] = (byte) (acc & mask);
            acc >>>= width;
            bits -= width;
          }
        }
        pos += nBytes;
      }
    }
    return uniform < 0 ? -1 : uniform;
  }

  /**
   * Positions of the zero levels in a hybrid stream of 1-bit repetition levels (the row starts),
   * into {@code out}; returns how many. Runs of ones and all-ones bytes are skipped whole.
   */
  static int rowStarts(ByteBuffer buf, int pos, int end, int count, int[] out) {
    int o = 0;
    int n = 0;
    while (o < count) {
      if (pos >= end) throw new IllegalStateException("level data ends after " + o + " of " + count + " levels");
      long hp = runHeader(buf, pos);
      int header = (int) (hp >>> 32);
      pos = (int) hp;
      if ((header & 1) == 0) {
        int run = header >>> 1;
        int value = buf.get(pos++) & 0xff;
        int to = Math.min(count, o + run);
        if (value == 0) for (int i = o; i < to; i++) out[n++] = i;
        o = to;
      } else {
        int nBytes = header >>> 1;
        int i = 0;
        // eight bytes at a time while whole words are ones
        while (i + 8 <= nBytes && o + 64 <= count && buf.getLong(pos + i) == -1L) {
          i += 8;
          o += 64;
        }
        for (; i < nBytes && o < count; i++) {
          int x = buf.get(pos + i) & 0xff;
          if (x == 0xff) {
            o += 8;
            continue;
          }
          for (int k = 0; k < 8 && o < count; k++, o++) if (((x >>> k) & 1) == 0) out[n++] = o;
        }
        if (o > count) o = count;
        pos += nBytes;
      }
    }
    return n;
  }
}
