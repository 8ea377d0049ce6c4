package lifecycle

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/par"
	"github.com/apicheck/apicheck/internal/protobuf"
	"github.com/apicheck/apicheck/internal/scan"
)

// The protobuf-number history answers "which fields of struct T in
// package directory D carried number N at some release tag" without
// scanning whole revisions:
//
//  1. one `git cat-file --batch` process resolves "<tag commit>:<dir>" for
//     every release tag and affected package directory straight to the
//     directory's tree object (a struct is followed by package directory
//     and type name, so moving a type between files does not matter);
//  2. each distinct Go file (blob) of those trees is judged once: most
//     files are the same from one release to the next. A blob judged by an
//     earlier run is read from the on-disk cache, keyed by its object id
//     (content-addressed, so an entry never goes stale);
//  3. the remaining blobs are read in one more batch and parsed in
//     parallel (syntax only); only struct type declarations and their
//     protobuf tags are kept.

// dirNumbers maps type name -> protobuf number -> Go field name for the
// structs of one file or package directory.
type dirNumbers map[string]map[int]string

// Holder is a field that carried a number at a release.
type Holder struct {
	Tag   string
	Field string
}

// ProtoNumbers is the protobuf-number history of some structs.
type ProtoNumbers struct {
	// Tags are the release tags consulted, newest first.
	Tags []string
	// byStruct maps dir -> type -> number -> holders (newest tag first).
	byStruct map[string]map[string]map[int][]Holder
}

// Holders returns the fields that carried number n in struct typ of
// package directory dir at a release tag, newest first.
func (h *ProtoNumbers) Holders(dir, typ string, n int) []Holder {
	return h.byStruct[dir][typ][n]
}

