#!/usr/bin/env bash
# Run apicheck over the real history of Gardener and k8s.io/api and count
# what it reports: the survey a change to a rule or to the scan is judged
# by (read every finding at warning or above; a false one is a defect).
#
#   scripts/survey.sh [-b BINARY] [-j JOBS] OUTDIR GARDENER_CLONE [K8S_API_CLONE]
#
# The clones are any clones of github.com/gardener/gardener and
# github.com/kubernetes/api with their tags (bare, or without a checkout:
# apicheck reads git objects only; GARDENER_CLONE "-" skips Gardener's
# runs, to survey other projects only). Runs:
#   gardener  release pairs vX.Y.0 -> vX.Y+1.0 of the newest 30 minors, and
#             the first-parent commits of the last 18 months that touch a
#             directory named apis (each against its first parent);
#   k8sapi    release pairs v0.Y.0 -> v0.Y+1.0 of the newest 16 minors, and
#             the newest 50 first-parent commits that touch a Go file;
#   -D        deep: Gardener's API commits since 2021 instead of 18 months,
#             k8s.io/api's newest 450 commits instead of 50, and each other
#             project's newest 240 API commits instead of 40 (older history,
#             whose shapes recent commits lack; a few thousand more runs);
#   -W        warm too: each run again with the cache the first left
#             (the scan memo and the history caches answering), whose
#             report must be the first's byte for byte (a differing one
#             is kept as PROJECT/KIND-NAME.txt.warm and listed in the
#             summary);
#   -o DIR    (repeatable) any other project, named after DIR's last
#             element but "repo" and ".git" (a fetched snapshot's
#             .../owner+name/repo is "owner+name"): release pairs
#             vX.Y.0 -> next vX.Y.0 of its newest 10 minors, and its newest
#             40 first-parent commits that touch a directory named api or
#             apis. Gardener extensions, kubebuilder operators and
#             aggregated APIs keep the rules honest beyond the two above.
# Each run is `apicheck check --format text --fail-on none` with a cache
# directory of its own under OUTDIR (never the user's). OUTDIR gets one
# report per run (PROJECT/KIND-NAME.txt), runs.tsv (project, kind, name,
# base, head, exit code, seconds, findings at warning or above) and
# summary.txt: exit codes, times, and per project the findings at warning
# or above by rule and severity. Needs bash, git, awk and sort.
set -euo pipefail

die() { echo "survey.sh: $*" >&2; exit 2; }

BIN=""
JOBS=2
OTHERS=()
DEEP=""
WARM=""
usage="usage: survey.sh [-b BINARY] [-j JOBS] [-D] [-W] [-o OTHER_CLONE]... OUTDIR GARDENER_CLONE [K8S_API_CLONE]"
while getopts "b:j:DWo:" o; do
	case "$o" in
	b) BIN=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	D) DEEP=1 ;;
	W) WARM=1 ;;
	o) OTHERS+=("$OPTARG") ;;
	*) die "$usage" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] && [ $# -le 3 ] || die "$usage"
OUT=$1
GARDENER=$2
K8SAPI=${3:-}
case "$JOBS" in '' | *[!0-9]* | 0) die "-j must be a positive number" ;; esac
for r in $([ "$GARDENER" = - ] || echo "$GARDENER") $K8SAPI "${OTHERS[@]}"; do
	git -C "$r" rev-parse --git-dir >/dev/null 2>&1 || die "$r is not a git repository"
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -z "$BIN" ]; then
	BIN=$OUT/apicheck
	(cd "$(dirname "$0")/.." && go build -o "$BIN" ./cmd/apicheck) || die "go build failed"
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ -x "$BIN" ] || die "$BIN is not executable"

# pairs REPO PREFIX N: "vX.Y.0 vX.Y+1.0" for the newest N+1 minors.
pairs() {
	git -C "$1" tag -l "$2*" | { grep -E "^${2//./\\.}[0-9]+\.0$" || true; } | sort -t. -k2,2n | tail -n $(($3 + 1)) |
		awk 'NR > 1 { print prev, $0 } { prev = $0 }'
}

jobs_file=$OUT/jobs.tsv
: >"$jobs_file"
add() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" >>"$jobs_file"; }

k8s_commits=50 other_commits=40
if [ -n "$DEEP" ]; then
	k8s_commits=450 other_commits=240
fi
if [ "$GARDENER" != - ]; then
	pairs "$GARDENER" v1. 30 | while read -r a b; do add gardener release "$a..$b" "$GARDENER" "$a" "$b"; done
	since=$(git -C "$GARDENER" log -1 --format=%ct HEAD)
	since=@$((since - 548 * 86400))
	if [ -n "$DEEP" ]; then
		since=2021-01-01
	fi
	git -C "$GARDENER" log --first-parent --since="$since" --format=%H HEAD -- ':(glob)**/apis/**' |
		while read -r c; do add gardener pr "${c:0:12}" "$GARDENER" "$c~1" "$c"; done
