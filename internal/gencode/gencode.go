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
	"iter"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apicheck/apicheck/internal/git"
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
	// converts are the autoConvert functions of the conversion files
	// asked about (autoConvertFuncs), by path; heads the indexes of
	// DeepCopyInto and ProtoMessage, by kind and path.
	converts map[string][]convertFunc
	heads    map[string]map[string]blockAt
	errs     map[string]error
	defs     map[string]*Definitions
	// memo keeps the answers across runs (UseMemo; nil: none).
	memo git.Memo
}

// New reads the generated files of src.
func New(src Source) *Files {
	return &Files{src: src, has: map[string]bool{}, text: map[string]string{}, converts: map[string][]convertFunc{}, heads: map[string]map[string]blockAt{}, errs: map[string]error{}, defs: map[string]*Definitions{}}
}

// Selection keeps the OpenAPI definition files (git.Select), wherever
// they are.
var Selection = &git.Selection{
	Name: "openapi 1",
	File: func(name string) bool { return slices.Contains(OpenAPINames, name) },
}

// list finds the OpenAPI definition files, once.
func (f *Files) list() {
	if f.listed {
		return
	}
	f.listed = true
	files, err := git.Select(f.src, Selection)
	if err != nil {
		return // none can be read either
	}
	for _, p := range files {
		if slices.Contains(OpenAPINames, path.Base(p)) && !skippedDir(p) {
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

// Has reports whether the revision has the generated file p (one of
// the generators' names; an OpenAPI file outside vendor/ and testdata/).
func (f *Files) Has(p string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hasLocked(p)
}

func (f *Files) hasLocked(p string) bool {
	if has, ok := f.has[p]; ok {
		return has
	}
	has := false
	switch name := path.Base(p); {
	case name == Proto || name == DeepCopy || name == Conversion:
		has, _ = git.HasFile(f.src, p) // a file that cannot be told is not there
	case slices.Contains(OpenAPINames, name) && !skippedDir(p):
		has, _ = git.HasFile(f.src, p)
	}
	f.has[p] = has
	return has
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
	if t, ok := f.text[p]; ok {
		return t, nil
	}
	if err, ok := f.errs[p]; ok {
		return "", err
	}
	if !f.hasLocked(p) {
		return "", fmt.Errorf("%s does not exist", p)
	}
	m, err := f.src.ReadFiles([]string{p})
	if err != nil {
		f.errs[p] = err
		return "", err
	}
	t := strings.ReplaceAll(string(m[p]), "\r\n", "\n")
	f.text[p] = t
	f.remember(f.answerKey(p, "read"), nil, true)
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
	return block(text, deepCopyHead(typ))
}

func deepCopyHead(typ string) string {
	return "func (in *" + typ + ") DeepCopyInto(out *" + typ + ") {"
}

func protoHead(name string) string { return "message " + name + " {" }

// DeepCopyInto is DeepCopyInto of generated file p, whose functions are
// found once (heads).
func (f *Files) DeepCopyInto(p, typ string) (Block, bool, error) {
	return f.answered(p, deepCopyKind, typ, deepCopyHead, deepCopyIndex)
}

// answered is indexed through the memo.
func (f *Files) answered(p, kind, name string, head func(string) string, index func(string) map[string]blockAt) (Block, bool, error) {
	key := f.answerKey(p, kind, name)
	if blocks, found, ok := f.recall(key); ok {
		b, found := oneBlock(blocks, found)
		return b, found, nil
	}
	b, found, err := f.indexed(p, kind, name, head, index)
	if err == nil {
		f.remember(key, []Block{b}, found)
	}
	return b, found, err
}

// The kinds of the indexes of heads (Files.heads).
const (
	deepCopyKind = "deepcopy"
	protoKind    = "proto"
)

// deepCopyIndex finds the DeepCopyInto functions of a text.
func deepCopyIndex(text string) map[string]blockAt {
	return heads(text, "func (in *", func(rest string) (string, bool) {
		name, _, ok := strings.Cut(rest, ")")
		return name, ok && strings.HasPrefix(rest, name+") DeepCopyInto(out *"+name+") {")
	})
}

// ProtoMessage is ProtoMessage of generated file p, whose messages are
// found once (heads).
func (f *Files) ProtoMessage(p, name string) (Block, bool, error) {
	return f.answered(p, protoKind, name, protoHead, protoIndex)
}

// protoIndex finds the messages of a text.
func protoIndex(text string) map[string]blockAt {
	return heads(text, "message ", func(rest string) (string, bool) {
		name, _, ok := strings.Cut(rest, " ")
		return name, ok && strings.HasPrefix(rest, name+" {")
	})
}

// Prefetch reads the generated files of paths that the revision has and
// that were not read yet, in one batch, and indexes each as the questions
// about its kind do (DeepCopyInto, ProtoMessage, AutoConverts, OpenAPI):
// started in the background before those questions are asked, it reads
// and indexes while other work runs. The questions stay correct beside
// it: one about a file it has not stored yet reads the file itself.
// Nothing is reported: a file it cannot read is read (and its error
// returned) by the question that asks for it.
func (f *Files) Prefetch(paths []string) {
	f.mu.Lock()
	var todo []string
	for _, p := range paths {
		_, read := f.text[p]
		_, failed := f.errs[p]
		if !read && !failed && !slices.Contains(todo, p) && f.hasLocked(p) {
			todo = append(todo, p)
		}
	}
	f.mu.Unlock()
	// A file an earlier run read is left to the questions, which the
	// memo likely answers.
	todo = slices.DeleteFunc(todo, f.readBefore)
	if len(todo) == 0 {
		return
	}
	m, err := f.src.ReadFiles(todo)
	if err != nil {
		return
	}
	for _, p := range todo {
		text := strings.ReplaceAll(string(m[p]), "\r\n", "\n")
		var heads map[string]blockAt
		var fns []convertFunc
		var defs *Definitions
		kind := ""
		switch name := path.Base(p); {
		case name == DeepCopy:
			kind, heads = deepCopyKind, deepCopyIndex(text)
		case name == Proto:
			kind, heads = protoKind, protoIndex(text)
		case name == Conversion:
			fns = autoConvertFuncs(text)
		case slices.Contains(OpenAPINames, name):
			defs = ParseDefinitions(text)
		}
		f.remember(f.answerKey(p, "read"), nil, true)
		f.mu.Lock()
		if _, ok := f.text[p]; !ok {
			f.text[p] = text
		}
		if key := kind + "\x00" + p; heads != nil && f.heads[key] == nil {
			f.heads[key] = heads
		}
		if _, ok := f.converts[p]; !ok && fns != nil {
			f.converts[p] = fns
		}
		if _, ok := f.defs[p]; !ok && defs != nil {
			f.defs[p] = defs
		}
		f.mu.Unlock()
	}
}

// indexed finds the block of file p that head(name) opens through the
// file's index of kind (made once by index), as block does; a name the
// index cannot hold (not an identifier) is looked for in the text.
func (f *Files) indexed(p, kind, name string, head func(string) string, index func(string) map[string]blockAt) (Block, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text, err := f.read(p)
	if err != nil {
		return Block{}, false, err
	}
	if !identifier(name) {
		b, ok := block(text, head(name))
		return b, ok, nil
	}
	key := kind + "\x00" + p
	idx, ok := f.heads[key]
	if !ok {
		idx = index(text)
		f.heads[key] = idx
	}
	at, ok := idx[name]
	if !ok {
		return Block{}, false, nil
	}
	b, ok := block(text[at.at:], head(name))
	b.Line += at.line - 1
	return b, ok, nil
}

// blockAt is where a block starts: its offset and line (from 1).
type blockAt struct{ at, line int }

// heads indexes the lines of text that start with prefix and open a
// block of the name that name reads off the rest of the line (ok false:
// the line opens none), by name: the first such line of each, which is
// the one block finds for the name's head.
func heads(text, prefix string, name func(rest string) (string, bool)) map[string]blockAt {
	out := map[string]blockAt{}
	line, counted := 1, 0
	for i := 0; ; {
		j := strings.Index(text[i:], prefix)
		if j < 0 {
			return out
		}
		j += i
		i = j + len(prefix)
		if j > 0 && text[j-1] != '\n' {
			continue
		}
		n, ok := name(text[i:])
		if !ok || !identifier(n) {
			continue
		}
		if _, seen := out[n]; !seen {
			line += strings.Count(text[counted:j], "\n")
			counted = j
			out[n] = blockAt{j, line}
		}
	}
}

// AutoConverts are conversion-gen's autoConvert functions that convert
// type typ of the package named pkg into or out of another package
// (autoConvert_v1beta1_Shoot_To_core_Shoot and
// autoConvert_core_Shoot_To_v1beta1_Shoot), in the order of the text.
// Asking about many types of one file, use Files.AutoConverts, which
// finds the file's functions once.
func AutoConverts(text, pkg, typ string) []Block {
	return autoConvertsIn(text, autoConvertFuncs(text), pkg, typ)
}

// AutoConverts is AutoConverts of generated file p (read as Read
// reads it), whose autoConvert functions are found once: a conversion
// file holds the functions of every type of its package (Gardener's
// core/v1beta1 has hundreds), and the rules ask about its types one by
// one.
func (f *Files) AutoConverts(p, pkg, typ string) ([]Block, error) {
	key := f.answerKey(p, "convert", pkg, typ)
	if blocks, _, ok := f.recall(key); ok {
		return blocks, nil
	}
	blocks, err := f.autoConverts(p, pkg, typ)
	if err == nil {
		f.remember(key, blocks, true)
	}
	return blocks, err
}

func (f *Files) autoConverts(p, pkg, typ string) ([]Block, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text, err := f.read(p)
	if err != nil {
		return nil, err
	}
	fns, ok := f.converts[p]
	if !ok {
		fns = autoConvertFuncs(text)
		f.converts[p] = fns
	}
	return autoConvertsIn(text, fns, pkg, typ), nil
}

// convertFunc is an autoConvert function of a text: its name, and the
// offset and line (from 1) of the first line that declares it.
type convertFunc struct {
	name     string
	at, line int
}

// autoConvertsIn is AutoConverts with the text's autoConvert functions
// found (autoConvertFuncs).
func autoConvertsIn(text string, fns []convertFunc, pkg, typ string) []Block {
	from, to := "autoConvert_"+pkg+"_"+typ+"_To_", "_To_"+pkg+"_"+typ
	var out []Block
	for _, fn := range fns {
		if strings.HasPrefix(fn.name, from) || strings.HasSuffix(fn.name, to) {
			if b, ok := block(text[fn.at:], "func "+fn.name+"("); ok {
				b.Line += fn.line - 1
				out = append(out, b)
			}
		}
	}
	return out
}

// autoConvertFuncs are the functions the lines of text declare as
// "func autoConvert_<word characters>(", in order: what
// (?m)^func (autoConvert_\w+)\( matches, found with a substring search
// (a regular expression over a file of megabytes, once per type, was
// most of a Gardener release pair's time). A function declared twice is
// at its first declaration both times.
func autoConvertFuncs(text string) []convertFunc {
	var out []convertFunc
	first := map[string]int{} // name -> index in out
	line, counted := 1, 0     // the line of offset counted
	for name, at := range declaredFuncs(text, "autoConvert_") {
		line += strings.Count(text[counted:at], "\n")
		counted = at
		fn := convertFunc{name: name, at: at, line: line}
		if n, ok := first[name]; ok {
			fn = out[n]
		} else {
			first[name] = len(out)
		}
		out = append(out, fn)
	}
	return out
}

// declaredFuncs yields the functions the lines of text declare as
// "func <prefix><word characters>(", with the offset of their line, in
// order: the matches of (?m)^func (<prefix>\w+)\( for a prefix of word
// characters.
func declaredFuncs(text, prefix string) iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		head := "func " + prefix
		for i := 0; ; {
			j := strings.Index(text[i:], head)
			if j < 0 {
				return
			}
			j += i
			i = j + len(head)
			if j > 0 && text[j-1] != '\n' {
				continue
			}
			k := i
			for k < len(text) && isWordByte(text[k]) {
				k++
			}
			if k > i && k < len(text) && text[k] == '(' {
				if !yield(text[j+len("func "):k], j) {
					return
				}
				i = k + 1
			}
		}
	}
}

// isWordByte reports the bytes \w matches: ASCII letters, digits, _.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Mentions reports whether generated Go code reads or writes the field
// of the receiver or argument (in.Name, out.Name): deepcopy-gen copies
// every field that holds a reference that way, and conversion-gen
// converts every field, or says that it cannot (`// WARNING: in.Name
// requires manual conversion`).
func Mentions(b Block, field string) bool {
	if !identifier(field) {
		re := regexp.MustCompile(`\b(?:in|out)\.` + regexp.QuoteMeta(field) + `\b`)
		return re.MatchString(b.Text)
	}
	// \b(?:in|out)\.<field>\b, by substring search.
	text, dot := b.Text, "."+field
	for i := 0; ; {
		j := strings.Index(text[i:], dot)
		if j < 0 {
			return false
		}
		j += i
		i = j + 1
		if end := j + len(dot); end < len(text) && isWordByte(text[end]) {
			continue
		}
		for _, recv := range [...]string{"in", "out"} {
			k := j - len(recv)
			if k >= 0 && text[k:j] == recv && (k == 0 || !isWordByte(text[k-1])) {
				return true
			}
		}
	}
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

// OpenAPIDefines reports whether OpenAPI file p has definitions of types
// of the package importPath (Definitions.Defines), through the memo.
func (f *Files) OpenAPIDefines(p, importPath string) (bool, error) {
	key := f.answerKey(p, "openapi defines", importPath)
	if _, found, ok := f.recall(key); ok {
		return found, nil
	}
	d, err := f.OpenAPI(p)
	if err != nil {
		return false, err
	}
	found := d.Defines(importPath)
	f.remember(key, nil, found)
	return found, nil
}

// OpenAPISchema is the schema of type typ of the package importPath in
// OpenAPI file p (Definitions.Schema), through the memo.
func (f *Files) OpenAPISchema(p, importPath, typ string) (Block, bool, error) {
	key := f.answerKey(p, "openapi schema", importPath, typ)
	if blocks, found, ok := f.recall(key); ok {
		b, found := oneBlock(blocks, found)
		return b, found, nil
	}
	d, err := f.OpenAPI(p)
	if err != nil {
		return Block{}, false, err
	}
	b, found := d.Schema(importPath, typ)
	f.remember(key, []Block{b}, found)
	return b, found, nil
}

// ParseDefinitions indexes the definitions of an OpenAPI file's text:
// the lines `"<import path>.<Type>": schema_<name>(ref),` of the
// definitions map, and the schema functions. Both are found with
// substring searches, not regular expressions (Gardener's file is
// megabytes).
func ParseDefinitions(text string) *Definitions {
	d := &Definitions{text: text, schema: map[string]string{}, packages: map[string]bool{}, funcs: map[string]int{}}
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += i
		}
		if pkg, typ, fn, ok := definition(text, i); ok {
			d.schema[pkg+"."+typ] = fn
			d.packages[pkg] = true
		}
		i = end + 1
	}
	for name, at := range declaredFuncs(text, "schema_") {
		d.funcs[name] = at
	}
	return d
}

