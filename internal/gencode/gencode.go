// Package gencode reads, as text, what Kubernetes' code generators wrote
// into a revision and the repository committed: go-to-protobuf's
// generated.proto, deepcopy-gen's zz_generated.deepcopy.go,
// conversion-gen's zz_generated.conversion.go and openapi-gen's
// definitions (zz_generated.openapi.go, openapi_generated.go). It never
// runs a generator: it answers whether the committed output mentions a
// field (a message field, a copy, a conversion, a schema property), so
// that a change that edited the Go types without regenerating shows.
//
// The generators' output is gofmt-formatted (protobuf: one message per
// top-level block), which the lookups rely on: a function or message ends
// at the first line that is a closing brace alone.
package gencode

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Source is a revision's files (git.Snapshot).
type Source interface {
	Files() []string
	ReadFiles(paths []string) (map[string][]byte, error)
}

// The artifacts' file names.
const (
	Proto      = "generated.proto"
	DeepCopy   = "zz_generated.deepcopy.go"
	Conversion = "zz_generated.conversion.go"
)

// OpenAPINames are the file names of openapi-gen's output: Kubernetes'
// and Gardener's.
var OpenAPINames = []string{"zz_generated.openapi.go", "openapi_generated.go"}

// Files are the generated files of one revision, listed and read lazily,
// each once.
type Files struct {
	src Source

	mu      sync.Mutex
	listed  bool
	has     map[string]bool
	openapi []string
	text    map[string]string
	errs    map[string]error
	defs    map[string]*Definitions
}

// New reads the generated files of src.
func New(src Source) *Files {
	return &Files{src: src, text: map[string]string{}, errs: map[string]error{}, defs: map[string]*Definitions{}}
}

func (f *Files) list() {
	if f.listed {
		return
	}
	f.listed = true
	f.has = map[string]bool{}
	for _, p := range f.src.Files() {
		name := path.Base(p)
		switch {
		case name == Proto || name == DeepCopy || name == Conversion:
			f.has[p] = true
		case slices.Contains(OpenAPINames, name) && !skippedDir(p):
			f.has[p] = true
			f.openapi = append(f.openapi, p)
		}
	}
}

// skippedDir reports whether a path is in a directory whose code is not
// the repository's own (vendored, test data).
func skippedDir(p string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		if d == "vendor" || d == "testdata" || d == "node_modules" || strings.HasPrefix(d, ".") && d != "." || strings.HasPrefix(d, "_") {
			return true
		}
	}
	return false
}

// Has reports whether the revision has the generated file p.
func (f *Files) Has(p string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list()
	return f.has[p]
}

// OpenAPIFiles lists the revision's OpenAPI definition files, sorted
// (outside vendor/ and testdata/).
func (f *Files) OpenAPIFiles() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list()
	return slices.Clone(f.openapi)
}

// Read returns the text of generated file p.
func (f *Files) Read(p string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.read(p)
}

func (f *Files) read(p string) (string, error) {
	f.list()
	if t, ok := f.text[p]; ok {
		return t, nil
	}
	if err, ok := f.errs[p]; ok {
		return "", err
	}
	if !f.has[p] {
		return "", fmt.Errorf("%s does not exist", p)
	}
	m, err := f.src.ReadFiles([]string{p})
	if err != nil {
		f.errs[p] = err
		return "", err
	}
	t := strings.ReplaceAll(string(m[p]), "\r\n", "\n")
	f.text[p] = t
	return t, nil
}

// Block is the text of one message or function, and the line it starts
// at (from 1).
type Block struct {
	Text string
	Line int
}

// block finds the block whose first line starts with head (at the start
// of a line) and returns it up to the first line that is "}" alone.
func block(text, head string) (Block, bool) {
	i := 0
	for {
		j := strings.Index(text[i:], head)
		if j < 0 {
			return Block{}, false
		}
		j += i
		if j == 0 || text[j-1] == '\n' {
			end := strings.Index(text[j:], "\n}")
			if end < 0 {
				end = len(text) - j
			}
			return Block{Text: text[j : j+end], Line: strings.Count(text[:j], "\n") + 1}, true
		}
		i = j + len(head)
	}
}

// ProtoMessage is message name of a generated.proto.
func ProtoMessage(text, name string) (Block, bool) {
	return block(text, "message "+name+" {")
}

