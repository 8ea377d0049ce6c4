package shoot

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
)

// Gardener's stage code moved over time (git ls-tree of v1.40.0, v1.60.0,
// v1.90.0, v1.140.0): the Shoot strategy from pkg/registry/core/shoot to
// pkg/apiserver/registry/core/shoot, the validation from
// pkg/apis/core/validation to pkg/api/core/validation (#13536), the
// maintenance from pkg/controllermanager/controller/shoot/
// shoot_maintenance_control.go to .../shoot/maintenance/. locate finds
// each by content in either layout.
func TestLocate(t *testing.T) {
	src := map[string]string{
		"pkg/registry/core/shoot/strategy.go": `package shoot
func (shootStrategy) Canonicalize(obj runtime.Object) { shoot := obj.(*core.Shoot); _ = shoot }`,
		"pkg/registry/core/shoot/helpers.go":                                  "package shoot\nfunc drop(s *core.Shoot) {}\n",
		"pkg/registry/core/shoot/strategy_test.go":                            "package shoot\n",
		"pkg/registry/core/shootstate/strategy.go":                            "package shootstate\nfunc (shootStateStrategy) Canonicalize(obj runtime.Object) { _ = obj.(*core.ShootState) }\n",
		"pkg/registry/core/seed/strategy.go":                                  "package seed\nfunc (Strategy) Canonicalize(obj runtime.Object) { _ = obj.(*core.Seed) }\n",
		"pkg/apis/core/validation/shoot.go":                                   "package validation\nfunc ValidateShoot(shoot *core.Shoot) field.ErrorList { return nil }\n",
		"pkg/apis/core/validation/shootstate.go":                              "package validation\nfunc ValidateShootState(s *core.ShootState) field.ErrorList { return nil }\n",
		"pkg/apis/core/validation/seed.go":                                    "package validation\n",
		"pkg/api/core/shoot/warnings.go":                                      "package shoot\nfunc GetWarnings(_ context.Context, shoot, oldShoot *core.Shoot) []string { return nil }\n",
		"pkg/api/core/seed/warnings.go":                                       "package seed\nfunc GetWarnings(seed *core.Seed) []string { return nil }\n",
		"pkg/controllermanager/controller/shoot/shoot_maintenance_control.go": "package shoot\n",
		"pkg/controllermanager/controller/shoot/shoot_care_control.go":        "package shoot\n",
		"pkg/controllermanager/controller/shoot/maintenance/reconciler.go":    "package maintenance\n",
		"pkg/controllermanager/controller/shoot/maintenance/add.go":           "package maintenance\n",
		"vendor/github.com/x/shoot/validation/shoot.go":                       "package validation\nfunc ValidateShoot() {}\n",
	}
	var files []string
	for f := range src {
		files = append(files, f)
	}
	sort.Strings(files)
	read := func(paths []string) (map[string][]byte, error) {
		out := map[string][]byte{}
		for _, p := range paths {
			s, ok := src[p]
			if !ok {
				return nil, fmt.Errorf("no %s", p)
			}
			out[p] = []byte(s)
		}
		return out, nil
	}
	cases := map[Stage][]string{
		StageStrategy:   {"pkg/registry/core/shoot/helpers.go", "pkg/registry/core/shoot/strategy.go"},
		StageValidation: {"pkg/apis/core/validation/seed.go", "pkg/apis/core/validation/shoot.go", "pkg/apis/core/validation/shootstate.go"},
		StageWarnings:   {"pkg/api/core/shoot/warnings.go"},
		StageMaintenance: {
			"pkg/controllermanager/controller/shoot/maintenance/add.go",
			"pkg/controllermanager/controller/shoot/maintenance/reconciler.go",
			"pkg/controllermanager/controller/shoot/shoot_maintenance_control.go",
		},
		StageDefaults: nil,
	}
	for st, want := range cases {
		got, err := locate(st, files, read)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", st, got, want)
		}
	}
}

func TestTagNewer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"v1.149.0", "v1.73.0", true},
		{"v1.73.0", "v1.149.0", false},
		{"v1.2.0", "v1.2.0", false},
		{"v2.0.0", "v1.99.0", true},
		{"release-1.10", "release-1.9", true},
	} {
		if got := tagNewer(c.a, c.b); got != c.want {
			t.Errorf("tagNewer(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