// definition reads a definition at line start i of text: what
// (?m)^\s*"([^"]+)\.([A-Za-z_]\w*)":\s*(schema_\w+)\(ref\),?$ matches
// there.
func definition(text string, i int) (pkg, typ, fn string, ok bool) {
	i = skipSpace(text, i)
	if i >= len(text) || text[i] != '"' {
		return "", "", "", false
	}
	q := strings.IndexByte(text[i+1:], '"')
	if q < 0 {
		return "", "", "", false
	}
	name := text[i+1 : i+1+q]
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || !identifier(name[dot+1:]) {
		return "", "", "", false
	}
	i += q + 2
	if i >= len(text) || text[i] != ':' {
		return "", "", "", false
	}
	i = skipSpace(text, i+1)
	rest := text[i:]
	if !strings.HasPrefix(rest, "schema_") {
		return "", "", "", false
	}
	k := len("schema_")
	for k < len(rest) && isWordByte(rest[k]) {
		k++
	}
	if k == len("schema_") {
		return "", "", "", false
	}
	after, found := strings.CutPrefix(rest[k:], "(ref)")
	if !found {
		return "", "", "", false
	}
	after = strings.TrimPrefix(after, ",")
	if after != "" && after[0] != '\n' {
		return "", "", "", false
	}
	return name[:dot], name[dot+1:], rest[:k], true
}

// skipSpace skips what \s matches from i: tabs, newlines, form feeds,
// carriage returns and spaces.
func skipSpace(text string, i int) int {
	for i < len(text) && strings.IndexByte("\t\n\f\r ", text[i]) >= 0 {
		i++
	}
	return i
}

// identifier reports a Go identifier of ASCII letters, digits and _.
func identifier(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
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
