package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// parseErr parses src and returns its single error, failing the test if
// there is none or several.
func parseErr(t *testing.T, src string) *Error {
	t.Helper()
	cfg, err := Parse("c.yaml", []byte(src), testVocab)
	if err == nil {
		t.Fatalf("no error; got %+v", cfg)
	}
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 1 {
		t.Fatalf("want one Errors entry, got %T: %v", err, err)
	}
	return errs[0]
}

// TestAliasBomb: a billion-laughs document (ten aliases per level, nine
// levels: 10^9 strings when expanded) fails at once, naming the first
// anchor.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		refs := strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(refs, ", "))
	}
	b.WriteString("rules: *a9\n")
	start := time.Now()
	e := parseErr(t, b.String())
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if e.Line != 1 || e.Column != 5 || e.Key != "a0" || !strings.Contains(e.Msg, "anchor &a0: YAML anchors, aliases and merge keys are not allowed") {
		t.Errorf("error = %v", e)
	}

	// An alias without its anchor in the file is a syntax error.
	if e := parseErr(t, "rules: *a9\n"); !strings.Contains(e.Msg, "invalid YAML") {
		t.Errorf("error = %v", e)
	}
}

// TestOversize: a file above MaxSize is rejected before it is parsed (so
// its content does not matter); one of exactly MaxSize bytes is read.
func TestOversize(t *testing.T) {
	big := "rules: {\t" + strings.Repeat("x", MaxSize)
	e := parseErr(t, big)
	want := fmt.Sprintf("the file has %d bytes; a configuration may have at most %d (1 MiB)", len(big), MaxSize)
	if e.File != "c.yaml" || e.Line != 0 || e.Msg != want {
		t.Errorf("error = %v", e)
	}

	line := "# " + strings.Repeat("-", 77) + "\n"
	src := "rules: {}\n" + strings.Repeat(line, (MaxSize-10)/len(line))
	src += strings.Repeat("#", MaxSize-len(src)-1) + "\n"
	if len(src) != MaxSize {
		t.Fatalf("test input has %d bytes", len(src))
	}
	if _, err := Parse("c.yaml", []byte(src), testVocab); err != nil {
		t.Errorf("a file of MaxSize bytes: %v", err)
	}
}

// TestDeepNesting: nesting is bounded by the YAML parser; deep input
// fails quickly instead of exhausting the stack.
func TestDeepNesting(t *testing.T) {
	for _, depth := range []int{5000, 20000} {
		src := "rules: " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n"
		start := time.Now()
		e := parseErr(t, src)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("depth %d took %v", depth, d)
		}
		if e.Line != 1 {
			t.Errorf("depth %d: error = %v", depth, e)
		}
	}
}

// TestVocabulary: profiles and severities match case-insensitively and
// are stored as the vocabulary spells them; a group without a profile
// keeps "" (the repository's profile); a nil list accepts any word
// (lower-cased).
func TestVocabulary(t *testing.T) {
	src := "groups:\n  - dir: a\n  - dir: b\n    profile: ComponentConfig\nrules:\n  PROTO_TAG_MISSING: {severity: WARNING}\n  JSON_NAME_CHANGED: {severity: ' Info '}\n"
	cfg, err := Parse("c.yaml", []byte(src), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Groups[0].Profile != "" || cfg.Groups[1].Profile != "componentconfig" {
		t.Errorf("groups = %+v", cfg.Groups)
	}
	if got := cfg.SeverityOverrides(); !cmp.Equal(got, map[string]string{"PROTO_TAG_MISSING": "warning", "JSON_NAME_CHANGED": "info"}) {
		t.Errorf("severities = %v", got)
	}

	cfg, err = Parse("c.yaml", []byte("groups:\n  - dir: a\n  - dir: b\n    profile: Strict\nrules:\n  ANY: {severity: Fatal}\n"), Vocabulary{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Groups[0].Profile != "" || cfg.Groups[1].Profile != "strict" || cfg.Rules["ANY"].Severity != "fatal" {
		t.Errorf("without vocabulary: %+v %+v", cfg.Groups, cfg.Rules)
	}
}

// TestNullIsUnset: a key without a value keeps the default at every level,
// like a key that is not there.
func TestNullIsUnset(t *testing.T) {
	src := "rules:\n  PROTO_TAG_MISSING: {enabled: ~, severity: }\n  JSON_NAME_CHANGED:\nreleases:\n  tagPattern:\nshoot:\n  warnings:\n  supportedVersions: ~\n"
	cfg, err := Parse("c.yaml", []byte(src), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]RuleSetting{
		"PROTO_TAG_MISSING": {Pos: Pos{File: "c.yaml", Line: 2, Col: 3}},
		"JSON_NAME_CHANGED": {Pos: Pos{File: "c.yaml", Line: 3, Col: 3}},
	}
	if diff := cmp.Diff(want, cfg.Rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	d := Default()
	if cfg.Releases.TagPattern != DefaultTagPattern || !cmp.Equal(cfg.Shoot, d.Shoot) {
		t.Errorf("releases %+v, shoot %+v", cfg.Releases, cfg.Shoot)
	}
	// A required key without a value is missing.
	e := parseErr(t, "ignore:\n  - rule: PROTO_TAG_MISSING\n    type: T\n    reason:\n")
	if e.Key != "ignore[0].reason" || !strings.HasPrefix(e.Msg, "missing reason") {
		t.Errorf("error = %v", e)
	}
}
