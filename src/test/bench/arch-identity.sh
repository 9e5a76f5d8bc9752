#!/usr/bin/env bash
# Behaviour-identity check for refactorings (issue 18: "behaviour must not change"). Runs the
# shipped sample audit, the README's main command
#   ./smetric-audit audit sample-traces/generated/agent.smetric.b64.jsonl.gz --instances 4 --out DIR --overwrite
# and compares what it wrote with a reference run: audit.json, characterization/characterization.json,
# replay/replay.json, provenance.json, index.html, the verdict lines on stdout and the PNG charts (names
# and bytes). The sample audit does not hash raw logs, so the block-hasher is checked beside it:
#   ./smetric-audit hash sample-traces/raw-logs/* --salt-file (a fixed test salt) --jsonl --out DIR
# compares hash-summary.json and trace.jsonl (every request of every shipped log format, with its block
# ids). Only what differs from run to run of
# the same code is left out: timestamps, wall and CPU times, and the paths of the checkout and of the
# output folder (replaced by placeholders, so a reference from another checkout compares).
#
# usage: src/test/bench/arch-identity.sh record [--base COMMIT] [--quick] [--ref DIR]
#        src/test/bench/arch-identity.sh check  [--quick] [--ref DIR]
#        src/test/bench/arch-identity.sh compare REF_AUDIT_DIR AUDIT_DIR
#   record           runs the audit with this checkout and keeps its output as the reference
#   record --base C  the reference from commit C instead: built and run in a temporary git worktree
#                    (removed afterwards), e.g. `record --base main` after a rebase onto a moved main
#   check            runs the audit with this checkout and compares it with the reference; exit 1 on
#                    any difference (a unified diff of the normalised files is printed)
#   compare          only compares two audit folders that exist
#   --quick          the audit with --bootstrap 0 --no-conditions (about a fifth of the simulations);
#                    a quick reference and a full one are kept apart
#   --ref DIR        where the reference lives (default target/arch-identity/reference[-quick])
# Environment: SMETRIC_XMX as for the launcher. Cost, measured on this project's 2-core machine at load
# ~2 (docs/testing.md): the audit 111-139 s wall (781 simulations), the hash about 60 s, plus a build.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
trace=sample-traces/generated/agent.smetric.b64.jsonl.gz

usage() { sed -n '/^# usage:/,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# Keys whose values change from run to run of the same code (times and timestamps), removed at any depth.
# Measured by running the same commit twice (docs/testing.md, "Behaviour identity"); sized_point_cpu_s
# (replay.json's capacity block) is the measured CPU time of the sized-point simulations.
volatile_keys='["started_at","finished_at","wall_s","cpu_s","sized_point_cpu_s"]'

normalise_json() { # FILE RUN_DIR -> stdout: sorted keys, volatile keys removed, paths replaced
  normalise_paths "$1" "$2" | jq -S --argjson drop "$volatile_keys" \
    'walk(if type == "object" then with_entries(select(.key as $k | $drop | index($k) | not)) else . end)'
}

normalise_text() { # FILE RUN_DIR -> stdout with paths and ISO-8601 timestamps replaced
  normalise_paths "$1" "$2" | sed -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9:.]*Z/<TIME>/g'
}

normalise_paths() { # FILE RUN_DIR: the audit folder, the run folder and the checkout as placeholders
  local audit run repo
  audit="$(cat "$2/audit-path")"; run="$(dirname "$audit")"; repo="$(cat "$2/checkout")"
  if [[ -f "$1" ]]; then
    sed -e "s#$audit#<AUDIT>#g" -e "s#$run#<RUN>#g" -e "s#$repo#<CHECKOUT>#g" "$1"
  else
    echo '"(missing)"'
  fi
}

