#!/usr/bin/env bash
# Runs the steps of action.yml the way a GitHub runner runs them, on this
# machine and without network: the example repository
# (examples/shoot-api.txtar) is the pull request's checkout, the action's
# own install step builds apicheck with `go build` from this checkout, and
# stand-ins replace actions/setup-go (the go on PATH), actions/cache
# (links to this machine's Go caches) and upload-sarif (see
# scripts/actionrun). Releases are directories on this machine
# (APICHECK_RELEASE_BASE_URL), made by scripts/release from a local build.
# Each scenario checks the annotations, the job summary, the outputs, the
# exit-code mapping, what happens to the SARIF upload with a read-only
# token, from a fork and for Dependabot, which binary runs (a verified
# release, one whose checksum does not match, the build from source when
# the ref has no release), which revision's configuration is in effect
# on which event, which base a push, a push that creates a branch and a
# merge queue compare with, and the pull request comment (posted, updated,
# none from a fork) through a stand-in for gh (APICHECK_GH).
#
# Usage: scripts/action-test.sh   (or: make action-test)
set -euo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# apicheck's caches and git's configuration stay in the temporary directory.
export XDG_CACHE_HOME="$tmp/cache" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
# Releases come from here, never from GitHub.
export APICHECK_RELEASE_BASE_URL="$tmp/releases"

go run ./examples/mkrepo examples/shoot-api.txtar "$tmp/repo" >/dev/null
base="$(git -C "$tmp/repo" rev-parse base)"
head="$(git -C "$tmp/repo" rev-parse head)"
git -C "$tmp/repo" checkout -q --detach "$head"
go build -o "$tmp/actionrun" ./scripts/actionrun

# Release v9.8.7 of this machine's platform; v9.8.8 the same with an
# archive that does not match its checksum file. v9.9.9 has no release.
go build -o "$tmp/release" ./scripts/release
go build -ldflags "-X github.com/apicheck/apicheck/internal/cli.Version=v9.8.7" -o "$tmp/release-bin/apicheck" ./cmd/apicheck
for v in v9.8.7 v9.8.8; do
  "$tmp/release" -version "$v" -dist "$tmp/releases/$v" -binary "$tmp/release-bin/apicheck" >/dev/null 2>"$tmp/release.log" ||
    { cat "$tmp/release.log"; exit 1; }
done
for f in "$tmp"/releases/v9.8.8/apicheck_v9.8.8_*[.]*; do
  case "$f" in *_checksums.txt) ;; *) printf 'x' >>"$f" ;; esac
done

"$tmp/actionrun" -lint -action action.yml

failures=0
scenario() {
  name="$1"
  shift
  echo "--- $name"
  if ! "$tmp/actionrun" -action action.yml -workspace "$tmp/repo" -runner-temp "$tmp/runner-temp" \
    -base-sha "$base" -head-sha "$head" -summary "$tmp/summary" "$@" >"$tmp/out" 2>"$tmp/log"; then
    echo "FAIL: $name: actionrun failed"
    cat "$tmp/log"
    failures=$((failures + 1))
  fi
  rm -rf "$tmp/runner-temp"
}
# expect LINE...: every line is in the scenario's output.
expect() {
  for line in "$@"; do
    if ! grep -Fxq -- "$line" "$tmp/out"; then
      echo "FAIL: $name: missing line: $line"
      echo "output:"
      sed 's/^/  /' "$tmp/out"
      echo "job log:"
      sed 's/^/  /' "$tmp/log"
      failures=$((failures + 1))
      return
    fi
  done
}
# expect_log REGEX...: a line of the job log matches each.
expect_log() {
  for re in "$@"; do
    if ! grep -Eq -- "$re" "$tmp/log"; then
      echo "FAIL: $name: no line of the job log matches: $re"
      sed 's/^/  /' "$tmp/log"
      failures=$((failures + 1))
      return
    fi
  done
}
# expect_match REGEX: a line of the output matches.
expect_match() {
  if ! grep -Eq -- "$1" "$tmp/out"; then
    echo "FAIL: $name: no line matches: $1"
    sed 's/^/  /' "$tmp/out"
    failures=$((failures + 1))
  fi
}

