#!/usr/bin/env bash
# Benchmark apicheck on a large generated API tree and compare it with the
# floor of merely reading the same files from git objects and parsing them.
#
#   scripts/bench.sh            # or: RUNS=9 COUNT=5 scripts/bench.sh
#   scripts/bench.sh --repo DIR --base A --head B [--runs N] [--cache warm|cold|off]
#   scripts/bench.sh --repo DIR --audit REV [--runs N] [--cache warm|cold|off]
#   scripts/bench.sh [...] --markdown   # the measurements as a Markdown table
#   scripts/bench.sh --other-files N [--runs N]   # what N files outside the API cost
#   scripts/bench.sh --groups-sweep "40 160 640 2560" [--runs N] [--baseline BIN] [--markdown]
#
# The second form times an existing repository (a clone, or the git
# directory of a bare one): see "Real repositories" below. --markdown
# (either form) prints the usual report to standard error and a Markdown
# table to standard output: the command, apicheck's median, the floor,
# their ratio, peak RSS, the date and the machine (cores, CPU model, OS),
# the row format of docs/performance.md.
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
#
# Real repositories (--repo): builds apicheck and the floor program
# (internal/benchgen/cmd/floor), lets the floor list the files apicheck's
# scan reads at both revisions and every other object a cold check reads
# from git (one check run with the caches off, untimed), then runs
# `apicheck check --repo DIR --base A --head B --format json --fail-on none`,
# the floor (read those files from git objects and parse them, nothing
# else) and the floor with the other reads (the same, and read the other
# objects at the same time, two cat-file processes: the trees the listing
# walks, the generated files rules read, the release history, the usage
# search's files) interleaved, --runs rounds (default 5) after one warm-up
# round, and prints the median wall time of each, the ratios to both
# floors, CPU time and peak RSS. The second floor is the one a check that
# needs release history is judged against: nothing can judge protobuf
# numbers or a removal's usages without reading them.
# --cache warm (default) keeps apicheck's cache between runs (the warm-up
# round fills it), cold gives every run an empty one (a shell wrapper
# makes and removes the directory: a few milliseconds), off disables it.
# The cache lives in the temporary directory, never in the user's.
#
# --audit REV (with --repo, instead of --base and --head) times
# `apicheck audit --repo DIR --rev REV --history --format json --fail-on
# none` against the floor of one revision: reading and parsing the files
# the scan reads at REV (and, for the second floor, what else the audit
# read).
#
# --other-files N: generates the repository twice, the second time with N
# files outside the API packages (benchgen -other-files: docs, charts,
# web assets and Go packages of controllers, the same at base and head),
# and times `apicheck check` on both, interleaved, --runs rounds (default
# 9) after one warm-up round with the cache kept (warm, in the temporary
# directory); it prints each one's median wall and CPU time and the
# median of the differences round by round, and PASS (exit 0) when the
# wall-time difference is at most 20 ms, FAIL (exit 1) otherwise.
#
# --groups-sweep "N1 N2 ...": generates a tree of each number of API
# groups (benchgen -groups N, seed SEED) and times `apicheck check --repo
# TREE --base base --head head --format json --fail-on none` on it,
# --runs rounds (default 3) after one warm-up round with the cache kept
# (warm, in the temporary directory): the median wall and CPU time, the
# CPU time per group (the same for every size when the cost is linear)
# and the largest peak RSS of the runs. --baseline BIN times another apicheck
# binary as well, interleaved round by round, each with a cache of its
# own, and its report must be the same byte for byte but for the line
# of the binary's version (exit 1 otherwise).
# SWEEP_DIR=DIR generates the trees there, once (DIR/groups-N-seed-S,
# and what benchgen said of it in DIR/groups-N-seed-S.txt): a later sweep
# reuses them (2,560 groups take minutes to generate). --markdown prints the
# table to standard output.
#
# --markdown in the generated form: apicheck's cell is the binary's median
# (and best), the floor BenchmarkReadAndParse's best, the ratio the one
# the verdict uses (best binary / best floor, and in-process); the exit
# status is the verdict's, as without --markdown.
set -euo pipefail

die() { echo "bench.sh: $*" >&2; exit 2; }

