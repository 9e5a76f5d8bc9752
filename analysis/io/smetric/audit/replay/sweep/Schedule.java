package io.smetric.audit.replay.sweep;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * Runs an adaptive sweep as independent <em>tracks</em> instead of lock-step rounds. A track is a
 * sequence of batches whose next batch depends only on results already back: one curve's knee
 * search, one point of the conditions sweep, the bootstrap replicates. A track's next batch is
 * submitted as soon as its previous one is back, so no core waits for a round's slowest
 * simulation while other tracks have work (on the 200k agent trace a round-by-round sweep left one
 * of two cores idle for ~95 s of 566: docs/lab/benchmarks.md).
 *
 * <p>Tracks come in {@link Group}s; when every track of a group is done, the group's
 * continuation may start new groups (the replicates and the conditions sweep after the main sweep,
 * the conditions grid after its one-at-a-time points). The simulations run are the same as a
 * round-by-round sweep's: round k of the old sweep is exactly the k-th batch of every track
 * still open, because a track looks only at its own results. Run ids are assigned at the end in
 * the round-by-round order (phase, round, track, position), so no output depends on which
 * simulation finished first.
 */
public final class Schedule {
  /** One track: its next batch (run ids -1) given every result so far; empty when the track is done. */
  @FunctionalInterface
  public interface Track {
    List<SimSpec> next(List<RunResult> all);
  }

  /** Runs numbered specs and completes with their summaries (in any order). */
  @FunctionalInterface
  public interface Engine {
    CompletableFuture<List<RunResult>> submit(List<SimSpec> numbered);
  }

  /**
   * Tracks started together. {@code phase} orders run ids between groups (a group started by a
   * group of the same phase continues its round count); {@code then} is called with every result
   * so far when all of the group's tracks are done, and returns the groups to start next.
   */
  public record Group(int phase, List<Track> tracks, Function<List<RunResult>, List<Group>> then) {
    public static Group of(int phase, List<Track> tracks) {
      return new Group(phase, tracks, all -> List.of());
    }
  }

  /** Where a simulation sits in the round-by-round order. */
  private record Key(int phase, int round, int group, int track, int pos) {}

  private static final Comparator<Key> ORDER = Comparator.comparingInt(Key::phase).thenComparingInt(Key::round)
      .thenComparingInt(Key::group).thenComparingInt(Key::track).thenComparingInt(Key::pos);

  private final class Started {
    final Group group;
    final int seq;
    final int firstRound;
    int open;
    int rounds;

    Started(Group group, int seq, int firstRound) {
      this.group = group;
      this.seq = seq;
      this.firstRound = firstRound;
      this.open = group.tracks().size();
    }
  }

  private final class Running {
    final Started in;
    final int index;
    int batches;

    Running(Started in, int index) {
      this.in = in;
      this.index = index;
    }
  }

  private record Done(List<Running> tracks, int specs, List<RunResult> results, Throwable error) {}

  /** A track's next batch, numbered, waiting to be sent. */
  private record Ready(Running track, List<SimSpec> specs) {}

  private final Engine engine;
  private final List<RunResult> results = new ArrayList<>();
  private final List<Key> keys = new ArrayList<>();
  private final LinkedBlockingQueue<Done> done = new LinkedBlockingQueue<>();
  private final int[] roundsByPhase = new int[8];
  private final java.util.ArrayDeque<Ready> ready = new java.util.ArrayDeque<>();
  private final int cores;
  private final double jobSeconds;
  private int readySpecs;
  private int groups;
  private int inFlight;
  private double wallSum;
  private int wallCount;

  /**
   * Submissions sized to the engine: results come back per submission, so small submissions let
   * tracks move on early, while each one costs the engine a fixed amount (a Spark job: about a
   * quarter of a CPU-second measured on this project's machine). A submission carries whole
   * batches worth about {@code jobSeconds} of simulation at the mean wall time per simulation so
   * far (before any result: a quarter of what is ready per core); ready batches short of that
   * wait for more while no core is about to idle ({@link #flush}).
   */
  public Schedule(Engine engine, int cores, double jobSeconds) {
    if (cores < 1 || !(jobSeconds >= 0)) throw new IllegalArgumentException("cores " + cores + ", job seconds " + jobSeconds);
    this.engine = engine;
    this.cores = cores;
    this.jobSeconds = jobSeconds;
  }

  /** One submission per ready batch, none held back (an engine without a fixed cost per submission). */
  public Schedule(Engine engine) {
    this(engine, 1, 0);
  }

  /** Simulations per submission now (at least 1; a batch is never split). */
  private int chunk() {
    if (jobSeconds == 0) return 1;
    if (wallCount == 0) return Math.max(1, readySpecs / (4 * cores));
    double mean = wallSum / wallCount;
    return (int) Math.max(1, Math.min(1 << 20, Math.ceil(jobSeconds / Math.max(mean, 1e-6))));
  }

