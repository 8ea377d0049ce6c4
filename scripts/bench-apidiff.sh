#!/usr/bin/env bash
# Time apicheck against go-apidiff's pipeline on a release pair of a real
# repository, side by side.
#
#   scripts/bench-apidiff.sh --repo DIR --base A --head B [--module SUBDIR] [--runs N]
#
# go-apidiff (github.com/joelanford/go-apidiff, what Gardener's
# hack/check-apidiff.sh and many operator projects run) is a thin wrapper:
# it checks out the base revision, loads the packages of the module with
# go/packages (types, from the go command's export data), checks out the
# head revision, loads them again and compares the two with
# golang.org/x/exp/apidiff, reporting compatible and incompatible changes.
# This script runs the same library in the same steps through its own
# command, golang.org/x/exp/cmd/apidiff, in module mode:
#
#   (in the base tree)  apidiff -m -w old.export MODULE_PATH
#   (in the head tree)  apidiff -m old.export MODULE_PATH
#
# Steps:
#   1. build apicheck from this checkout and install apidiff at APIDIFF_VERSION
#      into the temporary directory (GOBIN there, never the user's);
#   2. export both revisions with `git archive REV | tar -x` into the
#      temporary directory: the repository's index and work tree are never
#      touched, and DIR may be the git directory of a bare repository. The
#      whole tree is exported, so a go.work at its root applies, as it does
#      to go-apidiff run in a checkout;
#   3. read the module path from SUBDIR/go.mod at the head revision
#      (--module, default: the root module);
#   4. run the apidiff pipeline once untimed: the go command downloads what
#      go/packages needs into the user's module cache (GOPROXY as set) and
#      fills the user's build cache (the dependencies, the module itself); its
#      report is kept to count the changes;
#   5. time the apidiff pipeline and
#      `apicheck check --repo DIR --base A --head B --format json --fail-on none`
#      interleaved (A B A B ...) through scripts/benchtime, --runs rounds
#      (default 7) after one more warm-up round, with GOPROXY=off (nothing
#      is downloaded inside the timing; a run that would need to fails);
#   6. print the median wall and CPU time (user + system of the command and
#      of every process it waited for: go list, the compiler, git) of both,
#      and their ratio, apidiff's pipeline over apicheck.
#
# The Go build cache is warm in the timed runs (steps 4 and 5 fill it) and
# so is apicheck's history cache (in the temporary directory, filled by the
# warm-up). The exports are made once, untimed: go-apidiff's two checkouts
# (and the one back to where the work tree was) are not in the figures.
#
# apidiff is pinned (APIDIFF_VERSION, a pseudo-version: golang.org/x/exp
# has no tagged releases) so that the figures can be reproduced: its
# flags and the format of the -m -w export file have changed from one
# commit to the next, and @latest would time a different program each
# month. Override it with APIDIFF_VERSION=... to time another.
#
# apicheck judges every API package of the repository at both revisions;
# apidiff only the packages of the one module given. For Gardener, time
# --module pkg/apis (its API types: its own go.mod); the root module
# (--module omitted) takes several minutes a run warm.
#
# Needs Go, git and tar, and the module proxy (or a module cache that
# already holds the module's dependencies) for step 4. KEEP=1 keeps the
# temporary directory. Exit status 0 = measured, 2 = the benchmark failed.
set -euo pipefail

# The pinned apidiff: golang.org/x/exp at this commit.
APIDIFF_VERSION=${APIDIFF_VERSION:-v0.0.0-20261113113407-e3970619a1a4}

die() { echo "bench-apidiff.sh: $*" >&2; exit 2; }
usage="usage: bench-apidiff.sh --repo DIR --base A --head B [--module SUBDIR] [--runs N]"

REPO=""
REV_BASE=""
REV_HEAD=""
MODULE=""
RUNS=7
while [ $# -gt 0 ]; do
	case "$1" in
	--repo) REPO=${2:?--repo needs a directory}; shift 2 ;;
	--base) REV_BASE=${2:?--base needs a revision}; shift 2 ;;
	--head) REV_HEAD=${2:?--head needs a revision}; shift 2 ;;
	--module) MODULE=${2:?--module needs a directory of the tree}; shift 2 ;;
	--runs) RUNS=${2:?--runs needs a number}; shift 2 ;;
	-h | --help) echo "$usage"; exit 0 ;;
	*) die "unknown argument $1 ($usage)" ;;
	esac
done
[ -n "$REPO" ] && [ -n "$REV_BASE" ] && [ -n "$REV_HEAD" ] || die "$usage"
[ -d "$REPO" ] || die "--repo $REPO is not a directory"
REPO=$(cd "$REPO" && pwd)
case "$RUNS" in '' | *[!0-9]* | 0) die "--runs must be a positive number" ;; esac
MODULE=${MODULE%/}
MODULE=${MODULE#./}
[ -n "$MODULE" ] || MODULE=.
case "$MODULE" in /* | .. | ../* | */../* | */..) die "--module must be a directory inside the tree" ;; esac

for tool in go git tar; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
done

cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apicheck-bench-apidiff.XXXXXX")
if [ -n "${KEEP:-}" ]; then
	echo "bench-apidiff.sh: keeping $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

echo "== build apicheck and install golang.org/x/exp/cmd/apidiff@$APIDIFF_VERSION" >&2
go build -o "$tmp/apicheck" ./cmd/apicheck
go build -o "$tmp/benchtime" ./scripts/benchtime
GOBIN="$tmp/bin" go install "golang.org/x/exp/cmd/apidiff@$APIDIFF_VERSION" ||
	die "could not install apidiff $APIDIFF_VERSION"
