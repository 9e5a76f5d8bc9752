# Sourced by the audit scale benchmarks: one sample of a driver JVM (and, on a cluster, of every
# executor JVM on this machine) as "rss_driver_kib rss_executors_kib cpu_seconds".
# Usage: proc_sample DRIVER_PID [EXECUTOR_PIDS...]   (cpu = user + system of all of them)
proc_sample() {
  local driver=$1; shift
  local tck; tck=$(getconf CLK_TCK)
  local d e=0 ticks=0 p st
  d=$(awk '/VmRSS/ {print $2}' "/proc/$driver/status" 2>/dev/null) || return 1
  [[ -n "$d" ]] || return 1
  for p in "$driver" "$@"; do
    # fields 14 and 15 of /proc/PID/stat (after the parenthesised command name): utime, stime
    st=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null) || continue
    ticks=$((ticks + $(awk '{print $12 + $13}' <<< "$st")))
    [[ "$p" == "$driver" ]] || e=$((e + $(awk '/VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)))
  done
  echo "$d $e $(awk -v t="$ticks" -v h="$tck" 'BEGIN{printf "%.1f", t / h}')"
}