REPO=""
REV_BASE=""
REV_HEAD=""
CACHE=warm
REPO_RUNS=5
MARKDOWN=""
OTHER_FILES=""
SWEEP=""
BASELINE=""
AUDIT=""
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--repo) REPO=${2:?--repo needs a directory}; shift 2 ;;
	--base) REV_BASE=${2:?--base needs a revision}; shift 2 ;;
	--head) REV_HEAD=${2:?--head needs a revision}; shift 2 ;;
	--audit) AUDIT=${2:?--audit needs a revision}; shift 2 ;;
	--runs) REPO_RUNS=${2:?--runs needs a number}; shift 2 ;;
	--cache) CACHE=${2:?--cache needs warm, cold or off}; shift 2 ;;
	--markdown) MARKDOWN=1; shift ;;
	--other-files) OTHER_FILES=${2:?--other-files needs a number}; shift 2 ;;
	--groups-sweep) SWEEP=${2:?--groups-sweep needs numbers of groups}; shift 2 ;;
	--baseline) BASELINE=${2:?--baseline needs an apicheck binary}; shift 2 ;;
	*) die "unknown argument $1 (usage: bench.sh [--repo DIR (--base A --head B | --audit REV) [--runs N] [--cache warm|cold|off]] [--other-files N] [--groups-sweep \"N ...\" [--baseline BIN]] [--markdown])" ;;
	esac
done
if [ -n "$OTHER_FILES" ]; then
	case "$OTHER_FILES" in *[!0-9]*) die "--other-files must be a number" ;; esac
	[ -z "$REPO$REV_BASE$REV_HEAD" ] || die "--other-files generates its repositories: no --repo, --base or --head"
fi
if [ -n "$SWEEP" ]; then
	for n in $SWEEP; do
		case "$n" in '' | *[!0-9]* | 0) die "--groups-sweep takes positive numbers of groups" ;; esac
	done
	[ -z "$REPO$REV_BASE$REV_HEAD$OTHER_FILES" ] || die "--groups-sweep generates its repositories: no --repo, --base, --head or --other-files"
	if [ -n "$BASELINE" ]; then
		[ -x "$BASELINE" ] || die "--baseline $BASELINE is not an executable"
		BASELINE=$(cd "$(dirname "$BASELINE")" && pwd)/$(basename "$BASELINE")
	fi
elif [ -n "$BASELINE" ]; then
	die "--baseline goes with --groups-sweep"
fi
if [ -n "$AUDIT" ]; then
	[ -n "$REPO" ] && [ -z "$REV_BASE$REV_HEAD" ] || die "--audit goes with --repo, without --base and --head"
	REV_BASE=$AUDIT REV_HEAD=$AUDIT
fi
if [ -n "$REPO" ] || [ -n "$REV_BASE" ] || [ -n "$REV_HEAD" ]; then
	[ -n "$REPO" ] && [ -n "$REV_BASE" ] && [ -n "$REV_HEAD" ] || die "--repo, --base and --head go together"
	[ -d "$REPO" ] || die "--repo $REPO is not a directory"
	REPO=$(cd "$REPO" && pwd)
	case "$REPO_RUNS" in '' | *[!0-9]* | 0) die "--runs must be a positive number" ;; esac
	case "$CACHE" in warm | cold | off) ;; *) die "--cache must be warm, cold or off" ;; esac
fi

RUNS=${RUNS:-7}
COUNT=${COUNT:-3}
BENCHTIME=${BENCHTIME:-5x}
API_GROUPS=${API_GROUPS:-40}
SEED=${SEED:-1}
MAX_RATIO=3
MAX_RSS_MB=300

for tool in go git; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
done

# With --markdown everything the script prints goes to standard error,
# and the table to the original standard output (descriptor 3).
if [ -n "$MARKDOWN" ]; then
	exec 3>&1 1>&2
fi

# machine: cores, CPU model and OS of this machine, for the table.
machine() {
	local cores model
	cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?")
	model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
	[ -n "$model" ] || model=$(sysctl -n machdep.cpu.brand_string 2>/dev/null || true)
	printf '%s cores%s, %s' "$cores" "${model:+, $model}" "$(uname -sm)"
}

