#!/usr/bin/env bash
# Benchmark apicheck on a large generated API tree and compare it with the
# floor of merely reading the same files from git objects and parsing them.
#
#   scripts/bench.sh            # or: RUNS=9 COUNT=5 scripts/bench.sh
#
# Needs only Go and git. Steps:
#   1. build apicheck and scripts/benchtime (a timing helper);
#   2. generate the repository (internal/benchgen/cmd/benchgen): 40 API groups,
#      branch "base", and branch "head" with a realistic change set that
#      plants 6 violations;
#   3. time `apicheck check --base base --head head --format json` RUNS times
#      after one warm-up run (best and median wall time);
#   4. peak RSS: GNU `/usr/bin/time -v` ("Maximum resident set size") when it
#      is installed, otherwise benchtime's own figure, which is the same kernel
#      number (ru_maxrss of the child from wait4);
#   5. run BenchmarkReadAndParse and BenchmarkCheck (-benchtime BENCHTIME,
#      -count COUNT) on the same repository;
#   6. print a table and PASS/FAIL against the targets: apicheck at most 3x
#      the read+parse floor, peak RSS at most 300 MB.
#
# Times are the best of the runs (minimum), for the binary and for both
# benchmarks alike: on a shared machine other processes only ever add time,
# so the minimum is the most repeatable estimate of the cost itself. The
# verdict is on wall time; CPU time (user + system, git included) is shown
# too because it moves much less when the machine is busy.
#
# Environment: RUNS (7), COUNT (3), BENCHTIME (5x), API_GROUPS (40), SEED (1),
# KEEP=1 keeps the temporary directory. Exit status 0 = PASS, 1 = FAIL,
# 2 = the benchmark itself failed.
set -euo pipefail

RUNS=${RUNS:-7}
COUNT=${COUNT:-3}
BENCHTIME=${BENCHTIME:-5x}
API_GROUPS=${API_GROUPS:-40}
SEED=${SEED:-1}
MAX_RATIO=3
MAX_RSS_MB=300

die() { echo "bench.sh: $*" >&2; exit 2; }
for tool in go git; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
done

cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apicheck-bench.XXXXXX")
if [ -n "${KEEP:-}" ]; then
	echo "bench.sh: keeping $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

echo "== build" >&2
go build -o "$tmp/apicheck" ./cmd/apicheck
go build -o "$tmp/benchtime" ./scripts/benchtime

echo "== generate repository ($API_GROUPS groups)" >&2
go run ./internal/benchgen/cmd/benchgen -groups "$API_GROUPS" -seed "$SEED" "$tmp/repo" >"$tmp/gen.txt" ||
	die "benchgen failed"
gen() { sed -n "s/^$1=//p" "$tmp/gen.txt"; }

echo "== time apicheck check ($RUNS runs)" >&2
cli=("$tmp/apicheck" check --repo "$tmp/repo" --base base --head head --format json)
# Exit code 1 means "findings": expected, the head revision has violations.
"$tmp/benchtime" -n "$RUNS" -warmup 1 -ok 0,1 -stdout "$tmp/report.json" -- "${cli[@]}" >"$tmp/cli.txt" ||
	die "apicheck check failed"
cliv() { sed -n "s/^$1=//p" "$tmp/cli.txt"; }
findings=$(grep -c '"rule":' "$tmp/report.json" || true)

rss_kb=""
rss_how=""
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
	set +e
	/usr/bin/time -v "${cli[@]}" >/dev/null 2>"$tmp/time.txt"
	code=$?
	set -e
	[ "$code" -le 1 ] || die "apicheck check under /usr/bin/time exited with $code"
	rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$tmp/time.txt")
	rss_how="/usr/bin/time -v"
fi
if [ -z "$rss_kb" ]; then
	rss_kb=$(cliv max_rss_kb)
	rss_how="wait4 rusage, max of $RUNS runs"
fi

echo "== go test -bench (benchtime $BENCHTIME, count $COUNT)" >&2
APICHECK_BENCH_REPO="$tmp/repo" go test -run '^$' -bench 'BenchmarkReadAndParse|BenchmarkCheck' \
	-benchtime "$BENCHTIME" -count "$COUNT" ./internal/check/ >"$tmp/bench.txt" 2>&1 ||
	{ cat "$tmp/bench.txt" >&2; die "go test -bench failed"; }
grep '^Benchmark' "$tmp/bench.txt" >&2