# Annotations: one per field with findings (five fields have errors) and
# the last step's error.
scenario "pull request with findings, SARIF uploaded" -input upload-sarif=true
expect job=failure output.exit-code=1 step.cache=success/success "step.Save the build cache=skipped/skipped" \
  step.install=success/success step.check=success/success \
  step.sarif=success/success step.upload=success/success "step.Fail on findings=failure/failure" \
  "summary.heading=### apicheck: 9 errors, 1 warning, 0 infos" uploads=1 annotations.error=6 \
  "error=apicheck found API changes at or above fail-on (see the annotations and the job summary)"
expect_match "^output\.sarif=$tmp/runner-temp/apicheck\.[A-Za-z0-9]+/apicheck\.sarif$"
expect_match "^output\.markdown=$tmp/runner-temp/apicheck\.[A-Za-z0-9]+/apicheck\.md$"
grep -q "^apicheck local$" "$tmp/log" || { echo "FAIL: $name: the built apicheck does not report the action's ref as its version"; failures=$((failures + 1)); }
expect_log '^apicheck: the action.s ref "local" is not a release tag \(vX\.Y\.Z\): building apicheck from the action.s source$' \
  '^apicheck: --trusted-config base \(trusted-config: auto, event: pull_request\)$'

scenario "release tag: the release's binary, verified" -action-ref v9.8.7
expect job=failure output.exit-code=1 step.release=success/success "step.Set up Go=skipped/skipped" \
  step.cache-key=skipped/skipped step.cache=skipped/skipped step.install=skipped/skipped \
  "step.Save the build cache=skipped/skipped" step.check=success/success
expect_log '^apicheck: apicheck_v9\.8\.7_[a-z0-9]+_[a-z0-9]+\.(tar\.gz|zip) of release v9\.8\.7 matches its SHA-256 in apicheck_v9\.8\.7_checksums\.txt \([0-9a-f]{64}\)$' \
  '^apicheck v9\.8\.7$' '^apicheck: using the binary of release v9\.8\.7 '

scenario "version input names a release: that release's binary" -input version=v9.8.7
expect output.exit-code=1 step.release=success/success step.install=skipped/skipped
expect_log '^apicheck v9\.8\.7$'

scenario "release whose archive does not match its checksum: refused" -action-ref v9.8.8
expect job=failure output.exit-code= step.release=failure/failure step.install=skipped/skipped step.check=skipped/skipped \
  "step.Fail on findings=skipped/skipped" uploads=0
expect_match '^error=apicheck: apicheck_v9\.8\.8_[a-z0-9_]+\.(tar\.gz|zip) of release v9\.8\.8 does not match its checksum \(SHA-256 [0-9a-f]{64}, apicheck_v9\.8\.8_checksums\.txt says [0-9a-f]{64}\): refusing to run it$'

scenario "release tag without a release: built from source" -action-ref v9.9.9
expect job=failure output.exit-code=1 step.release=success/success step.install=success/success step.check=success/success
expect_log '^apicheck: no release v9\.9\.9 \(.*/v9\.9\.9/apicheck_v9\.9\.9_checksums\.txt does not exist\): building apicheck from the action.s source$' \
  '^apicheck v9\.9\.9$'

scenario "push: head's configuration" -event push -input "base=$base"
expect job=failure output.exit-code=1
expect_log '^apicheck: --trusted-config head \(trusted-config: auto, event: push\)$'

scenario "merge queue: base's configuration" -event merge_group -input "base=$base"
expect job=failure output.exit-code=1
expect_log '^apicheck: --trusted-config base \(trusted-config: auto, event: merge_group\)$'