// ProtoField reports whether a message declares a field of the name and
// number (`optional string name = 3;`, `repeated X name = 3;`, `map<K, V>
// name = 3;`), comments aside.
func ProtoField(msg Block, name string, number int) bool {
	re := regexp.MustCompile(`(?:^|[\s>])` + regexp.QuoteMeta(name) + `\s*=\s*` + strconv.Itoa(number) + `\s*[;\[]`)
	for _, l := range strings.Split(msg.Text, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "//") {
			continue
		}
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// DeepCopyInto is deepcopy-gen's DeepCopyInto of type typ.
func DeepCopyInto(text, typ string) (Block, bool) {
	return block(text, "func (in *"+typ+") DeepCopyInto(out *"+typ+") {")
}

var autoConvertRe = regexp.MustCompile(`(?m)^func (autoConvert_\w+)\(`)

// AutoConverts are conversion-gen's autoConvert functions that convert
// type typ of the package named pkg into or out of another package
// (autoConvert_v1beta1_Shoot_To_core_Shoot and
// autoConvert_core_Shoot_To_v1beta1_Shoot), in the order of the text.
func AutoConverts(text, pkg, typ string) []Block {
	from, to := "autoConvert_"+pkg+"_"+typ+"_To_", "_To_"+pkg+"_"+typ
	var out []Block
	for _, m := range autoConvertRe.FindAllStringSubmatch(text, -1) {
		if name := m[1]; strings.HasPrefix(name, from) || strings.HasSuffix(name, to) {
			if b, ok := block(text, "func "+name+"("); ok {
				out = append(out, b)
			}
		}
	}
	return out
}

// Mentions reports whether generated Go code reads or writes the field
// of the receiver or argument (in.Name, out.Name): deepcopy-gen copies
// every field that holds a reference that way, and conversion-gen
// converts every field, or says that it cannot (`// WARNING: in.Name
// requires manual conversion`).
func Mentions(b Block, field string) bool {
	re := regexp.MustCompile(`\b(?:in|out)\.` + regexp.QuoteMeta(field) + `\b`)
	return re.MatchString(b.Text)
}

// Definitions are the definitions of an OpenAPI file, indexed once: the
// file can hold every type of the repository and of its dependencies
// (Gardener's is megabytes).
type Definitions struct {
	text     string
	schema   map[string]string // "importPath.Type" -> its function
	packages map[string]bool   // import paths with a definition
	funcs    map[string]int    // function -> offset of its line
}

var (
	definitionRe = regexp.MustCompile(`(?m)^\s*"([^"]+)\.([A-Za-z_]\w*)":\s*(schema_\w+)\(ref\),?$`)
	schemaFuncRe = regexp.MustCompile(`(?m)^func (schema_\w+)\(`)
)

// OpenAPI returns the definitions of OpenAPI file p, read and indexed
// once.
func (f *Files) OpenAPI(p string) (*Definitions, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.defs[p]; ok {
		return d, nil
	}
	text, err := f.read(p)
	if err != nil {
		return nil, err
	}
	d := ParseDefinitions(text)
	f.defs[p] = d
	return d, nil
}

// ParseDefinitions indexes the definitions of an OpenAPI file's text.
func ParseDefinitions(text string) *Definitions {
	d := &Definitions{text: text, schema: map[string]string{}, packages: map[string]bool{}, funcs: map[string]int{}}
	for _, m := range definitionRe.FindAllStringSubmatch(text, -1) {
		d.schema[m[1]+"."+m[2]] = m[3]
		d.packages[m[1]] = true
	}
	for _, m := range schemaFuncRe.FindAllStringSubmatchIndex(text, -1) {
		d.funcs[text[m[2]:m[3]]] = m[0]
	}
	return d
}

// Defines reports whether the file has definitions of types of the
// package importPath.
func (d *Definitions) Defines(importPath string) bool { return d.packages[importPath] }

// Schema is openapi-gen's definition of type typ of the package
// importPath: the function the definitions map names for
// "importPath.typ".
func (d *Definitions) Schema(importPath, typ string) (Block, bool) {
	fn, ok := d.schema[importPath+"."+typ]
	if !ok {
		return Block{}, false
	}
	at, ok := d.funcs[fn]
	if !ok {
		return Block{}, false
	}
	b, ok := block(d.text[at:], "func "+fn+"(")
	b.Line += strings.Count(d.text[:at], "\n")
	return b, ok
}

// OpenAPIProperty reports whether a schema has the property json (its
// Properties map has the key).
func OpenAPIProperty(schema Block, json string) bool {
	return strings.Contains(schema.Text, strconv.Quote(json)+": {")
}