// Numbers returns every number struct typ of dir ever used at a release.
func (h *ProtoNumbers) Numbers(dir, typ string) []int {
	var out []int
	for n := range h.byStruct[dir][typ] {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// ProtoHistory returns the history of the given structs (package
// directory -> type names) over every release tag reachable from base. It
// runs once per History; later calls return the first result.
func (e *History) ProtoHistory(structs map[string][]string) (*ProtoNumbers, error) {
	if e.histDone {
		return e.hist, e.histErr
	}
	e.histDone = true
	rel, prob := e.Release()
	if prob != "" {
		e.histErr = fmt.Errorf("%s", prob)
		return nil, e.histErr
	}
	e.hist, e.histErr = protoHistory(e.in.Repo, rel.All, structs, newBlobCache(e.opts.CacheDir, e.in.Repo.Root))
	return e.hist, e.histErr
}

func protoHistory(repo *git.Repo, tags []git.Tag, structs map[string][]string, cache *blobCache) (*ProtoNumbers, error) {
	h := &ProtoNumbers{byStruct: map[string]map[string]map[int][]Holder{}}
	for _, t := range tags {
		h.Tags = append(h.Tags, t.Name)
	}
	dirs := make([]string, 0, len(structs))
	for d := range structs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	if len(tags) == 0 || len(dirs) == 0 {
		return h, nil
	}
	objects, err := repo.NewObjectReader()
	if err != nil {
		return nil, err
	}
	defer objects.Close()

	// 1. Each (tag, dir) to its tree.
	var names []string
	for _, t := range tags {
		for _, d := range dirs {
			names = append(names, t.Commit+":"+d)
		}
	}
	trees, err := objects.Get(names)
	if err != nil {
		return nil, fmt.Errorf("reading release trees: %w", err)
	}

	// 2. The Go blobs of every distinct tree; cached blobs are judged.
	treeBlobs := map[string][]string{}
	byBlob := map[string]dirNumbers{}
	var toRead []string
	for _, o := range trees {
		if o.Missing || o.Type != "tree" {
			continue
		}
		if _, ok := treeBlobs[o.OID]; ok {
			continue
		}
		entries, err := git.ParseTree(o.Data, len(o.OID)/2)
		if err != nil {
			return nil, fmt.Errorf("tree %s: %w", o.OID, err)
		}
		var bs []string
		for _, en := range entries {
			if (en.Mode != "100644" && en.Mode != "100755") || !scan.Scannable(en.Name) {
				continue
			}
			bs = append(bs, en.OID)
			if _, ok := byBlob[en.OID]; ok {
				continue
			}
			if dn, ok := cache.get(en.OID); ok {
				byBlob[en.OID] = dn
				continue
			}
			byBlob[en.OID] = nil // claimed: read below
			toRead = append(toRead, en.OID)
		}
		treeBlobs[o.OID] = bs
	}

	// 3. Read and parse the other blobs, in parallel.
	if len(toRead) > 0 {
		objs, err := objects.Get(toRead)
		if err != nil {
			return nil, fmt.Errorf("reading release files: %w", err)
		}
		parsed, err := par.Map(len(objs), func(i int) (dirNumbers, error) {
			if objs[i].Missing {
				return nil, nil
			}
			return structNumbers(objs[i].Data), nil
		})
		if err != nil {
			return nil, err
		}
		for i, b := range toRead {
			byBlob[b] = parsed[i]
			if !objs[i].Missing {
				cache.put(b, parsed[i])
			}
		}
	}

	// 4. The history of the wanted structs, newest tag first.
	i := 0
	for _, t := range tags {
		for _, d := range dirs {
			o := trees[i]
			i++
			if o.Missing || o.Type != "tree" {
				continue
			}
			for _, b := range treeBlobs[o.OID] {
				for _, typ := range structs[d] {
					for n, f := range byBlob[b][typ] {
						if h.byStruct[d] == nil {
							h.byStruct[d] = map[string]map[int][]Holder{}
						}
						if h.byStruct[d][typ] == nil {
							h.byStruct[d][typ] = map[int][]Holder{}
						}
						h.byStruct[d][typ][n] = append(h.byStruct[d][typ][n], Holder{Tag: t.Name, Field: f})
					}
				}
			}
		}
	}
	return h, nil
}

// structNumbers parses one Go file and returns the protobuf numbers of its
// struct types' fields. A file that does not parse contributes nothing.
func structNumbers(src []byte) dirNumbers {
	if !bytes.Contains(src, []byte("protobuf:")) {
		return nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	out := dirNumbers{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fld := range st.Fields.List {
				if fld.Tag == nil {
					continue
				}
				tag, err := strconv.Unquote(fld.Tag.Value)
				if err != nil {
					continue
				}
				pt, ok, err := protobuf.FromStructTag(tag)
				if !ok || err != nil || pt == nil {
					continue
				}
				name := embeddedName(fld.Type)
				if len(fld.Names) > 0 {
					name = fld.Names[0].Name
				}
				if out[ts.Name.Name] == nil {
					out[ts.Name.Name] = map[int]string{}
				}
				out[ts.Name.Name][pt.Number] = name
			}
		}
	}
	return out
}

func embeddedName(x ast.Expr) string {
	switch t := x.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// blobCache stores judged Go files on disk, under the user's cache
// directory (never inside the repository). An entry is a header line and
// one "<type> <number> <field>" line per protobuf-tagged field.
type blobCache struct {
	dir string // "" = disabled
}

// cacheVersion changes whenever what an entry holds changes.
const cacheVersion = "apicheck-protohist-v1"

func newBlobCache(configured, repoRoot string) *blobCache {
	if configured == "-" {
		return &blobCache{}
	}
	dir := configured
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil || base == "" {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "apicheck")
	}
	abs, err := filepath.Abs(filepath.Join(dir, cacheVersion))
	if err != nil {
		return &blobCache{}
	}
	if r, err := filepath.Abs(repoRoot); err == nil && (abs == r || strings.HasPrefix(abs, r+string(filepath.Separator))) {
		return &blobCache{} // never write into the repository
	}
	return &blobCache{dir: abs}
}

func (c *blobCache) path(oid string) string {
	return filepath.Join(c.dir, oid[:2], oid[2:])
}

func (c *blobCache) get(oid string) (dirNumbers, bool) {
	if c.dir == "" || len(oid) < 4 {
		return nil, false
	}
	data, err := os.ReadFile(c.path(oid))
	if err != nil {
		return nil, false
	}
	header, rest, ok := strings.Cut(string(data), "\n")
	if !ok || header != cacheVersion {
		return nil, false
	}
	dn := dirNumbers{}
	for _, line := range strings.Split(rest, "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, false
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, false
		}
		if dn[f[0]] == nil {
			dn[f[0]] = map[int]string{}
		}
		dn[f[0]][n] = f[2]
	}
	return dn, true
}

// put stores an entry atomically; a failure only costs a later parse.
func (c *blobCache) put(oid string, dn dirNumbers) {
	if c.dir == "" || len(oid) < 4 {
		return
	}
	var b strings.Builder
	b.WriteString(cacheVersion + "\n")
	for typ, nums := range dn {
		for n, f := range nums {
			fmt.Fprintf(&b, "%s %d %s\n", typ, n, f)
		}
	}
	p := c.path(oid)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(b.String())
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}
