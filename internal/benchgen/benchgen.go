// Package benchgen generates a large, realistic Kubernetes/Gardener-style
// API tree for benchmarks, deterministically.
//
// Generate writes a Go module with N API groups under pkg/apis/<group>,
// each an internal package and a v1beta1 package: doc.go with
// +groupName, register.go with SchemeGroupVersion, types_*.go with root
// kinds, lists, specs, statuses and shared structs of 10-40 documented
// fields (pointers, slices, maps, metav1.Time, corev1.ResourceList, nested
// structs, typed string constants, +optional markers, json and protobuf
// tags, a few canonical tombstones), and a zz_generated.deepcopy.go that
// the scanner skips.
//
// Mutate turns such a tree into a realistic head revision: optional fields
// added to both packages of a group, doc edits, new enum values, new
// nested structs, a field removed properly behind a tombstone, and a few
// violations (a non-pointer new field, a changed protobuf number, a field
// removed without tombstone), touching about a tenth of the files.
//
// Both are pure functions of their inputs: the same Options (and seed)
// give byte-identical files.
package benchgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
)

// Options size the generated tree. Zero values take the defaults.
type Options struct {
	// Groups is the number of API groups (default 40).
	Groups int `json:"groups"`
	// TypesFiles is the number of types_*.go files per package (default 8).
	TypesFiles int `json:"typesFiles"`
	// RootKinds is how many of those files declare a root kind with its
	// list, spec and status (default 3).
	RootKinds int `json:"rootKinds"`
	// Seed selects the content of the base tree (default 1).
	Seed int64 `json:"seed"`
	// Module is the module path in go.mod (default example.cloud/bench).
	Module string `json:"module"`
	// OtherFiles is the number of files outside the API packages (default
	// none): documentation, Helm charts, web assets and Go packages of
	// controllers, twenty to a directory, the same at base and head (see
	// otherFiles).
	OtherFiles int `json:"otherFiles,omitempty"`
}

// Defaults used for zero Options fields. With them a revision has 880 Go
// files, 5.3 MB: the 800 files apicheck reads (doc.go, register.go and
// types_*.go of 80 packages) hold 3.0 MB, the deep-copy files the rest.
const (
	DefaultGroups     = 40
	DefaultTypesFiles = 8
	DefaultRootKinds  = 3
	DefaultModule     = "example.cloud/bench"
)

func (o Options) withDefaults() Options {
	if o.Groups <= 0 {
		o.Groups = DefaultGroups
	}
	if o.TypesFiles <= 0 {
		o.TypesFiles = DefaultTypesFiles
	}
	if o.RootKinds <= 0 {
		o.RootKinds = DefaultRootKinds
	}
	o.RootKinds = min(o.RootKinds, o.TypesFiles)
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Module == "" {
		o.Module = DefaultModule
	}
	return o
}

// ManifestFile records, at the root of a generated tree, the Options it
// was generated with, so that Mutate can rebuild the base tree.
const ManifestFile = ".benchgen.json"

// Generate writes the base tree for opts into dir (created if needed).
// Files of an earlier run are overwritten; other files are left alone.
func Generate(dir string, opts Options) error {
	opts = opts.withDefaults()
	files, err := buildTree(opts).render()
	if err != nil {
		return err
	}
	manifest, err := json.MarshalIndent(opts, "", "  ")
	if err != nil {
		return err
	}
	files[ManifestFile] = append(manifest, '\n')
	maps.Copy(files, otherFiles(opts.OtherFiles))
	return writeFiles(dir, files)
}

// otherFiles returns n files outside the API packages, twenty to a
// directory, the directories in turn of four kinds: Markdown pages
// (docs/content), Helm chart values (charts), JavaScript assets
// (web/static) and Go packages of controllers (internal/controllers),
// which import nothing of the API. Every file's content is its own, as
// in a real repository.
func otherFiles(n int) map[string][]byte {
	out := make(map[string][]byte, n)
	type kind struct{ root, ext string }
	kinds := [...]kind{{"docs/content", ".md"}, {"charts", ".yaml"}, {"web/static", ".js"}, {"internal/controllers", ".go"}}
	for i := 0; i < n; i++ {
		d, f := i/20, i%20
		k := kinds[d%len(kinds)]
		dir := fmt.Sprintf("%s/s%02d/p%03d", k.root, d/len(kinds)/100, d/len(kinds)%100)
		name := fmt.Sprintf("%s/f%02d%s", dir, f, k.ext)
		var content string
		switch k.ext {
		case ".go":
			content = fmt.Sprintf("package p%03d\n\n// F%d is file %d of %s.\nfunc F%d() int { return %d }\n", d/len(kinds)%100, f, f, dir, f, i)
		case ".yaml":
			content = fmt.Sprintf("# file %d of %s\nreplicas: %d\n", f, dir, i)
		default:
			content = fmt.Sprintf("file %d of %s: %d\n", f, dir, i)
		}
		out[name] = []byte(content)
	}
	return out
}

// Mutate changes the tree that Generate wrote into dir into a head
// revision, deterministically for a given seed: it rebuilds the base tree
// from the manifest, applies the change set and rewrites the files whose
// content differs (removing files that no longer exist). Calling it twice
// with the same seed gives the same result as calling it once.
func Mutate(dir string, seed int64) error {
	_, err := mutate(dir, seed)
	return err
}

// Change describes one change Mutate made, for tests and the benchgen
// command.
type Change struct {
	// Kind is "add-optional-field", "edit-doc", "add-enum-value",
	// "add-nested-struct", "tombstone-field" or, for the violations,
	// "non-pointer-field", "proto-number-changed", "field-removed".
	Kind string
	// Dir is the group directory, Type and Field what changed.
	Dir, Type, Field string
	// Violation is true for changes a compatibility checker must report.
	Violation bool
}

// MutateReport is Mutate that also returns the changes it made and the
// paths it rewrote or removed (sorted).
func MutateReport(dir string, seed int64) ([]Change, []string, error) {
	res, err := mutate(dir, seed)
	if err != nil {
		return nil, nil, err
	}
	return res.changes, res.touched, nil
}

type mutateResult struct {
	changes []Change
	touched []string
}

func mutate(dir string, seed int64) (*mutateResult, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("benchgen: %s has no %s: was it made by benchgen.Generate?", dir, ManifestFile)
		}
		return nil, err
	}
	var opts Options
	if err := json.Unmarshal(raw, &opts); err != nil {
		return nil, fmt.Errorf("benchgen: read %s: %w", ManifestFile, err)
	}
	opts = opts.withDefaults()
	t := buildTree(opts)
	base, err := t.render()
	if err != nil {
		return nil, err
	}
	changes := t.mutate(seed)
	head, err := t.render()
	if err != nil {
		return nil, err
	}
	write := map[string][]byte{}
	var touched, removed []string
	for p, data := range head {
		if !equal(base, head, p) {
			write[p] = data
			touched = append(touched, p)
		}
	}
	for p := range base {
		if _, ok := head[p]; !ok {
			removed = append(removed, p)
			touched = append(touched, p)
		}
	}
	if err := writeFiles(dir, write); err != nil {
		return nil, err
	}
	for _, p := range removed {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	sort.Strings(touched)
	return &mutateResult{changes: changes, touched: touched}, nil
}

func writeFiles(dir string, files map[string][]byte) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	made := map[string]bool{}
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if d := filepath.Dir(full); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
		if err := os.WriteFile(full, files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}
