package config

import (
	"slices"
	"testing"
)

func TestUsageExclude(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte("usages:\n  exclude: [default, 'hack/**']\n"), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	want := append(DefaultUsageExclude(), "hack/**")
	if !slices.Equal(cfg.Usages.Exclude, want) {
		t.Errorf("exclude = %v, want %v", cfg.Usages.Exclude, want)
	}
	cfg, err = Parse("c.yaml", []byte("usages:\n  exclude: []\n"), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Usages.Exclude == nil || len(cfg.Usages.Exclude) != 0 {
		t.Errorf("exclude = %#v, want an empty list", cfg.Usages.Exclude)
	}
	if d := Default().Usages.Exclude; !slices.Equal(d, DefaultUsageExclude()) {
		t.Errorf("default exclude = %v", d)
	}
	if _, err := CompileGlobs(DefaultUsageExclude()); err != nil {
		t.Errorf("defaults do not compile: %v", err)
	}
}
