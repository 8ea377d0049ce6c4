package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStageFiles(t *testing.T) {
	d := DefaultStageFiles()
	d.Warnings[0] = "changed.go"
	if DefaultStageFiles().Warnings[0] != "pkg/api/core/shoot/warnings.go" {
		t.Error("DefaultStageFiles shares its slices")
	}

	got := StageFiles{Validation: []string{}, Strategy: []string{"s.go"}}.WithDefaults()
	want := StageFiles{
		Warnings:          []string{"pkg/api/core/shoot/warnings.go"},
		Validation:        []string{}, // empty: none
		Strategy:          []string{"s.go"},
		Maintenance:       []string{"pkg/controllermanager/controller/shoot/maintenance/"},
		Defaults:          nil, // the version package's defaults*.go
		SupportedVersions: "supported-kubernetes-versions.yaml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WithDefaults (-want +got):\n%s", diff)
	}
	if got.Validation == nil || got.Defaults != nil {
		t.Errorf("nil-ness lost: validation %#v, defaults %#v", got.Validation, got.Defaults)
	}
	if diff := cmp.Diff(Default().Shoot, StageFiles{}.WithDefaults()); diff != "" {
		t.Errorf("Default().Shoot differs from the defaults (-Default +WithDefaults):\n%s", diff)
	}

	// "[]" in the file is an empty, non-nil list.
	cfg, err := Parse("c.yaml", []byte("shoot:\n  maintenance: []\n"), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Shoot.Maintenance == nil || len(cfg.Shoot.Maintenance) != 0 {
		t.Errorf("maintenance = %#v", cfg.Shoot.Maintenance)
	}
}