apidiff="$tmp/bin/apidiff"

echo "== export $REV_BASE and $REV_HEAD (git archive)" >&2
for side in base head; do
	rev=$REV_BASE
	[ "$side" = head ] && rev=$REV_HEAD
	mkdir "$tmp/$side"
	git -C "$REPO" archive --format=tar "$rev" | tar -x -C "$tmp/$side" ||
		die "could not export $rev"
done
[ -f "$tmp/base/$MODULE/go.mod" ] || die "$MODULE/go.mod does not exist at $REV_BASE"
[ -f "$tmp/head/$MODULE/go.mod" ] || die "$MODULE/go.mod does not exist at $REV_HEAD"
modpath=$(sed -n 's/^module[[:space:]]*"\{0,1\}\([^"[:space:]]*\)"\{0,1\}.*/\1/p' "$tmp/head/$MODULE/go.mod" | head -n 1)
[ -n "$modpath" ] || die "no module line in $MODULE/go.mod at $REV_HEAD"
workspace=""
[ -f "$tmp/head/go.work" ] && workspace=" (go.work at the root applies)"

# The pipeline, one command for benchtime: $0 apidiff, $1 base tree,
# $2 head tree, $3 export file, $4 module path, $5 report, $6 its stderr
# (the internal packages apidiff skips).
pipeline=(sh -c 'cd "$1" && "$0" -m -w "$3" "$4" 2>"$6" && cd "$2" && exec "$0" -m "$3" "$4" >"$5" 2>>"$6"'
	"$apidiff" "$tmp/base/$MODULE" "$tmp/head/$MODULE" "$tmp/old.export" "$modpath" "$tmp/apidiff.txt" "$tmp/apidiff.err")
mkdir -m 0700 "$tmp/cache"
export APICHECK_CACHE_DIR="$tmp/cache"
cli=("$tmp/apicheck" check --repo "$REPO" --base "$REV_BASE" --head "$REV_HEAD" --format json --fail-on none)

echo "== apidiff on $modpath$workspace, once untimed (downloads, compiles the dependencies)" >&2
start=$(date +%s)
"${pipeline[@]}" || { cat "$tmp/apidiff.err" >&2; die "the apidiff pipeline failed"; }
echo "   $(($(date +%s) - start)) s" >&2
changes=$(grep -c '^- ' "$tmp/apidiff.txt" || true)
incompatible=$(awk '/^Incompatible changes:/ { on = 1; next } /^Compatible changes:/ || /^[^- ]/ { on = 0 } on && /^- / { n++ } END { print n + 0 }' "$tmp/apidiff.txt")
"${cli[@]}" >"$tmp/report.json" || die "apicheck check failed"
findings=$(grep -c '"rule":' "$tmp/report.json" || true)

echo "== time apidiff's pipeline and apicheck, interleaved ($RUNS rounds after 1 warm-up, GOPROXY=off)" >&2
GOPROXY=off "$tmp/benchtime" -n "$RUNS" -warmup 1 -ok 0 -- "${pipeline[@]}" ::: "${cli[@]}" >"$tmp/times.txt" ||
	{ cat "$tmp/apidiff.err" >&2; die "a timed run failed"; }
tv() { sed -n "s/^$1=//p" "$tmp/times.txt"; }
awk -v repo="$REPO" -v base="$REV_BASE" -v head="$REV_HEAD" -v runs="$RUNS" -v mod="$MODULE" -v modpath="$modpath" \
	-v version="$APIDIFF_VERSION" -v goversion="$(go env GOVERSION)" -v workspace="$workspace" \
	-v changes="$changes" -v incompatible="$incompatible" -v findings="$findings" \
	-v ad="$(tv c1_median_ms)" -v ad_best="$(tv c1_best_ms)" -v ad_cpu="$(tv c1_median_cpu_ms)" -v ad_rss="$(tv c1_max_rss_kb)" \
	-v ac="$(tv c2_median_ms)" -v ac_best="$(tv c2_best_ms)" -v ac_cpu="$(tv c2_median_cpu_ms)" -v ac_rss="$(tv c2_max_rss_kb)" '
BEGIN {
	printf "\n%s: %s -> %s (median of %d interleaved runs, Go build cache warm)\n\n", repo, base, head, runs
	printf "  %-18s %s\n", "apidiff", sprintf("golang.org/x/exp/cmd/apidiff@%s, %s", version, goversion)
	printf "  %-18s %s\n", "module", sprintf("%s (%s)%s: %d changes, %d incompatible", mod, modpath, workspace, changes, incompatible)
	printf "  %-18s %s\n", "apicheck findings", findings
	printf "  %-18s %s\n", "apidiff pipeline", sprintf("%.3f s  (best %.3f s); CPU %.3f s; peak RSS %.0f MB", ad / 1000, ad_best / 1000, ad_cpu / 1000, ad_rss / 1024)
	printf "  %-18s %s\n", "apicheck check", sprintf("%.3f s  (best %.3f s); CPU %.3f s; peak RSS %.0f MB", ac / 1000, ac_best / 1000, ac_cpu / 1000, ac_rss / 1024)
	printf "  %-18s %s\n", "ratio", sprintf("apidiff / apicheck %.1fx wall, %.1fx CPU (medians)", ad / ac, ad_cpu / ac_cpu)
}'