fi
if [ -n "$K8SAPI" ]; then
	pairs "$K8SAPI" v0. 16 | while read -r a b; do add k8sapi release "$a..$b" "$K8SAPI" "$a" "$b"; done
	git -C "$K8SAPI" log --first-parent -n "$k8s_commits" --format=%H HEAD -- '*.go' |
		while read -r c; do add k8sapi pr "${c:0:12}" "$K8SAPI" "$c~1" "$c"; done
fi
for r in "${OTHERS[@]}"; do
	name=$(cd "$r" && pwd)
	name=${name%/.git}
	name=${name%/repo}
	name=${name##*/}
	case "$name" in gardener | k8sapi) die "-o $r: the name $name is taken" ;; esac
	{ git -C "$r" tag -l 'v*' | grep -E '^v[0-9]+\.[0-9]+\.0$' || true; } | sort -V | tail -n 11 |
		awk 'NR > 1 { print prev, $0 } { prev = $0 }' |
		while read -r a b; do add "$name" release "$a..$b" "$r" "$a" "$b"; done
	git -C "$r" log --first-parent -n "$other_commits" --format=%H HEAD -- ':(glob)**/api/**' ':(glob)**/apis/**' |
		while read -r c; do add "$name" pr "${c:0:12}" "$r" "$c~1" "$c"; done
done
total=$(wc -l <"$jobs_file")
echo "survey: $total runs, $JOBS at a time, reports in $OUT" >&2

run_one() {
	local project=$1 kind=$2 name=$3 repo=$4 base=$5 head=$6
	local dir=$OUT/$project report=$OUT/$project/$kind-$name.txt
	mkdir -p "$dir"
	local cache
	cache=$(mktemp -d "$OUT/.cache.XXXXXX")
	local start end rc=0
	start=$(date +%s%N)
	APICHECK_CACHE_DIR=$cache "$BIN" check --repo "$repo" --base "$base" --head "$head" \
		--format text --fail-on none >"$report" 2>&1 || rc=$?
	end=$(date +%s%N)
	if [ -n "$WARM" ]; then
		APICHECK_CACHE_DIR=$cache "$BIN" check --repo "$repo" --base "$base" --head "$head" \
			--format text --fail-on none >"$report.warm" 2>&1 || true
		if cmp -s "$report" "$report.warm"; then
			rm -f "$report.warm"
		fi
	fi
	rm -rf "$cache"
	local n
	n=$(grep -cE '^  [^ ].*: (warning|error) [A-Z0-9_]+ ' "$report" || true)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$project" "$kind" "$name" "$base" "$head" "$rc" \
		"$(awk -v ns=$((end - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')" "$n"
}
export -f run_one
export OUT BIN WARM

tr '\t' '\n' <"$jobs_file" | xargs -d '\n' -n 6 -P "$JOBS" bash -c 'run_one "$@"' _ |
	sort >"$OUT/runs.tsv"

{
	echo "runs: $(wc -l <"$OUT/runs.tsv") (of $total)"
	echo "exit codes:"
	cut -f6 "$OUT/runs.tsv" | sort | uniq -c | sed 's/^/  /'
	echo "seconds (median, p90, max):"
	cut -f7 "$OUT/runs.tsv" | sort -n |
		awk '{ t[NR] = $1 } END { if (NR) printf "  %s %s %s\n", t[int((NR + 1) / 2)], t[int(NR * 0.9 + 0.5)], t[NR] }'
	for project in $(cut -f1 "$OUT/runs.tsv" | sort -u); do
		[ -d "$OUT/$project" ] || continue
		echo "$project: findings at warning or above by rule and severity"
		grep -hoE '^  [^ ].*: (warning|error) [A-Z0-9_]+ ' "$OUT/$project"/*.txt |
			awk '{ print $(NF), $(NF - 1) }' | sort | uniq -c | sort -rn | sed 's/^/  /' || true
	done
	if [ -n "$WARM" ]; then
		differ=$(cd "$OUT" && find . -name '*.txt.warm' | sort)
		echo "warm reruns differing from the first run: $(printf '%s' "$differ" | grep -c . || true)"
		[ -z "$differ" ] || echo "$differ" | sed 's/^/  /'
	fi
	bad=$(awk -F'\t' '$6 != 0 && $6 != 1' "$OUT/runs.tsv")
	if [ -n "$bad" ]; then
		echo "runs that failed (exit code 2 or 3):"
		echo "$bad" | sed 's/^/  /'
	fi
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
