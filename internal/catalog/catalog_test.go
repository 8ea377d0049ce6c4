package catalog_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/rules"
)

var idRe = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)

// Every rule is complete data, IDs are unique, and every input and
// attribute a rule declares is a known one.
func TestCatalogueIsComplete(t *testing.T) {
	seen := map[string]bool{}
	last := 0
	for i, r := range catalog.All() {
		if !idRe.MatchString(r.ID) || seen[r.ID] {
			t.Errorf("rule %d: bad or duplicate ID %q", i, r.ID)
		}
		seen[r.ID] = true
		if r.Category == "" || r.Severity == 0 || r.Summary == "" || r.Why == "" || r.Fix == "" || r.Check == nil {
			t.Errorf("%s: incomplete rule data", r.ID)
		}
		if r.Last {
			last++
		}
		for _, in := range r.Requires {
			if in == "" {
				t.Errorf("%s: empty input", r.ID)
			}
		}
		// The usage searches start ahead for the revisions the rules
		// declare; a rule reading usages declares which.
		if r.Needs(rules.InputUsages) != (len(r.UsagesAt) > 0) {
			t.Errorf("%s: requires usages %v, but declares the revisions %v", r.ID, r.Needs(rules.InputUsages), r.UsagesAt)
		}
		for _, a := range r.Judges {
			if a == "" || a == model.AttrDeprecated {
				t.Errorf("%s: judges %q", r.ID, a)
			}
		}
	}
	if last != 1 {
		t.Errorf("%d rules run last, want exactly the meta rule", last)
	}
}

// No rule ID appears as a string outside its rule's definition: every
// other package reads the facts from the rule (tests and docs excepted).
func TestRuleIDsOnlyInDefinitions(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range catalog.All() {
		ids[r.ID] = true
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == ".git" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		defs := map[ast.Node]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
					defs[kv.Value] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || defs[lit] {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && ids[s] {
				t.Errorf("%s: rule ID %s outside its rule's definition", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// maxRulesFileLines bounds the files of internal/rules: a rule's file
// holds one rule, a helper file one topic.
const maxRulesFileLines = 600

// Each rule of the catalogue is declared in internal/rules in a file of
// its own, named after its ID in lower case; only the engine's files
// (context*.go, policy.go, engine.go) define methods of rules.Context; no
// file is longer than maxRulesFileLines.
func TestOneFilePerRule(t *testing.T) {
	fileOf := map[string]string{}
	dir := filepath.Join("..", "rules")
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	engine := regexp.MustCompile(`^(context.*|policy|engine)\.go$`)
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		name := filepath.Base(path)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if n := fset.Position(f.End()).Line; n > maxRulesFileLines {
			t.Errorf("%s: %d lines, more than %d", name, n, maxRulesFileLines)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && receiverName(d.Recv.List[0].Type) == "Context" && !engine.MatchString(name) {
					t.Errorf("%s: method %s of Context outside the engine's files", name, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					vs, ok := sp.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for _, v := range vs.Values {
						if id := ruleLiteralID(v); id != "" {
							if other, dup := fileOf[id]; dup {
								t.Errorf("%s: rule %s declared in %s too", name, id, other)
							}
							fileOf[id] = name
						}
					}
				}
			}
		}
	}
	for _, r := range catalog.All() {
		want := strings.ToLower(r.ID) + ".go"
		if got := fileOf[r.ID]; got != want {
			t.Errorf("%s is declared in %q, want %s", r.ID, got, want)
		}
	}
}

// receiverName is the type name of a method receiver (T or *T).
func receiverName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// ruleLiteralID is the ID of a rule literal (&Rule{ID: "..."}), "" for
// any other expression.
func ruleLiteralID(e ast.Expr) string {
	u, ok := e.(*ast.UnaryExpr)
	if !ok {
		return ""
	}
	cl, ok := u.X.(*ast.CompositeLit)
	if !ok || receiverName(cl.Type) != "Rule" {
		return ""
	}
	for _, el := range cl.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
				if lit, ok := kv.Value.(*ast.BasicLit); ok {
					if id, err := strconv.Unquote(lit.Value); err == nil {
						return id
					}
				}
			}
		}
	}
	return ""
}