compare() { # REF_RUN NEW_RUN: each holds audit/ (the audit folder), hashed/, stdout, checkout (its path), audit-path
  local ref="$1" new="$2" bad=0 tmp f
  tmp="$(mktemp -d)"
  for d in "$ref" "$new"; do
    [[ -d "$d/audit" ]] || { echo "arch-identity: $d/audit does not exist" >&2; exit 2; }
  done
  for f in audit/audit.json audit/characterization/characterization.json audit/replay/replay.json audit/provenance.json \
      hashed/hash-summary.json audit/index.html stdout hashed/trace.jsonl; do
    if [[ $f == *.json ]]; then
      normalise_json "$ref/$f" "$ref" > "$tmp/ref"; normalise_json "$new/$f" "$new" > "$tmp/new"
    else
      normalise_text "$ref/$f" "$ref" > "$tmp/ref"; normalise_text "$new/$f" "$new" > "$tmp/new"
    fi
    if diff -u "$tmp/ref" "$tmp/new" > "$tmp/diff"; then
      echo "same      $f ($(wc -c < "$tmp/new") bytes normalised)"
    else
      echo "DIFFERENT $f"; head -n 80 "$tmp/diff"; bad=1
    fi
  done
  # the charts: the same files with the same bytes (two runs of one commit on one machine write identical PNGs;
  # a reference from another machine may differ in fonts: then only the names are meaningful)
  (cd "$ref/audit" && ls *.png | sort) > "$tmp/ref.png"
  (cd "$new/audit" && ls *.png | sort) > "$tmp/new.png"
  if diff -u "$tmp/ref.png" "$tmp/new.png" > "$tmp/diff"; then
    local differ=()
    while read -r p; do cmp -s "$ref/audit/$p" "$new/audit/$p" || differ+=("$p"); done < "$tmp/new.png"
    if [[ ${#differ[@]} == 0 ]]; then
      echo "same      chart files ($(wc -l < "$tmp/new.png"), byte-identical)"
    else
      echo "DIFFERENT chart bytes: ${differ[*]}"; bad=1
    fi
  else
    echo "DIFFERENT chart files"; cat "$tmp/diff"; bad=1
  fi
  rm -rf "$tmp"
  if [[ $bad == 0 ]]; then echo "arch-identity: identical"; else echo "arch-identity: DIFFERENT"; fi
  return $bad
}

run_audit() { # CHECKOUT DEST QUICK: runs the audit of CHECKOUT into DEST/audit
  local checkout="$1" dest="$2" quick="$3" extra=()
  if [[ $quick == 1 ]]; then extra=(--bootstrap 0 --no-conditions); fi
  rm -rf "$dest"; mkdir -p "$dest"
  echo "$checkout" > "$dest/checkout"
  echo "$dest/audit" > "$dest/audit-path"
  git -C "$checkout" rev-parse HEAD > "$dest/commit"
  (cd "$checkout" && git status --porcelain --untracked-files=no) > "$dest/dirty"
  echo "arch-identity: auditing with $checkout ($(cat "$dest/commit")$([[ -s "$dest/dirty" ]] && echo ", uncommitted changes"))" >&2
  local t0=$SECONDS
  (cd "$checkout" && ./smetric-audit audit "$trace" --instances 4 --out "$dest/audit" --overwrite "${extra[@]}") \
    > "$dest/stdout" 2> "$dest/stderr" || { echo "arch-identity: the audit failed, see $dest/stderr" >&2; tail -5 "$dest/stderr" >&2; exit 1; }
  echo "arch-identity: audit done in $((SECONDS - t0)) s" >&2
  # a fixed salt: the hashes only have to be comparable between two runs, nothing secret is hashed
  printf 'arch-identity-fixed-salt-0123456789' > "$dest/salt"
  t0=$SECONDS
  (cd "$checkout" && ./smetric-audit hash sample-traces/raw-logs/* --salt-file "$dest/salt" --jsonl --out "$dest/hashed") \
    > "$dest/hash.stdout" 2> "$dest/hash.stderr" || { echo "arch-identity: hash failed, see $dest/hash.stderr" >&2; tail -5 "$dest/hash.stderr" >&2; exit 1; }
  echo "arch-identity: hash done in $((SECONDS - t0)) s" >&2
}

cmd="${1:-}"; shift || true
quick=0; ref=""; base=""
if [[ $cmd == compare ]]; then
  [[ $# == 2 ]] || usage
  # bare audit folders: wrap them as run folders with no checkout path to replace
  w="$(mktemp -d)"
  for k in 1 2; do
    d="$(realpath "${!k}")"; mkdir -p "$w/$k"; ln -s "$d" "$w/$k/audit"; echo "$d" > "$w/$k/audit-path"
    [[ -d "$d/../hashed" ]] && ln -s "$(realpath "$d/../hashed")" "$w/$k/hashed"
    echo "$here" > "$w/$k/checkout"; : > "$w/$k/stdout"
  done
  rc=0; compare "$w/1" "$w/2" || rc=$?
  rm -rf "$w"; exit $rc
fi
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --ref) ref="$2"; shift ;;
    --base) base="$2"; shift ;;
    *) usage ;;
  esac
  shift
done
suffix=""
if [[ $quick == 1 ]]; then suffix=-quick; fi
[[ -n $ref ]] || ref="$here/target/arch-identity/reference$suffix"
ref="$(realpath -m "$ref")" # the runs cd into the checkout they audit
case "$cmd" in
  record)
    if [[ -n $base ]]; then
      sha="$(git -C "$here" rev-parse "$base")"
      wt="${TMPDIR:-/tmp}/arch-identity-$sha"
      git -C "$here" worktree remove --force "$wt" 2>/dev/null || true
      git -C "$here" worktree add --detach "$wt" "$sha" >&2
      trap 'git -C "$here" worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
      run_audit "$wt" "$ref" "$quick"
    else
      run_audit "$here" "$ref" "$quick"
    fi
    echo "arch-identity: reference of $(cat "$ref/commit") in $ref"
    ;;
  check)
    [[ -d "$ref/audit" ]] || { echo "arch-identity: no reference in $ref: run '$0 record${suffix/-/ --}' first" >&2; exit 2; }
    new="$here/target/arch-identity/current$suffix"
    run_audit "$here" "$new" "$quick"
    echo "arch-identity: reference $(cat "$ref/commit")$([[ -s "$ref/dirty" ]] && echo '+changes'), current $(cat "$new/commit")$([[ -s "$new/dirty" ]] && echo '+changes')"
    compare "$ref" "$new"
    ;;
  *) usage ;;
esac