scenario "push: compared with the commit before the push" -event push -before "$base"
expect job=failure output.exit-code=1
compared="Compared \`${base:0:12}\` with \`WORKTREE ("
grep -Fq "$compared" "$tmp/summary" ||
  { echo "FAIL: $name: the report does not compare with the commit before the push"; failures=$((failures + 1)); }

git -C "$tmp/repo" update-ref refs/remotes/origin/main "$base"
scenario "push creating a branch: compared with the merge-base of HEAD and the default branch" -event push -before 0000000000000000000000000000000000000000
expect job=failure output.exit-code=1
expect_log "^apicheck: the push created the branch \(no commit before it\): comparing with the merge-base of HEAD and origin/main, $base\$"
git -C "$tmp/repo" update-ref -d refs/remotes/origin/main

scenario "merge queue: compared with the queue's base" -event merge_group
expect job=failure output.exit-code=1
grep -Fq "$compared" "$tmp/summary" ||
  { echo "FAIL: $name: the report does not compare with the merge queue's base"; failures=$((failures + 1)); }

scenario "push of nothing new: the report says base and head are one commit" -event push -before "$head"
expect job=success output.exit-code=0 \
  "summary.heading=### apicheck: comparing ${head:0:12} with the working tree at that commit: only its uncommitted changes are checked" \
  "notice=comparing ${head:0:12} with the working tree at that commit: only its uncommitted changes are checked"

# The pull request comment, through a stand-in for gh that answers the
# comment listing with $GH_EXISTING and keeps what it is sent.
cat >"$tmp/gh" <<'GH'
#!/bin/sh
printf '%s\n' "$*" >> "$GH_DIR/log"
body=""
for a in "$@"; do case "$a" in body=@*) body="${a#body=@}" ;; esac; done
case "$*" in
  "api user "*) exit 1 ;;
  "api --paginate "*) if [ -n "${GH_EXISTING:-}" ]; then echo "$GH_EXISTING"; fi ;;
  "api --method PATCH "*) cp "$body" "$GH_DIR/patched" ;;
  "api --method POST "*) cp "$body" "$GH_DIR/posted"; echo "https://github.com/example/api/pull/7#issuecomment-1" ;;
  *) exit 1 ;;
esac
GH
chmod +x "$tmp/gh"
export APICHECK_GH="$tmp/gh" GH_DIR="$tmp/gh-dir"
for existing in "" 4711; do
  rm -rf "$GH_DIR" && mkdir "$GH_DIR"
  if [ -z "$existing" ]; then what="posted"; else what="patched"; fi
  GH_EXISTING="$existing" scenario "comment: true, $what" -input comment=true
  expect job=failure output.exit-code=1 step.comment=success/success
  if ! [ -f "$GH_DIR/$what" ] || ! head -n 1 "$GH_DIR/$what" | grep -Fxq '<!-- apicheck -->'; then
    echo "FAIL: $name: the report was not $what"
    failures=$((failures + 1))
  fi
done
rm -rf "$GH_DIR" && mkdir "$GH_DIR"
scenario "comment: true from a fork: no comment, the summary says why" -input comment=true -head-repo someone/fork
expect step.comment=success/success
expect_match '^notice=No pull request comment: a pull request from a fork gets a read-only token, which cannot write comments'
grep -Fq '**apicheck did not comment on the pull request:** a pull request from a fork gets a read-only token' "$tmp/summary" ||
  { echo "FAIL: $name: the job summary does not say why there is no comment"; failures=$((failures + 1)); }
[ ! -s "$GH_DIR/log" ] || { echo "FAIL: $name: gh ran for a fork"; failures=$((failures + 1)); }
unset APICHECK_GH GH_DIR

scenario "pull request with trusted-config head: head's configuration" -input trusted-config=head
expect job=failure output.exit-code=1
expect_log '^apicheck: --trusted-config head \(trusted-config: head, event: pull_request\)$'

