package config

import (
	"strings"
	"testing"
	"unicode"
)

// Quoted YAML keys may hold any character. Errors quote them (and the
// key paths holding them), say what is wrong in the file's terms, never
// in apicheck's Go types, and no line of them reads as a GitHub Actions
// workflow command.
func TestErrorsQuoteKeys(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"\"a\\n::error file=README.md::x\": 1\n",
			`.apicheck.yaml:1:1: "a\n::error file=README.md::x": unknown key "a\n::error file=README.md::x"; known keys: profile, `},
		{"ignore:\n  - rule: PROTO_TAG_MISSING\n    type: T\n    reason: r\n    \"pa\\x1bth\": y\n",
			`.apicheck.yaml:5:5: "ignore[0].pa\x1bth": unknown key "pa\x1bth"; known keys: rule, `},
		{"\"a\\nb\": 1\n\"a\\nb\": 2\n",
			`.apicheck.yaml:2:1: "a\nb": duplicate key "a\nb" (first at line 1)`},
		{"rules: {\"\\u2028\": 1}\n",
			`.apicheck.yaml:1:9: "rules.\u2028": unknown rule ID "\u2028"`},
		{"rules:\n  \"X\\r::stop-commands::t\":\n    severity: error\n",
			`.apicheck.yaml:2:3: "rules.X\r::stop-commands::t": unknown rule ID "X\r::stop-commands::t"`},
		{"groups:\n  - dir: \"a\\tb\"\n  - dir: \"a\\tb\"\n",
			`.apicheck.yaml:3:5: groups[1].dir: group "a\tb" is listed twice (first at line 2)`},
		{"groups:\n  - {dir: a, \"x ##[error]y\": 1}\n",
			`.apicheck.yaml:2:14: "groups[0].x ##\x5berror]y": unknown key "x ##[error]y"`},
	} {
		_, err := Parse(".apicheck.yaml", []byte(c.doc), testVocab)
		if err == nil {
			t.Errorf("%q: no error", c.doc)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%q:\n got %s\nwant %s", c.doc, msg, c.want)
		}
		if strings.Contains(msg, "rawConfig") || strings.Contains(msg, "config.") {
			t.Errorf("%q: the error names Go types: %s", c.doc, msg)
		}
		for _, l := range strings.Split(msg, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "::") || strings.ContainsFunc(l, unicode.IsControl) {
				t.Errorf("%q: error line %q", c.doc, l)
			}
		}
	}
}

func TestDecoderWords(t *testing.T) {
	for in, want := range map[string]string{
		"field a\nb not found in type config.rawConfig":                          `unknown key "a\nb"`,
		"field x already set in type config.rawGroup":                            `key "x" is set twice`,
		`mapping key "a\nb" already defined at line 3`:                           `duplicate key "a\nb" (first at line 3)`,
		"cannot unmarshal !!str `x\x1b` into []*config.rawGroup":                 "cannot use !!str `x\\x1b` here",
		"something about config.strict[config.rawRule] in type config.rawConfig": "something about config.strict[config.rawRule]",
		"did not find expected key":                                              "did not find expected key",
	} {
		if got := decoderWords(in); got != want {
			t.Errorf("decoderWords(%q) = %q, want %q", in, got, want)
		}
	}
}
