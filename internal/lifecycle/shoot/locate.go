package shoot

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/scan"
)

// lookFor says, per stage, what Locate looks for when the configured files
// do not exist: it names it in messages.
var lookFor = map[Stage]string{
	StageWarnings:    "a func GetWarnings taking a *Shoot",
	StageValidation:  "a func ValidateShoot or ValidateShootSpec",
	StageStrategy:    "a Canonicalize method that asserts its object to *Shoot",
	StageMaintenance: "a directory or file whose name contains \"maintenance\"",
}

// locateSelection keeps the files locate looks at, and more (git.Select):
// the Go files whose path mentions "shoot".
var locateSelection = &git.Selection{
	Name:     "shoot 1",
	Mark:     func(name string) bool { return strings.Contains(strings.ToLower(name), "shoot") },
	MarkFile: func(name string) bool { return strings.HasSuffix(name, ".go") },
}

// locate finds a stage's code by content: among the non-test,
// non-generated Go files whose path mentions "shoot" (any case), the file
// that declares the Shoot warnings function (GetWarnings with a *Shoot
// parameter), the package that declares ValidateShoot or
// ValidateShootSpec, the package whose Canonicalize asserts its object to
// *Shoot, or the maintenance directory (or files) below a shoot path. This
// finds both Gardener's older layout (pkg/registry/...,
// pkg/apis/core/validation) and today's (pkg/apiserver/registry/...,
// pkg/api/core/validation) without configuration. read reads files of
// the revision.
func locate(st Stage, files []string, read func([]string) (map[string][]byte, error)) ([]string, error) {
	var cands []string
	for _, f := range files {
		if scan.Scannable(f) && strings.Contains(strings.ToLower(f), "shoot") {
			cands = append(cands, f)
		}
	}
	if st == StageMaintenance {
		return maintenanceFiles(cands), nil
	}
	key := map[Stage]string{StageWarnings: "GetWarnings", StageValidation: "ValidateShoot", StageStrategy: "Canonicalize"}[st]
	if key == "" || len(cands) == 0 {
		return nil, nil
	}
	contents, err := read(cands)
	if err != nil {
		return nil, err
	}
	var hits []string
	for _, f := range cands {
		src := contents[f]
		if !bytes.Contains(src, []byte(key)) {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.SkipObjectResolution)
		if err != nil {
			continue // not the file we look for if it does not parse
		}
		if declares(st, af) {
			hits = append(hits, f)
		}
	}
	if st == StageWarnings {
		return hits, nil
	}
	// Validation and Canonicalize call helpers of their package.
	dirs := map[string]bool{}
	for _, h := range hits {
		dirs[path.Dir(h)] = true
	}
	var out []string
	for _, f := range files {
		if dirs[path.Dir(f)] && scan.Scannable(f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// declares reports whether a file holds the stage's entry point.
func declares(st Stage, f *ast.File) bool {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		switch st {
		case StageWarnings:
			if fd.Name.Name == "GetWarnings" && takesShoot(fd.Type) {
				return true
			}
		case StageValidation:
			if fd.Recv == nil && (fd.Name.Name == "ValidateShoot" || fd.Name.Name == "ValidateShootSpec") {
				return true
			}
		case StageStrategy:
			if fd.Name.Name == "Canonicalize" && assertsShoot(fd.Body) {
				return true
			}
		}
	}
	return false
}

// isShootType matches Shoot, *Shoot, pkg.Shoot and *pkg.Shoot.
func isShootType(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name == "Shoot"
	case *ast.SelectorExpr:
		return t.Sel.Name == "Shoot"
	}
	return false
}

func takesShoot(ft *ast.FuncType) bool {
	for _, p := range ft.Params.List {
		if isShootType(p.Type) {
			return true
		}
	}
	return false
}

func assertsShoot(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if ta, ok := n.(*ast.TypeAssertExpr); ok && ta.Type != nil && isShootType(ta.Type) {
			found = true
		}
		return !found
	})
	return found
}

// maintenanceFiles are, among the candidates, the files of directories
// whose name contains "maintenance" and the files whose name does.
func maintenanceFiles(cands []string) []string {
	var out []string
	for _, f := range cands {
		dir, base := path.Dir(f), path.Base(f)
		if strings.Contains(strings.ToLower(path.Base(dir)), "maintenance") ||
			strings.Contains(strings.ToLower(base), "maintenance") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