# best NAME UNIT: the smallest value of metric UNIT (ns/op, cpu-ms/op) of
# benchmark NAME over the -count runs.
best() {
	awk -v name="$1" -v unit="$2" '
		$1 ~ "^" name "(-[0-9]+)?$" {
			for (i = 2; i < NF; i++) if ($(i + 1) == unit && (v == "" || $i + 0 < v)) v = $i + 0
		}
		END { print v }' "$tmp/bench.txt"
}
files_op() {
	awk '$1 ~ /^BenchmarkReadAndParse/ { for (i = 2; i < NF; i++) if ($(i + 1) == "files/op") { print $i; exit } }' "$tmp/bench.txt"
}
base_ns=$(best BenchmarkReadAndParse ns/op)
check_ns=$(best BenchmarkCheck ns/op)
base_cpu=$(best BenchmarkReadAndParse cpu-ms/op)
check_cpu=$(best BenchmarkCheck cpu-ms/op)
[ -n "$base_ns" ] && [ -n "$check_ns" ] && [ -n "$base_cpu" ] && [ -n "$check_cpu" ] ||
	die "could not read the benchmark results"

scanned_files=$(($(gen base_scanned_files) + $(gen head_scanned_files)))
scanned_bytes=$(($(gen base_scanned_bytes) + $(gen head_scanned_bytes)))
repo_files=$(($(gen base_files) + $(gen head_files)))
repo_bytes=$(($(gen base_bytes) + $(gen head_bytes)))

awk -v groups="$API_GROUPS" -v sf="$scanned_files" -v sb="$scanned_bytes" -v rf="$repo_files" -v rb="$repo_bytes" \
	-v fop="$(files_op)" -v findings="$findings" -v planted="$(gen violations)" -v touched="$(gen touched_files)" \
	-v cli_best="$(cliv best_ms)" -v cli_median="$(cliv median_ms)" -v runs="$RUNS" \
	-v cli_cpu="$(cliv best_cpu_ms)" -v check_cpu="$check_cpu" -v base_cpu="$base_cpu" \
	-v check_ns="$check_ns" -v base_ns="$base_ns" -v count="$COUNT" -v benchtime="$BENCHTIME" \
	-v rss_kb="$rss_kb" -v rss_how="$rss_how" -v max_ratio="$MAX_RATIO" -v max_rss="$MAX_RSS_MB" '
	function verdict(ok) { return ok ? "PASS" : "FAIL" }
	BEGIN {
		base_s = base_ns / 1e9; check_s = check_ns / 1e9; cli_s = cli_best / 1000
		ratio_cli = cli_s / base_s; ratio_in = check_s / base_s
		rss_mb = rss_kb / 1024
		ok_ratio = ratio_cli <= max_ratio && ratio_in <= max_ratio
		ok_rss = rss_mb <= max_rss
		printf "\napicheck benchmark: %d API groups (internal + v1beta1), base -> head\n\n", groups
		printf "  %-22s %s\n", "files read+parsed", sprintf("%d Go files over both revisions (%d per revision; %s/op with go.mod)", sf, sf / 2, fop)
		printf "  %-22s %s\n", "bytes read+parsed", sprintf("%.2f MB over both revisions (%.2f MB per revision)", sb / 1e6, sb / 2e6)
		printf "  %-22s %s\n", "repository", sprintf("%d files, %.2f MB over both revisions (generated code included); head touches %d files", rf, rb / 1e6, touched)
		printf "  %-22s %s\n", "findings", sprintf("%d (%d violations planted)", findings, planted)
		printf "  %-22s %s\n", "apicheck check", sprintf("%.3f s  best of %d runs of the binary (median %.3f s); CPU %.3f s", cli_s, runs, cli_median / 1000, cli_cpu / 1000)
		printf "  %-22s %s\n", "check (in-process)", sprintf("%.3f s  BenchmarkCheck, best of %d x %s; CPU %.3f s", check_s, count, benchtime, check_cpu / 1000)
		printf "  %-22s %s\n", "read+parse baseline", sprintf("%.3f s  BenchmarkReadAndParse, best of %d x %s; CPU %.3f s", base_s, count, benchtime, base_cpu / 1000)
		printf "  %-22s %s\n", "ratio (wall time)", sprintf("%.2fx binary, %.2fx in-process  (target <= %gx)  %s", ratio_cli, ratio_in, max_ratio, verdict(ok_ratio))
		printf "  %-22s %s\n", "ratio (CPU time)", sprintf("%.2fx binary, %.2fx in-process  (for information)", cli_cpu / base_cpu, check_cpu / base_cpu)
		printf "  %-22s %s\n", "peak RSS", sprintf("%.0f MB  (%s; target <= %d MB)  %s", rss_mb, rss_how, max_rss, verdict(ok_rss))
		printf "\n%s\n", verdict(ok_ratio && ok_rss && findings == planted)
		if (findings != planted) print "bench.sh: the report does not hold exactly the planted violations" > "/dev/stderr"
		exit !(ok_ratio && ok_rss && findings == planted)
	}'