scenario "pull request, --config in args and trusted-config auto: exit 2 with the way out" -input "args=--config hack/apicheck.yaml"
expect job=failure output.exit-code=2 output.sarif= output.markdown= summary.bytes=0 \
  "error=apicheck: on pull_request events the action reads .apicheck.yaml from the base revision (trusted-config: auto), and --config in args cannot be combined with that: set trusted-config: head to use the --config file, or keep the configuration in .apicheck.yaml"

scenario "fork: no upload, a notice; fail-on none passes" -input upload-sarif=true -input fail-on=none -head-repo someone/fork
expect job=success output.exit-code=0 step.upload=skipped/skipped uploads=0 \
  "notice=SARIF upload skipped: a pull request from a fork gets a read-only token, which cannot upload to code scanning. The annotations and the job summary have the findings."

scenario "Dependabot: no upload, a notice" -input upload-sarif=true -input fail-on=none -actor 'dependabot[bot]'
expect job=success step.upload=skipped/skipped uploads=0
expect_match "^notice=SARIF upload skipped: Dependabot's pull requests get a read-only token"

scenario "read-only token: the failed upload is a notice, not a failed job" -input upload-sarif=true -input fail-on=none -token read-only
expect job=success step.upload=failure/success uploads=1
expect_match "^notice=SARIF upload to code scanning failed; the job does not fail for it\."

scenario "read-only token and findings: only the findings fail the job" -input upload-sarif=true -token read-only
expect job=failure step.upload=failure/success "step.Fail on findings=failure/failure" output.exit-code=1

scenario "clean change" -input "base=$head"
expect job=success output.exit-code=0 annotations.error=0 step.sarif=skipped/skipped "step.Fail on findings=skipped/skipped" \
  "summary.heading=### apicheck: comparing ${head:0:12} with the working tree at that commit: only its uncommitted changes are checked"

scenario "usage error: exit 2, nothing published" -input "args=--config does-not-exist.yaml" -input trusted-config=head -input upload-sarif=true
expect job=failure output.exit-code=2 output.sarif= output.markdown= summary.bytes=0 uploads=0 \
  "step.Fail on findings=failure/failure" "error=apicheck: usage or configuration error (see the Run apicheck step)"

# Issue #15 (critical): the pull request commits apicheck.md and
# apicheck.sarif as symlinks to .git/config, where actions/checkout keeps
# the job token, and breaks the build so that apicheck exits 3. Nothing
# may be published, uploaded or printed from the checkout.
token="AUTHORIZATION: basic c2VjcmV0LXRva2Vu"
git -C "$tmp/repo" config http.https://github.com/.extraheader "$token"
ln -s .git/config "$tmp/repo/apicheck.md"
ln -s .git/config "$tmp/repo/apicheck.sarif"
printf 'package v1beta1\n\ntype Broken struct {\n' >"$tmp/repo/pkg/apis/core/v1beta1/broken.go"
scenario "hostile checkout: symlinked reports and exit 3, nothing published" -input upload-sarif=true
expect job=failure output.exit-code=3 output.sarif= output.markdown= summary.bytes=0 uploads=0 \
  "step.Fail on findings=failure/failure" "error=apicheck failed with exit code 3 (see the Run apicheck step)"
if grep -Fq c2VjcmV0LXRva2Vu "$tmp/out" "$tmp/log"; then
  echo "FAIL: $name: the token was published"
  failures=$((failures + 1))
fi
rm -f "$tmp/repo/apicheck.md" "$tmp/repo/apicheck.sarif" "$tmp/repo/pkg/apis/core/v1beta1/broken.go"
git -C "$tmp/repo" config --unset http.https://github.com/.extraheader

if [ "$failures" -gt 0 ]; then
  echo "action-test: $failures failure(s)"
  exit 1
fi
echo "action-test: all scenarios passed"
