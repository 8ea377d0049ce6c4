package kal

import (
	"strings"
	"testing"
)

// files is a revision's files for Read.
type files map[string]string

func (f files) Files() []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	return out
}

func (f files) ReadFiles(paths []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range paths {
		out[p] = []byte(f[p])
	}
	return out, nil
}

const clusterAPI = `version: "2"
linters:
  default: none
  enable:
    - kubeapilinter
  settings:
    custom:
      kubeapilinter:
        type: module
        settings:
          linters:
            enable:
              - "optionalfields"
              - "optionalorrequired"
            disable:
              - "*"
          lintersConfig:
            optionalfields:
              pointers:
                preference: WhenRequired
  exclusions:
    paths:
      - zz_generated.*\.go$
    rules:
    - path-except: "api//*"
      linters:
        - kubeapilinter
    - path: "api/core/v1beta1|api/ipam/v1alpha1"
      linters:
        - kubeapilinter
    - path: "api/runtime/hooks/v1alpha1/(common_types.go|discovery_types.go)"
      text: "optionalfields|requiredfields"
      linters:
        - kubeapilinter
    - path: "api/core/v1beta2/clusterclass_types.go"
      text: "optionalfields: field (AdditionalProperties|Items|Not) does not allow the zero value"
      linters:
        - kubeapilinter
    - path: "api/core/v1beta2"
      text: "nobools"
      linters:
        - kubeapilinter
    - path: "api/core/v1beta2"
      linters:
        - govet
`

func TestParseVersion2(t *testing.T) {
	c, err := Parse(".golangci-kal.yml", []byte(clusterAPI))
	if err != nil || c == nil {
		t.Fatalf("Parse: %v, %v", c, err)
	}
	if got := c.Pointers(); got != PointersWhenRequired {
		t.Errorf("Pointers() = %q, want WhenRequired", got)
	}
	for _, tc := range []struct {
		linter, file string
		want         bool
	}{
		{OptionalOrRequired, "api/core/v1beta2/machine_types.go", true},
		{OptionalFields, "api/core/v1beta2/machine_types.go", true},
		{OptionalFields, "api/core/v1beta2/clusterclass_types.go", true}, // a text naming fields, not the linter
		{OptionalOrRequired, "api/core/v1beta1/machine_types.go", false}, // excluded from kubeapilinter
		{OptionalOrRequired, "cmd/clusterctl/types.go", false},           // path-except: outside api/
		{OptionalFields, "api/runtime/hooks/v1alpha1/common_types.go", false},
		{OptionalOrRequired, "api/runtime/hooks/v1alpha1/common_types.go", true},
		{OptionalOrRequired, "api/core/v1beta2/zz_generated.deepcopy.go", false},
		{"requiredfields", "api/core/v1beta2/machine_types.go", false}, // neither enabled nor followed
	} {
		if got := c.Enabled(tc.linter, tc.file); got != tc.want {
			t.Errorf("Enabled(%s, %s) = %v, want %v", tc.linter, tc.file, got, tc.want)
		}
	}
	if d := c.Describe(); !strings.Contains(d, "optionalorrequired and optionalfields (pointers.preference WhenRequired)") {
		t.Errorf("Describe() = %q", d)
	}
}

func TestParseVersion1(t *testing.T) {
	data := `linters:
  disable-all: true
  enable:
    - kubeapilinter
linters-settings:
  custom:
    kubeapilinter:
      path: bin/kube-api-linter.so
      settings:
        linters:
          disable:
            - optionalorrequired
        lintersConfig:
          optionalFields:
            pointers:
              preference: Always
issues:
  exclude-files:
    - "_test\\.go$"
  exclude-rules:
    - path: "apis/legacy"
      linters:
        - kubeapilinter
`
	c, err := Parse(".golangci.yml", []byte(data))
	if err != nil || c == nil {
		t.Fatalf("Parse: %v, %v", c, err)
	}
	if c.Enabled(OptionalOrRequired, "apis/v1/types.go") {
		t.Error("optionalorrequired is disabled")
	}
	if !c.Enabled(OptionalFields, "apis/v1/types.go") {
		t.Error("optionalfields is enabled by default")
	}
	if c.Enabled(OptionalFields, "apis/legacy/v1/types.go") || c.Enabled(OptionalFields, "apis/v1/types_test.go") {
		t.Error("excluded files are not linted")
	}
	if c.Pointers() != PointersAlways {
		t.Errorf("Pointers() = %q", c.Pointers())
	}
}

func TestParseNotKubeAPILinter(t *testing.T) {
	for name, data := range map[string]string{
		"empty":             "",
		"other linters":     "linters:\n  enable:\n    - govet\n",
		"settings, not run": "version: \"2\"\nlinters:\n  enable:\n    - govet\n  settings:\n    custom:\n      kubeapilinter:\n        type: module\n",
		"disabled":          "linters:\n  default: all\n  disable:\n    - kubeapilinter\n  settings:\n    custom:\n      kubeapilinter:\n        type: module\n",
	} {
		if c, err := Parse("x.yml", []byte(data)); c != nil || err != nil {
			t.Errorf("%s: Parse = %v, %v; want nil, nil", name, c, err)
		}
	}
	all := "linters:\n  default: all\n  settings:\n    custom:\n      kubeapilinter:\n        type: module\n        settings:\n          linters:\n            enable: [\"*\"]\n"
	c, err := Parse("x.yml", []byte(all))
	if err != nil || c == nil || !c.Enabled(OptionalOrRequired, "api/v1/t.go") || c.Pointers() != PointersAlways {
		t.Errorf("default: all: %v, %v", c, err)
	}
	off := "linters:\n  enable: [kubeapilinter]\n  settings:\n    custom:\n      kubeapilinter:\n        settings:\n          linters:\n            disable: [\"*\"]\n"
	if c, _ := Parse("x.yml", []byte(off)); c == nil || c.Enabled(OptionalOrRequired, "a.go") || c.Enabled(OptionalFields, "a.go") {
		t.Errorf("disable *: every linter is off")
	}
}

func TestParseErrors(t *testing.T) {
	for name, data := range map[string]string{
		"yaml":  "linters: [",
		"regex": "linters:\n  enable: [kubeapilinter]\n  settings:\n    custom:\n      kubeapilinter: {}\n  exclusions:\n    paths: [\"(\"]\n",
	} {
		if _, err := Parse("x.yml", []byte(data)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestReadOrder(t *testing.T) {
	kal := "linters:\n  enable: [kubeapilinter]\n  settings:\n    custom:\n      kubeapilinter: {}\n"
	c, err := Read(files{".golangci.yml": kal, ".golangci-kal.yml": kal, "go.mod": "module x"})
	if err != nil || c == nil || c.File != ".golangci-kal.yml" {
		t.Fatalf("Read = %+v, %v; want .golangci-kal.yml", c, err)
	}
	c, err = Read(files{".golangci-kal.yml": "linters:\n  enable: [govet]\n", ".golangci.yaml": kal})
	if err != nil || c == nil || c.File != ".golangci.yaml" {
		t.Fatalf("Read = %+v, %v; want .golangci.yaml", c, err)
	}
	if c, err := Read(files{"go.mod": "module x"}); c != nil || err != nil {
		t.Fatalf("Read without a configuration = %v, %v", c, err)
	}
}
