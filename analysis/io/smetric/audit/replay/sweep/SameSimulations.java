package io.smetric.audit.replay.sweep;

import io.smetric.audit.replay.ReplaySettings;
import io.smetric.audit.replay.policy.Policies;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Runs each distinct simulation of a sweep once (docs/replay.md, "Same simulations"). Two specs
 * are the same simulation when they replay the same trace (replicate) with the same settings and
 * policies that route every request alike. Beyond equal specs, that is the SMetric family's guards:
 * SMetric at OVERLOAD infinity never finds an instance overloaded, and at HIT_RATIO 0 never finds
 * a session evicted (a hit is never below 0 x its estimate), so it routes exactly as the variant
 * without that guard: the audit's sensitivity curves at OVERLOAD infinity and HIT_RATIO 0 are
 * the ablation's smetric-eviction-only and smetric-overload-only curves at that capacity, and the
 * conditions sweep's points at those values meet the same curves.
 *
 * <p>An {@link Schedule.Engine} around another: a spec whose simulation was already submitted is
 * not run again; its result is the first one's under its own spec, with wall and CPU time 0. A
 * main-sweep spec only takes a main-sweep result (the series tables read main-sweep runs only).
 * Once the sweep is numbered, {@link #sameAs} names for each such run the lowest run id of its
 * simulation, and {@link #creditLowest} moves the measured times there, so no output depends on
 * which of the two happened to be submitted first.
 */
public final class SameSimulations implements Schedule.Engine {
  /** What decides a simulation: the spec without its run id and label, guards made canonical. */
  public record Key(String policy, double globalRatio, double rateScale, double overload, double hitRatio, int replicate,
      TreeMap<String, Double> overrides) {}

  /** The simulation {@code s} runs on {@code base}. */
  public static Key key(SimSpec s, ReplaySettings base) {
    Policies p = Policies.byName(s.policy());
    double o = Double.isNaN(s.overload()) ? base.overload : s.overload();
    double h = Double.isNaN(s.hitRatio()) ? base.hitRatio : s.hitRatio();
    boolean overloadGuard = p == Policies.SMETRIC || p == Policies.SMETRIC_OVERLOAD_ONLY;
    boolean evictionGuard = p == Policies.SMETRIC || p == Policies.SMETRIC_EVICTION_ONLY;
    String name = p.cliName();
    double ko = Double.NaN;
    double kh = Double.NaN;
    if (overloadGuard || evictionGuard || p == Policies.SMETRIC_BASIC) {
      // SMetricPolicy: not_overloaded is true at OVERLOAD infinity; l[s] >= 0 x est_hit at HIT_RATIO 0
      overloadGuard &= !Double.isInfinite(o);
      evictionGuard &= h != 0;
      name = overloadGuard ? (evictionGuard ? Policies.SMETRIC : Policies.SMETRIC_OVERLOAD_ONLY).cliName()
          : (evictionGuard ? Policies.SMETRIC_EVICTION_ONLY : Policies.SMETRIC_BASIC).cliName();
      if (overloadGuard) ko = o;
      if (evictionGuard) kh = h;
    }
    return new Key(name, s.globalRatio(), s.rateScale(), ko, kh, s.replicate(), s.overrides());
  }

  private final Schedule.Engine inner;
  private final ReplaySettings base;
  /** The first spec run of each simulation, and the first main-sweep spec run, by key. */
  private final Map<Key, SimSpec> first = new HashMap<>();
  private final Map<Key, SimSpec> firstMain = new HashMap<>();
  /** Its result (a future of the submission that carries it), by its provisional run id. */
  private final Map<Integer, CompletableFuture<RunResult>> results = new HashMap<>();
  /** Specs not run, by provisional run id, and the provisional id of the run they take. */
  private final Map<Integer, SimSpec> copies = new LinkedHashMap<>();
  private final Map<Integer, Integer> copyOf = new HashMap<>();

  public SameSimulations(Schedule.Engine inner, ReplaySettings base) {
    this.inner = inner;
    this.base = base;
  }

  @Override
  public synchronized CompletableFuture<List<RunResult>> submit(List<SimSpec> numbered) {
    List<SimSpec> fresh = new ArrayList<>();
    List<SimSpec> taken = new ArrayList<>();
    for (SimSpec s : numbered) {
      Key k = key(s, base);
      SimSpec f = (s.isMain() ? firstMain : first).get(k);
      if (f != null) {
        taken.add(s);
        copies.put(s.runId(), s);
        copyOf.put(s.runId(), f.runId());
      } else {
        first.putIfAbsent(k, s);
        if (s.isMain()) firstMain.put(k, s);
        fresh.add(s);
      }
    }
    CompletableFuture<List<RunResult>> ran = fresh.isEmpty() ? CompletableFuture.completedFuture(List.of()) : inner.submit(fresh);
    for (SimSpec s : fresh) {
      int id = s.runId();
      results.putIfAbsent(id, ran.thenApply(list -> {
        for (RunResult r : list) if (r.spec().runId() == id) return r;
        throw new IllegalStateException("the engine returned no result for run " + id);
      }));
    }
    if (taken.isEmpty()) return ran;
    List<CompletableFuture<RunResult>> copied = new ArrayList<>();
    for (SimSpec s : taken) copied.add(results.get(copyOf.get(s.runId())).thenApply(r -> r.copyAs(s)));
    return ran.thenCombine(CompletableFuture.allOf(copied.toArray(new CompletableFuture[0])), (list, none) -> {
      List<RunResult> out = new ArrayList<>(list);
      for (CompletableFuture<RunResult> c : copied) out.add(c.join());
      return out;
    });
  }

  /** The specs that were not run, by provisional run id. */
  public synchronized Map<Integer, SimSpec> copies() {
    return new LinkedHashMap<>(copies);
  }

  /** The provisional run id whose result each copy took. */
  public synchronized Map<Integer, Integer> copyOf() {
    return new HashMap<>(copyOf);
  }

  /**
   * For each run (final ids) that is the same simulation as a run with a lower id: that lowest
   * id. Runs of a simulation that occurs once are absent.
   */
  public static Map<Integer, Integer> sameAs(List<RunResult> results, ReplaySettings base) {
    Map<Key, Integer> lowest = new HashMap<>();
    for (RunResult r : results) lowest.merge(key(r.spec(), base), r.spec().runId(), Math::min);
    Map<Integer, Integer> out = new TreeMap<>();
    for (RunResult r : results) {
      int low = lowest.get(key(r.spec(), base));
      if (low != r.spec().runId()) out.put(r.spec().runId(), low);
    }
    return out;
  }

  /**
   * The results with each simulation's measured wall and CPU time on its lowest run id and 0 on
   * the others ({@code sameAs} from {@link #sameAs}); results sorted by run id stay so.
   */
  public static List<RunResult> creditLowest(List<RunResult> results, Map<Integer, Integer> sameAs) {
    if (sameAs.isEmpty()) return results;
    Map<Integer, double[]> times = new HashMap<>(); // lowest id -> {wall, cpu} summed over its runs
    for (RunResult r : results) {
      int low = sameAs.getOrDefault(r.spec().runId(), r.spec().runId());
      double[] t = times.computeIfAbsent(low, k -> new double[2]);
      t[0] += r.wallSeconds();
      t[1] += r.cpuSeconds();
    }
    List<RunResult> out = new ArrayList<>(results.size());
    for (RunResult r : results) {
      int id = r.spec().runId();
      if (sameAs.containsKey(id)) out.add(r.withTimes(0, 0));
      else if (sameAs.containsValue(id)) out.add(r.withTimes(times.get(id)[0], times.get(id)[1]));
      else out.add(r);
    }
    return out;
  }
}
