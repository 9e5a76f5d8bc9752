package io.smetric.audit.generate;

import java.util.Arrays;

/**
 * The block ids of one session's current prompt, kept twice: as numbers and already formatted
 * as JSON ({@code id,} per block, so a prefix of the text is a prefix of the list). A follow-up
 * keeps most of its parent's blocks, so writing it costs one copy of the cached text plus
 * formatting only the new ids; this is what makes hundreds of millions of ids a minute's work.
 */
final class IdList {
  long[] ids = new long[64];
  int count;
  byte[] text = new byte[1024];
  int textLen;
  /** ends[i] = text length after id i and its comma. */
  int[] ends = new int[64];
  /** May hold warm-up ids (negative, not yet given their output number). */
  boolean hasOld;

  /** Keeps the first k ids. */
  void truncate(int k) {
    if (k > count) throw new IllegalStateException("truncate " + k + " > " + count);
    count = k;
    textLen = k == 0 ? 0 : ends[k - 1];
  }

  /**
   * Appends a warm-up id (negative) without text: warm-up lists hold only such ids, and
   * {@link #resolve} writes their text when they first reach the output.
   */
  void appendOld(long id) {
    if (count == ids.length) {
      int n = count * 2;
      ids = Arrays.copyOf(ids, n);
      ends = Arrays.copyOf(ends, n);
    }
    ends[count] = textLen;
    ids[count++] = id;
    hasOld = true;
  }

  void append(long id) {
    if (count == ids.length) {
      int n = count * 2;
      ids = Arrays.copyOf(ids, n);
      ends = Arrays.copyOf(ends, n);
    }
    if (textLen + 21 > text.length) text = Arrays.copyOf(text, Math.max(text.length * 2, textLen + 64));
    textLen = Ascii.putLong(text, textLen, id);
    text[textLen++] = ',';
    ends[count] = textLen;
    ids[count++] = id;
    if (id < 0) hasOld = true;
  }

  /**
   * Gives every warm-up id (negative) its output id, assigning new ones in block order from
   * {@code next} on first appearance; returns the updated counter.
   */
  long resolve(it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap map, long next) {
    int j = 0;
    while (j < count && ids[j] >= 0) j++;
    if (j < count) {
      textLen = j == 0 ? 0 : ends[j - 1];
      for (int i = j; i < count; i++) {
        long id = ids[i];
        if (id < 0) {
          long m = map.get(id);
          if (m < 0) {
            m = next++;
            map.put(id, m);
          }
          ids[i] = id = m;
        }
        if (textLen + 21 > text.length) text = Arrays.copyOf(text, Math.max(text.length * 2, textLen + 64));
        textLen = Ascii.putLong(text, textLen, id);
        text[textLen++] = ',';
        ends[i] = textLen;
      }
    }
    hasOld = false;
    return next;
  }

  /** Replaces this list by the first k ids of src. */
  void copyPrefix(IdList src, int k) {
    if (k > src.count) throw new IllegalStateException("prefix " + k + " > " + src.count);
    if (ids.length < k) {
      ids = new long[Math.max(64, k * 2)];
      ends = new int[ids.length];
    }
    System.arraycopy(src.ids, 0, ids, 0, k);
    System.arraycopy(src.ends, 0, ends, 0, k);
    int len = k == 0 ? 0 : src.ends[k - 1];
    if (text.length < len + 64) text = new byte[Math.max(1024, len * 2)];
    System.arraycopy(src.text, 0, text, 0, len);
    count = k;
    textLen = len;
    hasOld = src.hasOld;
  }
}
