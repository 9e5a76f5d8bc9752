package io.smetric.audit.cli;

import io.smetric.audit.replay.ReplayJob;
import io.smetric.audit.replay.sweep.SweepProgress;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.SparkSession;

/**
 * Console progress of a long command: the audit step ("[2/4 characterize]"), the percent of the
 * running Spark job's tasks that are done, and the elapsed time of the step and of the whole
 * audit. Task counts come from a {@link SparkListener} on the driver, so it works the same in
 * local mode and on a cluster. Lines are throttled (one per {@code minGapMs}, or when a job
 * ends) so that a sweep of thousands of tasks prints a few dozen lines, not thousands. Jobs of
 * one job group (the replay sweep submits each batch of simulations as a job of its own, many at
 * once) are counted together under the group's name, so the line says how far the sweep is, not
 * how far one of its small jobs is. The replay sweep reports itself in simulations against its
 * expected total ({@link #sweep}); its task lines are left out then.
 */
final class AuditProgress extends SparkListener implements AutoCloseable {
  private final SparkSession spark;
  private final PrintWriter err;
  private final int steps;
  private final long minGapMs;
  private final long auditStart = System.nanoTime();
  private volatile long stepStart = System.nanoTime();
  private volatile String step = "starting";
  private volatile int stepNo;
  /** What a job's tasks count towards: its own counts, or its group's ({total, done, printed}). */
  private record Counter(String label, boolean group, long[] tasks) {}

  private final Map<Integer, Counter> jobTasks = new ConcurrentHashMap<>();
  /** Counts shared by the jobs of one job group in the current step: {total, done, printed}. */
  private final Map<String, long[]> groupTasks = new ConcurrentHashMap<>();
  private final Map<Integer, Integer> stageToJob = new ConcurrentHashMap<>();
  private final AtomicLong lastPrint = new AtomicLong();
  /** The job group whose progress its stage reports itself in simulations ({@link #sweep}); its task lines are left out. */
  private volatile String reportedGroup;

  AuditProgress(SparkSession spark, PrintWriter err, int steps, long minGapMs) {
    this.spark = spark;
    this.err = err;
    this.steps = steps;
    this.minGapMs = minGapMs;
    spark.sparkContext().addSparkListener(this);
  }

  /** Starts the next step; every later line names it. */
  void step(String name) {
    stepNo++;
    step = name;
    stepStart = System.nanoTime();
    groupTasks.clear();
    reportedGroup = null;
    spark.sparkContext().setJobDescription("audit " + name);
    line("started");
  }

  /** Ends the current step with a result line. */
  void done(String what) {
    line("done: " + what);
  }

  /** A free-form line in the current step (e.g. "skipped: no block hashes"). */
  void note(String what) {
    line(what);
  }

  /**
   * The replay sweep's own progress: simulations done of the expected total and the time left
   * ({@link SweepProgress}), throttled like the task lines, which it replaces for the sweep's job
   * group (tasks submitted so far fell back as adaptive rounds added work).
   */
  void sweep(SweepProgress.Snapshot s) {
    reportedGroup = ReplayJob.SWEEP_GROUP;
    long now = System.currentTimeMillis();
    long last = lastPrint.get();
    // the plan's size is always shown, before the first result
    if (s.done() == 0 || (now - last >= minGapMs && lastPrint.compareAndSet(last, now))) line(s.line());
  }

  private void line(String what) {
    synchronized (err) {
      err.printf(Locale.ROOT, "[%d/%d %s] %s (step %s, total %s)%n", stepNo, steps, step, what,
          elapsed(stepStart), elapsed(auditStart));
      err.flush();
    }
  }

  static String elapsed(long startNanos) {
    long s = Math.round((System.nanoTime() - startNanos) / 1e9);
    return s < 60 ? s + "s" : String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
  }

  @Override
  public void onJobStart(SparkListenerJobStart e) {
    long total = 0;
    for (StageInfo si : scala.jdk.javaapi.CollectionConverters.asJava(e.stageInfos())) {
      total += si.numTasks();
      stageToJob.put(si.stageId(), e.jobId());
    }
    String group = e.properties() == null ? null : e.properties().getProperty("spark.jobGroup.id");
    if (group == null) {
      jobTasks.put(e.jobId(), new Counter("job " + e.jobId(), false, new long[] {total, 0, 0}));
    } else {
      long[] t = groupTasks.computeIfAbsent(group, g -> new long[3]);
      synchronized (t) {
        t[0] += total;
      }
      jobTasks.put(e.jobId(), new Counter(group, true, t));
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd e) {
    Integer job = stageToJob.get(e.stageId());
    Counter c = job == null ? null : jobTasks.get(job);
    if (c == null) return;
    if (c.group() && c.label().equals(reportedGroup)) return;
    long[] t = c.tasks();
    long done;
    long total;
    synchronized (t) {
      done = ++t[1];
      total = t[0];
    }
    long now = System.currentTimeMillis();
    long last = lastPrint.get();
    if (now - last >= minGapMs && lastPrint.compareAndSet(last, now)) {
      // skipped stages (shuffle reuse) never run their tasks, so the percent is a lower bound
      t[2] = 1;
      line(String.format(Locale.ROOT, "%s: %d%% (%d/%d tasks%s)", c.label(), Math.min(100, 100 * done / Math.max(1, total)),
          done, total, c.group() ? " submitted so far" : ""));
    }
  }

  @Override
  public void onJobEnd(SparkListenerJobEnd e) {
    Counter c = jobTasks.remove(e.jobId());
    stageToJob.values().removeIf(j -> j == e.jobId());
    // only jobs long enough to have printed progress get an end line; a group's jobs get none
    if (c != null && !c.group() && c.tasks()[2] == 1) {
      // stages whose shuffle output already exists are skipped, so fewer tasks may run than planned
      line(String.format(Locale.ROOT, "job %d: done (%d tasks)", e.jobId(), c.tasks()[1]));
    }
  }

  @Override
  public void close() {
    spark.sparkContext().removeSparkListener(this);
  }
}
