package io.smetric.audit.replay.sim;

/**
 * A binary min-heap of simulator events on primitive arrays (no allocation per event), ordered by
 * time, then by insertion order, so equal-time events replay in a fixed order.
 */
final class EventQueue {
  private double[] time = new double[256];
  private long[] ord = new long[256];
  private int[] type = new int[256];
  private int[] a = new int[256];
  private int[] b = new int[256];
  private int size;
  private long counter;

  // fields of the last popped event
  double t;
  int evType;
  int evA;
  int evB;

  boolean isEmpty() {
    return size == 0;
  }

  double peekTime() {
    return time[0];
  }

  void push(double tm, int ty, int x, int y) {
    if (size == time.length) {
      int cap = size * 2;
      time = java.util.Arrays.copyOf(time, cap);
      ord = java.util.Arrays.copyOf(ord, cap);
      type = java.util.Arrays.copyOf(type, cap);
      a = java.util.Arrays.copyOf(a, cap);
      b = java.util.Arrays.copyOf(b, cap);
    }
    int i = size++;
    long o = counter++;
    while (i > 0) {
      int p = (i - 1) >>> 1;
      if (less(time[p], ord[p], tm, o)) break;
      move(p, i);
      i = p;
    }
    set(i, tm, o, ty, x, y);
  }

  void pop() {
    t = time[0];
    evType = type[0];
    evA = a[0];
    evB = b[0];
    size--;
    if (size == 0) return;
    double tm = time[size];
    long o = ord[size];
    int ty = type[size];
    int x = a[size];
    int y = b[size];
    int i = 0;
    while (true) {
      int l = 2 * i + 1;
      if (l >= size) break;
      int c = l;
      int r = l + 1;
      if (r < size && less(time[r], ord[r], time[l], ord[l])) c = r;
      if (less(tm, o, time[c], ord[c])) break;
      move(c, i);
      i = c;
    }
    set(i, tm, o, ty, x, y);
  }

  private static boolean less(double t1, long o1, double t2, long o2) {
    return t1 < t2 || (t1 == t2 && o1 < o2);
  }

  private void move(int from, int to) {
    time[to] = time[from];
    ord[to] = ord[from];
    type[to] = type[from];
    a[to] = a[from];
    b[to] = b[from];
  }

  private void set(int i, double tm, long o, int ty, int x, int y) {
    time[i] = tm;
    ord[i] = o;
    type[i] = ty;
    a[i] = x;
    b[i] = y;
  }
}
