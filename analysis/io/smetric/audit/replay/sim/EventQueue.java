package io.smetric.audit.replay.sim;

/**
 * The simulator's events on primitive arrays (no allocation per event), popped in order of time,
 * then of insertion, so equal-time events replay in a fixed order. Two lanes: a FIFO that takes
 * every event no earlier than its last one (it stays sorted), and a binary min-heap for the rest;
 * pop takes the lesser head. The FIFO catches the closed loop's agent timeouts (each armed at
 * send time + the timeout, so in nearly ascending order, thousands pending at once and most of
 * them no-ops when they fire), which would otherwise make the heap deep for every step event
 * (docs/lab/benchmarks.md, "Replay speed, session 10"). The order is the single heap's.
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

  // the FIFO lane: a ring of events sorted by (time, insertion), head at fHead, fCount of them
  private double[] fTime = new double[256];
  private long[] fOrd = new long[256];
  private int[] fType = new int[256];
  private int[] fA = new int[256];
  private int[] fB = new int[256];
  private int fHead;
  private int fCount;

  boolean isEmpty() {
    return size == 0 && fCount == 0;
  }

  double peekTime() {
    if (fCount == 0) return time[0];
    if (size == 0) return fTime[fHead];
    return Math.min(time[0], fTime[fHead]);
  }

  void push(double tm, int ty, int x, int y) {
    if (fCount == 0 || tm >= fTime[(fHead + fCount - 1) & (fTime.length - 1)]) {
      pushFifo(tm, counter++, ty, x, y);
      return;
    }
    pushHeap(tm, ty, x, y);
  }

  private void pushFifo(double tm, long o, int ty, int x, int y) {
    int cap = fTime.length;
    if (fCount == cap) {
      fTime = ring(fTime, fHead, fCount);
      fOrd = ring(fOrd, fHead, fCount);
      fType = ring(fType, fHead, fCount);
      fA = ring(fA, fHead, fCount);
      fB = ring(fB, fHead, fCount);
      fHead = 0;
      cap = fTime.length;
    }
    int k = (fHead + fCount++) & (cap - 1);
    fTime[k] = tm;
    fOrd[k] = o;
    fType[k] = ty;
    fA[k] = x;
    fB[k] = y;
  }

  private static double[] ring(double[] v, int head, int n) {
    double[] out = new double[v.length * 2];
    for (int k = 0; k < n; k++) out[k] = v[(head + k) & (v.length - 1)];
    return out;
  }

  private static long[] ring(long[] v, int head, int n) {
    long[] out = new long[v.length * 2];
    for (int k = 0; k < n; k++) out[k] = v[(head + k) & (v.length - 1)];
    return out;
  }

  private static int[] ring(int[] v, int head, int n) {
    int[] out = new int[v.length * 2];
    for (int k = 0; k < n; k++) out[k] = v[(head + k) & (v.length - 1)];
    return out;
  }

  void pop() {
    if (fCount > 0 && (size == 0 || less(fTime[fHead], fOrd[fHead], time[0], ord[0]))) {
      t = fTime[fHead];
      evType = fType[fHead];
      evA = fA[fHead];
      evB = fB[fHead];
      fHead = (fHead + 1) & (fTime.length - 1);
      fCount--;
      return;
    }
    popHeap();
  }

  private void pushHeap(double tm, int ty, int x, int y) {
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

  private void popHeap() {
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
