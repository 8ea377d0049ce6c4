package check_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/check"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/testutil/gitfixture"
)

// supportedHistory is testdata/supported_dropped.txtar with head's
// supported versions file replaced by versions (nil: unchanged from base),
// written in step (head, or gitfixture.WorktreeStep).
func supportedHistory(t *testing.T, step string, versions []string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/supported_dropped.txtar")
	if err != nil {
		t.Fatal(err)
	}
	const file = "-- head/supported-kubernetes-versions.yaml --\n"
	i := bytes.Index(data, []byte(file))
	if i < 0 {
		t.Fatal("the fixture has no supported versions file at head")
	}
	data = data[:i]
	if versions != nil {
		var b strings.Builder
		b.WriteString(strings.Replace(file, "head/", step+"/", 1) + "versions:\n")
		for _, v := range versions {
			b.WriteString("- version: \"" + v + "\"\n")
		}
		data = append(data, b.String()...)
	}
	return data
}

// droppedNotes are the notes about the supported Kubernetes versions.
func droppedNotes(notes []string) []string {
	return slices.DeleteFunc(slices.Clone(notes), func(n string) bool { return !strings.HasPrefix(n, "dropping Kubernetes ") })
}

// TestSupportedVersionDropped: a change that drops Kubernetes versions
// from the supported versions names, per dropped version, the deprecated
// Shoot fields it makes removable; fields that stay forbidden-for-some
// supported version, that were removable at base already, or whose
// deprecation no release shipped are not named.
func TestSupportedVersionDropped(t *testing.T) {
	head := []string{"1.32", "1.33", "1.34"}
	want := []string{
		"dropping Kubernetes 1.30 from the supported versions makes 1 deprecated field removable: " +
			"Shoot.spec.alpha (forbidden from 1.31); remove it with a tombstone (apicheck deprecations lists the plan)",
		"dropping Kubernetes 1.31 from the supported versions makes 2 deprecated fields removable: " +
			"Shoot.spec.gamma (forbidden from 1.32), Shoot.spec.networking.beta (forbidden from 1.32); " +
			"remove them with a tombstone each (apicheck deprecations lists the plan)",
	}
	t.Run("commits", func(t *testing.T) {
		whole, _ := judge(t, supportedHistory(t, "head", head))
		if diff := cmp.Diff(want, droppedNotes(whole.Report.Notes)); diff != "" {
			t.Errorf("notes about the dropped versions (-want +got):\n%s\nall notes: %q", diff, whole.Report.Notes)
		}
	})
	t.Run("working tree", func(t *testing.T) {
		fx := gitfixture.FromTxtar(t, supportedHistory(t, gitfixture.WorktreeStep, head))
		res, err := check.Run(check.Request{Dir: fx.Dir, Base: fx.Commits["base"], Lifecycle: lifecycle.Options{CacheDir: t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		if diff := cmp.Diff(want, droppedNotes(res.Report.Notes)); diff != "" {
			t.Errorf("notes about the dropped versions (-want +got):\n%s\nall notes: %q", diff, res.Report.Notes)
		}
	})
}

// TestSupportedVersionsKept: no note when the supported versions file is
// the same at base and head, or when head adds a version and drops none.
func TestSupportedVersionsKept(t *testing.T) {
	for name, versions := range map[string][]string{
		"unchanged":     nil,
		"version added": {"1.30", "1.31", "1.32", "1.33", "1.34", "1.35"},
	} {
		t.Run(name, func(t *testing.T) {
			whole, _ := judge(t, supportedHistory(t, "head", versions))
			if got := droppedNotes(whole.Report.Notes); len(got) != 0 {
				t.Errorf("notes about dropped versions: %q", got)
			}
		})
	}
}