# command_line: how the script was invoked, with --repo reduced to the
# repository's name (as survey.sh names projects), for the table.
command_line() {
	local out="scripts/bench.sh" i a name
	if [ -z "$REPO" ]; then
		out="API_GROUPS=$API_GROUPS RUNS=$RUNS COUNT=$COUNT BENCHTIME=$BENCHTIME SEED=$SEED $out"
	fi
	for ((i = 0; i < ${#args[@]}; i++)); do
		a=${args[i]}
		if [ "$a" = --repo ] && [ $((i + 1)) -lt ${#args[@]} ]; then
			name=${REPO%/.git}
			name=${name%/repo}
			out="$out --repo ${name##*/}"
			i=$((i + 1))
			continue
		fi
		out="$out $a"
	done
	printf '%s' "$out"
}

# markdown_reads_table CMD APICHECK FLOOR RATIO FLOOR_READS RATIO_READS RSS:
# the table of a repository's timing, on descriptor 3.
markdown_reads_table() {
	{
		echo "| command | apicheck (median) | floor | ratio | floor + reads | ratio | peak RSS | date | machine |"
		echo "|---|---|---|---|---|---|---|---|---|"
		printf '| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$(date -u +%Y-%m-%d)" "$(machine)"
	} >&3
}

# markdown_table CMD APICHECK FLOOR RATIO RSS: the table, on descriptor 3.
markdown_table() {
	{
		echo "| command | apicheck (median) | floor | ratio | peak RSS | date | machine |"
		echo "|---|---|---|---|---|---|---|"
		printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$(date -u +%Y-%m-%d)" "$(machine)"
	} >&3
}

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

if [ -n "$REPO" ]; then
	go build -o "$tmp/floor" ./internal/benchgen/cmd/floor
	mkdir -m 0700 "$tmp/cache"
	# apicheck reads the module cache but never runs the go command or
	# downloads; these keep anything that would from reaching the network.
	export GOFLAGS=-mod=mod GOPROXY=off APICHECK_CACHE_DIR="$tmp/cache"
	echo "== list the files the scan reads ($REV_BASE -> $REV_HEAD)" >&2
	"$tmp/floor" -repo "$REPO" -base "$REV_BASE" -head "$REV_HEAD" ${AUDIT:+-one} -list "$tmp/files.json" ||
		die "the floor could not list the files (does apicheck check run on this pair?)"
	cli=("$tmp/apicheck" check --repo "$REPO" --base "$REV_BASE" --head "$REV_HEAD" --format json --fail-on none)
	if [ -n "$AUDIT" ]; then
		cli=("$tmp/apicheck" audit --repo "$REPO" --rev "$AUDIT" --history --format json --fail-on none)
	fi
	case "$CACHE" in
	cold)
		cli=(sh -c 'd=$(mktemp -d "$0/cold.XXXXXX") && APICHECK_CACHE_DIR=$d "$@"; rc=$?; rm -rf "$d"; exit $rc' "$tmp" "${cli[@]}") ;;
	off) cli=(env APICHECK_CACHE_DIR=- "${cli[@]}") ;;
	esac
	floor=("$tmp/floor" -repo "$REPO" -base "$REV_BASE" -head "$REV_HEAD" -files "$tmp/files.json")
	echo "== time apicheck, the floor and the floor with the other reads, interleaved ($REPO_RUNS rounds after 1 warm-up, cache $CACHE)" >&2
	"$tmp/benchtime" -n "$REPO_RUNS" -warmup 1 -ok 0 -stdout "$tmp/report.json" -- "${cli[@]}" ::: "${floor[@]}" ::: "${floor[@]}" -reads >"$tmp/times.txt" ||
		die "a timed run failed"
	"${floor[@]}" >"$tmp/floor.txt" || die "the floor failed"
	"${floor[@]}" -reads >"$tmp/floor-reads.txt" || die "the floor with the other reads failed"
	tv() { sed -n "s/^$1=//p" "$tmp/times.txt"; }
	fv() { sed -n "s/^$1=//p" "$tmp/floor.txt"; }
	rv() { sed -n "s/^$1=//p" "$tmp/floor-reads.txt"; }
	awk -v repo="$REPO" -v base="$REV_BASE" -v head="$REV_HEAD" -v audit="$AUDIT" -v runs="$REPO_RUNS" -v cache="$CACHE" \
		-v files="$(fv files)" -v parsed="$(fv parsed)" -v bytes="$(fv bytes)" -v reads="$(rv reads)" -v rbytes="$(rv bytes)" \
		-v findings="$(grep -c '"rule":' "$tmp/report.json" || true)" \
		-v cli="$(tv c1_median_ms)" -v cli_best="$(tv c1_best_ms)" -v cli_cpu="$(tv c1_median_cpu_ms)" -v cli_rss="$(tv c1_max_rss_kb)" \
		-v fl="$(tv c2_median_ms)" -v fl_best="$(tv c2_best_ms)" -v fl_cpu="$(tv c2_median_cpu_ms)" -v fl_rss="$(tv c2_max_rss_kb)" \
		-v fr="$(tv c3_median_ms)" -v fr_best="$(tv c3_best_ms)" -v fr_cpu="$(tv c3_median_cpu_ms)" -v fr_rss="$(tv c3_max_rss_kb)" '
	BEGIN {
		if (audit != "") {
			printf "\napicheck audit --history on %s at %s (median of %d interleaved runs, cache %s)\n\n", repo, audit, runs, cache
			printf "  %-16s %s\n", "files", sprintf("%d of one revision (%d Go files parsed), %.2f MB", files, parsed, bytes / 1e6)
		} else {
			printf "\napicheck on %s: %s -> %s (median of %d interleaved runs, cache %s)\n\n", repo, base, head, runs, cache
			printf "  %-16s %s\n", "files", sprintf("%d over both revisions (%d Go files parsed), %.2f MB", files, parsed, bytes / 1e6)
		}
		printf "  %-16s %s\n", "findings", findings
		printf "  %-16s %s\n", audit != "" ? "apicheck audit" : "apicheck check", sprintf("%.3f s  (best %.3f s); CPU %.3f s; peak RSS %.0f MB", cli / 1000, cli_best / 1000, cli_cpu / 1000, cli_rss / 1024)
		printf "  %-16s %s\n", "floor", sprintf("%.3f s  (best %.3f s); CPU %.3f s; peak RSS %.0f MB", fl / 1000, fl_best / 1000, fl_cpu / 1000, fl_rss / 1024)
		printf "  %-16s %s\n", "ratio", sprintf("%.2fx wall, %.2fx CPU (medians)", cli / fl, cli_cpu / fl_cpu)
		printf "  %-16s %s\n", "other reads", sprintf("%d objects the check also read (trees, generated files, history), %.2f MB more", reads, (rbytes - bytes) / 1e6)
		printf "  %-16s %s\n", "floor + reads", sprintf("%.3f s  (best %.3f s); CPU %.3f s; peak RSS %.0f MB", fr / 1000, fr_best / 1000, fr_cpu / 1000, fr_rss / 1024)
		printf "  %-16s %s\n", "ratio to it", sprintf("%.2fx wall, %.2fx CPU (medians)", cli / fr, cli_cpu / fr_cpu)
	}'
	if [ -n "$MARKDOWN" ]; then
		ratio() { awk -v c="$(tv c1_median_ms)" -v f="$(tv "$1"_median_ms)" -v cc="$(tv c1_median_cpu_ms)" -v fc="$(tv "$1"_median_cpu_ms)" \
			'BEGIN { printf "%.2fx (CPU %.2fx)", c / f, cc / fc }'; }
		markdown_reads_table "$(command_line)" \
			"$(awk -v m="$(tv c1_median_ms)" -v b="$(tv c1_best_ms)" 'BEGIN { printf "%.3f s (best %.3f s)", m / 1000, b / 1000 }')" \
			"$(awk -v m="$(tv c2_median_ms)" 'BEGIN { printf "%.3f s", m / 1000 }')" "$(ratio c2)" \
			"$(awk -v m="$(tv c3_median_ms)" 'BEGIN { printf "%.3f s", m / 1000 }')" "$(ratio c3)" \
			"$(awk -v k="$(tv c1_max_rss_kb)" 'BEGIN { printf "%.0f MB", k / 1024 }')"
	fi
	exit 0
fi

if [ -n "$SWEEP" ]; then
	runs=$REPO_RUNS
	case " ${args[*]} " in *" --runs "*) ;; *) runs=3 ;; esac
	gen_dir=${SWEEP_DIR:-$tmp/trees}
	mkdir -p "$gen_dir" "$tmp/sweep"
	mkdir -m 0700 "$tmp/cache" "$tmp/cache-baseline"
	export GOFLAGS=-mod=mod GOPROXY=off
	# to OUT BIN ARGS...: runs BIN with its report in OUT (both binaries
	# alike, through one shell).
	to=(sh -c 'out=$1; shift; exec "$@" >"$out"' sh)
	rows=()
	rc=0
	for n in $SWEEP; do
		repo=$gen_dir/groups-$n-seed-$SEED
		if [ ! -f "$repo.txt" ]; then
			echo "== generate the repository ($n groups)" >&2
			rm -rf "$repo"
			go run ./internal/benchgen/cmd/benchgen -groups "$n" -seed "$SEED" "$repo" >"$tmp/gen.txt" || die "benchgen failed"
			mv "$tmp/gen.txt" "$repo.txt"
		fi
		go_files=$(sed -n 's/^base_scanned_files=//p' "$repo.txt")
		check=(check --repo "$repo" --base base --head head --format json --fail-on none)
		cmds=(env APICHECK_CACHE_DIR="$tmp/cache" "${to[@]}" "$tmp/sweep/new.json" "$tmp/apicheck" "${check[@]}")
		if [ -n "$BASELINE" ]; then
			cmds+=(::: env APICHECK_CACHE_DIR="$tmp/cache-baseline" "${to[@]}" "$tmp/sweep/baseline.json" "$BASELINE" "${check[@]}")
		fi
		echo "== time apicheck check ($n groups, $runs rounds after 1 warm-up, cache warm)" >&2
		"$tmp/benchtime" -n "$runs" -warmup 1 -ok 0 -- "${cmds[@]}" >"$tmp/times.txt" || die "a timed run failed"
		tv() { sed -n "s/^$1=//p" "$tmp/times.txt"; }
		pre=""
		[ -z "$BASELINE" ] || pre=c1_
		row=$(awk -v n="$n" -v files="$go_files" -v wall="$(tv "${pre}median_ms")" -v cpu="$(tv "${pre}median_cpu_ms")" \
			-v rss="$(tv "${pre}max_rss_kb")" 'BEGIN {
			printf "| %d | %d | %.2f s | %.2f s | %.1f ms | %.0f MB |", n, files, wall / 1000, cpu / 1000, cpu / n, rss / 1024
		}')
		if [ -n "$BASELINE" ]; then
			row=$row$(awk -v wall="$(tv c2_median_ms)" -v cpu="$(tv c2_median_cpu_ms)" -v rss="$(tv c2_max_rss_kb)" \
				'BEGIN { printf " %.2f s | %.2f s | %.0f MB |", wall / 1000, cpu / 1000, rss / 1024 }')
			# The same byte for byte but for the version of the binary.
			if cmp -s <(grep -v '^    "version": "' "$tmp/sweep/new.json") <(grep -v '^    "version": "' "$tmp/sweep/baseline.json"); then
				row="$row same |"
			else
				row="$row DIFFERENT |"
				rc=1
			fi
		fi
		echo "$row" >&2
		rows+=("$row")
	done
	fd=2
	[ -z "$MARKDOWN" ] || fd=3
	{
		if [ -n "$BASELINE" ]; then
			echo "| groups | API Go files per revision | wall | CPU | CPU per group | peak RSS | baseline wall | baseline CPU | baseline peak RSS | report |"
			echo "|---|---|---|---|---|---|---|---|---|---|"
		else
			echo "| groups | API Go files per revision | wall | CPU | CPU per group | peak RSS |"
			echo "|---|---|---|---|---|---|"
		fi
		printf '%s\n' "${rows[@]}"
		printf '\n`SEED=%s scripts/bench.sh --groups-sweep "%s" --runs %d%s`: median of %d rounds after 1 warm-up, cache warm; peak RSS the largest of the rounds; %s, %s\n' \
			"$SEED" "$SWEEP" "$runs" "${BASELINE:+ --baseline BIN}" "$runs" "$(date -u +%Y-%m-%d)" "$(machine)"
	} >&"$fd"
	exit "$rc"
fi

if [ -n "$OTHER_FILES" ]; then
	runs=$REPO_RUNS
	case " ${args[*]} " in *" --runs "*) ;; *) runs=9 ;; esac
	echo "== generate the repository ($API_GROUPS groups), without and with $OTHER_FILES other files" >&2
	go run ./internal/benchgen/cmd/benchgen -groups "$API_GROUPS" -seed "$SEED" "$tmp/repo" >/dev/null || die "benchgen failed"
	go run ./internal/benchgen/cmd/benchgen -groups "$API_GROUPS" -seed "$SEED" -other-files "$OTHER_FILES" "$tmp/big" >/dev/null ||
		die "benchgen failed"
	mkdir -m 0700 "$tmp/cache"
	export GOFLAGS=-mod=mod GOPROXY=off APICHECK_CACHE_DIR="$tmp/cache"
	small=("$tmp/apicheck" check --repo "$tmp/repo" --base base --head head --format json --fail-on none)
	big=("$tmp/apicheck" check --repo "$tmp/big" --base base --head head --format json --fail-on none)
	echo "== time apicheck on both, interleaved ($runs rounds after 1 warm-up, cache warm)" >&2
	"$tmp/benchtime" -n "$runs" -warmup 1 -ok 0 -diff -- "${big[@]}" ::: "${small[@]}" >"$tmp/times.txt" ||
		die "a timed run failed"
	tv() { sed -n "s/^$1=//p" "$tmp/times.txt"; }
	awk -v n="$OTHER_FILES" -v groups="$API_GROUPS" -v runs="$runs" \
		-v big="$(tv c1_median_ms)" -v big_cpu="$(tv c1_median_cpu_ms)" -v small="$(tv c2_median_ms)" -v small_cpu="$(tv c2_median_cpu_ms)" \
		-v diff="$(tv diff_median_ms)" -v diff_cpu="$(tv diff_median_cpu_ms)" '
	BEGIN {
		printf "\napicheck on %d API groups with and without %d files outside the API packages (median of %d interleaved runs, cache warm)\n\n", groups, n, runs
		printf "  %-22s %s\n", "without", sprintf("%.3f s; CPU %.3f s", small / 1000, small_cpu / 1000)
		printf "  %-22s %s\n", "with", sprintf("%.3f s; CPU %.3f s", big / 1000, big_cpu / 1000)
		printf "  %-22s %s\n", "added (round by round)", sprintf("%.1f ms wall, %.1f ms CPU (target: at most 20 ms wall)", diff, diff_cpu)
		verdict = diff <= 20 ? "PASS" : "FAIL"
		printf "\n%s\n", verdict
		exit verdict == "PASS" ? 0 : 1
	}'
	exit $?
fi

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
APICHECK_BENCH_REPO="$tmp/repo" go test -run '^$' -bench '^(BenchmarkReadAndParse|BenchmarkCheck)$' \
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

rc=0
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
	}' || rc=$?
if [ -n "$MARKDOWN" ]; then
	markdown_table "$(command_line)" \
		"$(awk -v m="$(cliv median_ms)" -v b="$(cliv best_ms)" 'BEGIN { printf "%.3f s (best %.3f s)", m / 1000, b / 1000 }')" \
		"$(awk -v ns="$base_ns" 'BEGIN { printf "%.3f s (in-process, best)", ns / 1e9 }')" \
		"$(awk -v c="$(cliv best_ms)" -v ns="$base_ns" -v in_ns="$check_ns" \
			'BEGIN { printf "%.2fx binary, %.2fx in-process (best)", c / 1000 / (ns / 1e9), in_ns / ns }')" \
		"$(awk -v k="$rss_kb" 'BEGIN { printf "%.0f MB", k / 1024 }')"
fi
exit "$rc"
