package io.smetric.audit.cluster;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Spark standalone cluster on 127.0.0.1 built from the Maven-resolved Spark jars: one
 * Master and N Worker JVMs, a folder whose jars/ links those jars serving as SPARK_HOME. Every
 * process is started here and stopped by PID in {@link #close()}, also when a test fails.
 */
final class LocalStandaloneCluster implements AutoCloseable {
  private final Path home;
  private final String classPath;
  private final List<String> jvmArgs;
  private final List<Process> processes = new ArrayList<>();
  final int masterPort;
  final Path logs;

  LocalStandaloneCluster(Path work, Path repo, int workers, String workerMemory) throws IOException, InterruptedException {
    this.home = work.resolve("spark-home");
    this.logs = work.resolve("logs");
    Files.createDirectories(home.resolve("jars"));
    Files.createDirectories(logs);
    this.classPath = Files.readString(repo.resolve("target/classpath.txt")).strip();
    for (String jar : classPath.split(File.pathSeparator)) {
      Path j = Path.of(jar);
      Path link = home.resolve("jars").resolve(j.getFileName());
      if (!Files.exists(link)) Files.createSymbolicLink(link, j);
    }
    this.jvmArgs = Files.readAllLines(repo.resolve("jvm.args")).stream().filter(l -> !l.isBlank()).toList();
    this.masterPort = freePort();
    start("master", List.of("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
        "--port", "" + masterPort, "--webui-port", "" + freePort()), "512m");
    for (int i = 0; i < workers; i++) {
      start("worker" + i, List.of("org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
          "--cores", "1", "--memory", workerMemory, "--webui-port", "" + freePort(), masterUrl()), "512m");
    }
    awaitLog("master", "Registering worker", workers, 120);
  }

  String masterUrl() {
    return "spark://127.0.0.1:" + masterPort;
  }

  String classPath() {
    return classPath;
  }

  List<String> jvmArgs() {
    return jvmArgs;
  }

  Map<String, String> env() {
    return Map.of("SPARK_HOME", home.toString(), "SPARK_SCALA_VERSION", "2.13", "SPARK_LOCAL_IP", "127.0.0.1");
  }

  private void start(String name, List<String> mainAndArgs, String heap) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmArgs);
    cmd.add("-Xmx" + heap);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.addAll(mainAndArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logs.resolve(name + ".log").toFile());
    pb.environment().putAll(env());
    processes.add(pb.start());
  }

  /**
   * Starts a command (with the cluster's environment) without waiting, so the test can do other
   * work meanwhile; {@link #await} collects it. Its output goes to the log {@code name}.
   */
  Process launch(String name, List<String> cmd) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logs.resolve(name + ".log").toFile());
    pb.environment().putAll(env());
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  /** Waits for a {@link #launch}ed command, returning its exit code; kills it after {@code timeoutS}. */
  int await(String name, Process p, long timeoutS) throws InterruptedException {
    if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(name + " did not finish in " + timeoutS + " s; log: " + log(name));
    }
    return p.exitValue();
  }

  String log(String name) {
    try {
      return Files.readString(logs.resolve(name + ".log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private void awaitLog(String name, String needle, int times, int timeoutS) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
    while (System.nanoTime() < end) {
      String l = log(name);
      int n = 0;
      for (int i = l.indexOf(needle); i >= 0; i = l.indexOf(needle, i + 1)) n++;
      if (n >= times) return;
      for (Process p : processes) {
        if (!p.isAlive()) throw new IllegalStateException("a cluster process died: " + p.pid() + "\n" + log(name));
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("timed out waiting for '" + needle + "' x" + times + " in " + name + ":\n" + log(name));
  }

  /** PIDs of every process started (cluster daemons and submitted drivers), for leak checks. */
  List<Long> pids() {
    return processes.stream().map(Process::pid).toList();
  }

  @Override
  public void close() throws InterruptedException {
    for (Process p : processes) {
      // stop the children too (executors are children of the workers)
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
    }
    for (Process p : processes) {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