  /**
   * Runs the groups and everything they start; returns every result with its final run id
   * (0, 1, ... in round-by-round order), sorted by run id.
   */
  public List<RunResult> run(List<Group> initial) {
    for (Group g : initial) start(g, 0);
    flush();
    while (inFlight > 0) {
      List<Done> batch = new ArrayList<>();
      try {
        batch.add(done.take());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("the sweep was interrupted", e);
      }
      done.drainTo(batch);
      for (Done d : batch) {
        inFlight--;
        if (d.error() != null) throw unwrap(d.error());
        results.addAll(d.results());
        for (RunResult r : d.results()) {
          if (r.wallSeconds() == 0) continue; // another run's simulation (SameSimulations): none ran
          wallSum += r.wallSeconds();
          wallCount++;
        }
      }
      for (Done d : batch) for (Running t : d.tracks()) advance(t);
      flush();
    }
    if (!ready.isEmpty()) throw new IllegalStateException("batches left unsent");
    return renumbered();
  }

  private static RuntimeException unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof RuntimeException r) return r;
    if (t instanceof Error e) throw e;
    return new IllegalStateException(t);
  }

  /**
   * Sends ready batches, whole tracks per submission of about {@link #chunk} simulations. Fewer
   * ready than a chunk wait for more while at least two submissions per core are in flight (no
   * core is about to idle). Submissions, not simulations: a submission comes back whole, so one
   * whose last simulation is still running holds a single core however many simulations it
   * carries (counting simulations held ready batches back while a core idled: the 200k audit of
   * 14:30, docs/lab/benchmarks.md).
   */
  private void flush() {
    int chunk = chunk();
    while (!ready.isEmpty() && (readySpecs >= chunk || inFlight < 2 * cores)) {
      List<Running> tracks = new ArrayList<>();
      List<SimSpec> specs = new ArrayList<>();
      do {
        Ready r = ready.poll();
        readySpecs -= r.specs().size();
        tracks.add(r.track());
        specs.addAll(r.specs());
      } while (!ready.isEmpty() && specs.size() + ready.peek().specs().size() <= chunk);
      inFlight++;
      CompletableFuture<List<RunResult>> f;
      try {
        f = engine.submit(specs);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      int n = specs.size();
      f.whenComplete((res, e) -> done.add(new Done(tracks, n, res, e)));
    }
  }

  /** The number of rounds a round-by-round sweep would have run in {@code phase}. */
  public int rounds(int phase) {
    return roundsByPhase[phase];
  }

  private void start(Group g, int firstRound) {
    Started s = new Started(g, groups++, firstRound);
    if (g.tracks().isEmpty()) {
      finished(s);
      return;
    }
    for (int i = 0; i < g.tracks().size(); i++) advance(new Running(s, i));
  }

  private void advance(Running t) {
    List<SimSpec> next = t.in.group.tracks().get(t.index).next(results);
    if (next.isEmpty()) {
      t.in.rounds = Math.max(t.in.rounds, t.batches);
      if (--t.in.open == 0) finished(t.in);
      return;
    }
    int round = t.in.firstRound + t.batches++;
    roundsByPhase[t.in.group.phase()] = Math.max(roundsByPhase[t.in.group.phase()], round + 1);
    List<SimSpec> numbered = new ArrayList<>(next.size());
    for (int p = 0; p < next.size(); p++) {
      numbered.add(next.get(p).withRunId(keys.size()));
      keys.add(new Key(t.in.group.phase(), round, t.in.seq, t.index, p));
    }
    ready.add(new Ready(t, numbered));
    readySpecs += numbered.size();
  }

  private void finished(Started s) {
    for (Group g : s.group.then().apply(results)) {
      start(g, g.phase() == s.group.phase() ? s.firstRound + s.rounds : 0);
    }
  }

  private List<RunResult> renumbered() {
    int n = keys.size();
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) order[i] = i;
    java.util.Arrays.sort(order, (a, b) -> ORDER.compare(keys.get(a), keys.get(b)));
    int[] finalId = new int[n];
    for (int i = 0; i < n; i++) finalId[order[i]] = i;
    this.finalIds = finalId;
    List<RunResult> out = new ArrayList<>(results.size());
    for (RunResult r : results) out.add(r.withRunId(finalId[r.spec().runId()]));
    out.sort(Comparator.comparingInt(r -> r.spec().runId()));
    return out;
  }

  private int[] finalIds;

  /**
   * The final run id of each provisional one (the ids the engine saw), for results kept
   * elsewhere (the window series on the executors); valid after {@link #run}.
   */
  public int[] finalIds() {
    return finalIds.clone();
  }
}
