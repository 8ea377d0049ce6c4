// Package notes drafts release-note stubs from an API diff and its
// findings, in the format Gardener's pull requests use: fenced blocks whose
// info string is "<category> <audience>", e.g.
//
//	```breaking user
//	`Shoot`: field `.spec.foo` was removed.
//	```
//
// Every line names the API kind (the first segment of the JSON path from a
// root kind; for types no kind reaches, the Go type) and the JSON path
// below it. The result is a stub for a human to edit, not a finished note.
package notes

import (
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/apicheck/apicheck/internal/config"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
)

// Categories and audiences of Gardener's release notes, in output order.
var (
	Categories = []string{"breaking", "noteworthy", "feature", "bugfix", "doc", "other"}
	Audiences  = []string{"user", "operator", "developer", "dependency"}
)

// Options configure the release notes.
type Options struct {
	// ReleaseNotes holds the configured audiences, which come before the
	// profile's defaults (see Audience).
	ReleaseNotes config.ReleaseNotes
}

// NoChanges says why the release note is the None block.
const NoChanges = "There are no API changes that need a release note."

// None is the block Gardener's pull request template asks for when a
// change needs no release note ("If no release note is required, just
// write "NONE" within the block"), in the template's own block header.
const None = "```other operator\nNONE\n```\n"

// Block is one fenced release-note block.
type Block struct {
	Category string
	Audience string
	// Lines are sorted and unique.
	Lines []string
}

// key identifies one noted change independently of the API version it
// was seen in, so that a field changed in several versions gives one line.
type key struct {
	category, audience, dir, subject, change string
}

type entry struct {
	version string
	line    string
}

type generator struct {
	entries map[key]entry
	diff    *model.Diff
	opts    Options
	// goOnlyFields and goOnlyTypes are the fields and types a finding says
	// changed for Go clients only; typeJudged the fields whose Go type
	// change FIELD_TYPE_CHANGED judged otherwise (the wire changed, or Go
	// clients keep compiling, as with an alias of the old name).
	goOnlyFields, typeJudged map[*model.FieldDiff]bool
	goOnlyTypes              map[*model.TypeDiff]bool
}

func (g *generator) add(k key, version, line string) {
	if old, ok := g.entries[k]; ok && model.CompareVersions(version, old.version) <= 0 {
		return
	}
	g.entries[k] = entry{version: version, line: line}
}

// Generate drafts the release notes of a diff. Only external versions
// count. Removed fields and types are "breaking"; so are fields and types
// that existed at base and still exist at head about which an
// unsuppressed error finding of a rule with a ReleaseNote (of rs, the
// rule catalogue) reports an incompatible change, in that rule's words.
// New fields and kinds are "feature" (a new field whose type is a new
// struct is noted by the leaf fields below it), newly deprecated fields
// "noteworthy" (the replacement their Deprecated: paragraph names is
// quoted). Go-only changes, which keep the wire format (renames, a type
// swapped for one of the same wire shape, pointer-ness, a type's
// declaration changed within its wire shape, a version package moved to
// another import path), are "breaking developer": each change that a
// finding says breaks Go clients and not the wire, whatever its severity
// or suppression (a suppression accepts the change, Go clients still
// break), and each such change that no finding judges; every other line
// goes to the audience of its group and kind (see Audience). Lines about
// fields and types removed, renamed or changed name them by their path at
// base, the one their users know; lines about a new or removed field
// carry the first sentence of its doc comment, and a removal the
// replacement its Deprecated: paragraph named. Findings of process rules
// (versions, tombstones, lifecycle) are not release notes.
func Generate(d *model.Diff, fs []finding.Finding, rs []*rules.Rule, o Options) []Block {
	incompatible := map[string]*rules.Rule{}
	for _, r := range rs {
		if r.ReleaseNote != nil {
			incompatible[r.ID] = r
		}
	}
	g := &generator{entries: map[key]entry{}, diff: d, opts: o,
		goOnlyFields: map[*model.FieldDiff]bool{}, typeJudged: map[*model.FieldDiff]bool{}, goOnlyTypes: map[*model.TypeDiff]bool{}}
	var pkgs []*model.PackageDiff
	fields := map[string]*model.FieldDiff{}
	typesByKey := map[string]*model.TypeDiff{}
	for _, gd := range d.Groups {
		for _, pd := range gd.Packages {
			if !pd.External() {
				continue
			}
			pkgs = append(pkgs, pd)
			for _, td := range pd.Types {
				typesByKey[pd.Pkg().ImportPath+"\x00"+td.Name()] = td
				if td.Base == nil || td.Head == nil {
					continue
				}
				for _, fd := range td.Fields {
					fields[pd.Pkg().ImportPath+"\x00"+td.Name()+"\x00"+fd.Name()] = fd
				}
			}
		}
	}
	// What the findings say breaks only Go clients.
	for i := range fs {
		f := &fs[i]
		if f.Type == "" {
			continue
		}
		if f.Field == "" {
			if td := typesByKey[f.Package+"\x00"+f.Type]; td != nil && f.Rule == rules.TypeUnderlyingChanged.ID && goOnlyMessage(f.Message) {
				g.goOnlyTypes[td] = true
			}
			continue
		}
		fd := fields[f.Package+"\x00"+f.Type+"\x00"+f.Field]
		switch {
		case fd == nil:
		case goOnlyMessage(f.Message):
			g.goOnlyFields[fd] = true
		case f.Rule == rules.FieldTypeChanged.ID && fd.Has(model.AttrGoType):
			g.typeJudged[fd] = true
		}
	}
	for _, pd := range pkgs {
		gd := pd.Group
		if pd.Base == nil || pd.Head == nil {
			// A version package added or removed as a whole is one
			// note per audience, not one per kind and field.
			g.versionChange(gd, pd)
			continue
		}
		g.packageMove(gd, pd)
		pp := newPaths(pd)
		for _, td := range pd.Types {
			g.typeChange(gd, pd, pp, td)
			switch {
			case td.Base == nil || td.Head == nil:
				continue // fields of new types come with the field that uses them
			case td.Base.Alias || td.Head.Alias:
				// An alias has the fields of the type it names, noted
				// there; what it names is TYPE_UNDERLYING_CHANGED's.
				continue
			}
			for _, fd := range td.Fields {
				g.fieldChange(gd, pd, pp, fd)
			}
		}
	}
	// Incompatible changes of existing fields and types, as judged by the
	// rules (errors only, suppressed findings excluded). Go-only changes
	// have their developer note instead.
	details := map[*model.FieldDiff][]string{}
	typeDetails := map[*model.TypeDiff][]string{}
	for i := range fs {
		f := &fs[i]
		rule := incompatible[f.Rule]
		if f.Suppressed != "" || f.Severity != finding.Error || f.Type == "" || rule == nil || goOnlyMessage(f.Message) {
			continue
		}
		if f.Field == "" {
			td := typesByKey[f.Package+"\x00"+f.Type]
			if td != nil && td.Base != nil && td.Head != nil && !td.Renamed {
				typeDetails[td] = append(typeDetails[td], rule.ReleaseNote(nil))
			}
			continue
		}
		fd := fields[f.Package+"\x00"+f.Type+"\x00"+f.Field]
		if fd == nil || fd.Base == nil || fd.Head == nil || !changed(fd) || g.goOnly(fd) {
			continue
		}
		details[fd] = append(details[fd], rule.ReleaseNote(fd))
	}
	for fd, ds := range details {
		td := fd.Type
		pd := td.Pkg
		gd := pd.Group
		pp := newPaths(pd)
		kind, rel := pp.oldField(td.BaseName(), fd.Base)
		line := fmt.Sprintf("`%s`: field `%s` changed incompatibly: %s.", kind, rel, strings.Join(slices.Compact(slices.Sorted(slices.Values(ds))), "; "))
		g.add(key{"breaking", g.audience(gd, kind), gd.Dir, td.Name() + "." + fd.Name(), "changed"}, pd.Version, line)
	}
	for td, ds := range typeDetails {
		pd := td.Pkg
		gd := pd.Group
		kind, rel := newPaths(pd).oldTyp(td.Base.Name)
		subject := fmt.Sprintf("type `%s`", td.Base.Name)
		if rel != "" {
			subject += fmt.Sprintf(" (`%s`)", rel)
		}
		line := fmt.Sprintf("`%s`: %s changed incompatibly: %s.", kind, subject, strings.Join(slices.Compact(slices.Sorted(slices.Values(ds))), "; "))
		g.add(key{"breaking", g.audience(gd, kind), gd.Dir, td.Name(), "changed"}, pd.Version, line)
	}
	return g.blocks()
}

// goOnlyMarker is how the rules' messages say that a change breaks Go
// clients and not the wire: "(Go clients break, the wire does not)",
// "(Go clients that import example.com/a/v1 break, the wire does not)",
// "(Go code that sets the field breaks)" for a component configuration
// whose files still load. A message that leaves the wire open ("Go
// clients break; apicheck does not read the methods' code") is no such
// message.
var goOnlyMarker = lazyre.New(`\((?:Go clients(?: that import [^ ()]+)? break, the wire does not|Go code that sets the field breaks)\)`)

// goOnlyMessage reports whether a finding's message says its change
// breaks Go clients only.
func goOnlyMessage(msg string) bool { return goOnlyMarker.MatchString(msg) }

// Audience is the audience of a note about a kind of a group: the first
// configured entry (releaseNotes.audiences) that matches the group and
// kind, else the profile's default. Component configurations are read
// by operators. In the gardener profile the extension contract (a group
// whose name or directory says "extensions") is for developers of
// extensions, the operator API (operator.gardener.cloud) and the kinds
// that run Gardener itself (Garden, Seed, ManagedSeed, BackupBucket,
// ControllerRegistration, ...) are for operators, everything else (Shoot,
// Project, SecretBinding, CredentialsBinding, Quota, ...) for users. The
// kubernetes and crd profiles write for users.
func Audience(gd *model.GroupDiff, kind string, rn config.ReleaseNotes) string {
	name := groupName(gd)
	if a := rn.AudienceFor(name, gd.Dir, kind); a != "" {
		return a
	}
	switch gd.Profile() {
	case model.ProfileComponentConfig:
		return "operator"
	case model.ProfileGardener:
		switch {
		case strings.Contains(name, "extensions") || strings.Contains(gd.Dir, "extensions"):
			return "developer"
		case strings.HasPrefix(name, "operator.") || name == "" && path.Base(gd.Dir) == "operator":
			return "operator"
		case gardenerOperatorKinds[kind]:
			return "operator"
		}
	}
	return "user"
}

// gardenerOperatorKinds are the kinds of Gardener's own API that the
// operators of a Gardener installation read and write.
var gardenerOperatorKinds = map[string]bool{
	"Garden": true, "Gardenlet": true, "Seed": true, "ManagedSeed": true, "ManagedSeedSet": true,
	"BackupBucket": true, "BackupEntry": true, "ControllerRegistration": true, "ControllerDeployment": true,
	"ControllerInstallation": true, "CloudProfile": true, "ExposureClass": true, "ShootState": true,
	"InternalSecret": true, "Extension": true,
}

func (g *generator) audience(gd *model.GroupDiff, kind string) string {
	return Audience(gd, kind, g.opts.ReleaseNotes)
}

// groupName is the API group's name (+groupName), "" when unknown.
func groupName(gd *model.GroupDiff) string {
	for _, pd := range gd.Packages {
		if n := pd.Pkg().GroupName; n != "" {
			return n
		}
	}
	for _, grp := range []*model.Group{gd.Head, gd.Base} {
		if grp != nil && grp.Name != "" {
			return grp.Name
		}
	}
	return ""
}

// changed reports whether a field pair differs in anything but its
// deprecation.
func changed(fd *model.FieldDiff) bool {
	for _, a := range fd.Attrs {
		if a != model.AttrDeprecated {
			return true
		}
	}
	return false
}

// goOnly reports whether a paired field changed only for Go clients: a
// finding says so, or (for a change no finding tells apart) its Go type
// (keeping the wire shape) or its embedding changed, and nothing but its
// Go name and deprecation besides.
func (g *generator) goOnly(fd *model.FieldDiff) bool {
	return g.goOnlyFields[fd] || g.goOnlyShape(fd)
}

// goOnlyShape is goOnly by the field pair alone: its Go type changed
// within the wire shape (unless FIELD_TYPE_CHANGED judged the change
// otherwise) or its embedding did, and nothing but its Go name and
// deprecation besides.
func (g *generator) goOnlyShape(fd *model.FieldDiff) bool {
	if !fd.Has(model.AttrGoType) && !fd.Has(model.AttrEmbedded) {
		return false
	}
	for _, a := range fd.Attrs {
		switch a {
		case model.AttrGoName, model.AttrGoType, model.AttrEmbedded, model.AttrDeprecated:
		default:
			return false
		}
	}
	if !fd.Has(model.AttrGoType) {
		return true
	}
	return !g.typeJudged[fd] && rules.WireShapeKept(g.diff, fd)
}

// packageMove notes a version package that kept its API group and
// version but moved to another Go import path (its group moved to
// another directory, or the version to another group's directory): the
// wire is the same, Go code that imports the old path breaks.
func (g *generator) packageMove(gd *model.GroupDiff, pd *model.PackageDiff) {
	from, to := pd.Base.ImportPath, pd.Head.ImportPath
	if from == to || from == "" || to == "" {
		return
	}
	g.add(key{"breaking", "developer", gd.Dir, "@" + pd.Version, "package moved"}, pd.Version,
		fmt.Sprintf("Go package `%s` (`%s`) moved to `%s` (the wire format is unchanged).", from, groupVersion(gd, pd), to))
}

// versionChange notes a version package that is new at head or gone at
// head, with its kinds, one line per audience of those kinds.
func (g *generator) versionChange(gd *model.GroupDiff, pd *model.PackageDiff) {
	pkg, category, what := pd.Head, "feature", "kind added"
	if pd.Head == nil {
		pkg, category, what = pd.Base, "breaking", "kind removed"
	}
	byAudience := map[string][]string{}
	for _, t := range pkg.Types {
		if t.RootKind && !strings.HasSuffix(t.Name, "List") {
			a := g.audience(gd, t.Name)
			byAudience[a] = append(byAudience[a], "`"+t.Name+"`")
		}
	}
	if len(byAudience) == 0 {
		byAudience[g.audience(gd, "")] = nil
	}
	gv := groupVersion(gd, pd)
	for a, kinds := range byAudience {
		slices.Sort(kinds)
		var line string
		switch {
		case pd.Head != nil && len(kinds) > 0:
			line = fmt.Sprintf("New API version `%s` with %s %s.", gv, plural(len(kinds), "kind", "kinds"), strings.Join(kinds, ", "))
		case pd.Head != nil:
			line = fmt.Sprintf("New API version `%s`.", gv)
		case len(kinds) > 0:
			line = fmt.Sprintf("API version `%s` was removed, with %s %s.", gv, plural(len(kinds), "kind", "kinds"), strings.Join(kinds, ", "))
		default:
			line = fmt.Sprintf("API version `%s` was removed.", gv)
		}
		g.add(key{category, a, gd.Dir, "@" + pd.Version, "version " + what}, pd.Version, line)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (g *generator) typeChange(gd *model.GroupDiff, pd *model.PackageDiff, pp paths, td *model.TypeDiff) {
	switch {
	case td.Base == nil:
		t := td.Head
		if t.RootKind && !strings.HasSuffix(t.Name, "List") {
			g.add(key{"feature", g.audience(gd, t.Name), gd.Dir, t.Name, "kind added"}, pd.Version,
				fmt.Sprintf("`%s`: new kind in `%s`.", t.Name, groupVersion(gd, pd)))
		}
	case td.Head == nil:
		t := td.Base
		if t.RootKind {
			if strings.HasSuffix(t.Name, "List") && pd.Base.Type(strings.TrimSuffix(t.Name, "List")) != nil {
				return // noted with its kind
			}
			// Per version: removing a kind from one version is its own note.
			g.add(key{"breaking", g.audience(gd, t.Name), gd.Dir, t.Name + "@" + pd.Version, "kind removed"}, pd.Version,
				fmt.Sprintf("`%s`: kind was removed from `%s`.", t.Name, groupVersion(gd, pd)))
			return
		}
		kind, rel := pp.oldTyp(t.Name)
		line := fmt.Sprintf("`%s`: type was removed", kind)
		if kind != t.Name {
			line = fmt.Sprintf("`%s`: type `%s` (`%s`) was removed", kind, t.Name, rel)
		}
		g.add(key{"breaking", g.audience(gd, kind), gd.Dir, t.Name, "type removed"}, pd.Version, removedLine(line, t.Doc))
	case td.Renamed:
		kind, rel := pp.oldTyp(td.Base.Name)
		subject := fmt.Sprintf("Go type `%s`", td.Base.Name)
		if kind != td.Base.Name {
			subject = fmt.Sprintf("`%s`: Go type `%s` (`%s`)", kind, td.Base.Name, rel)
		}
		g.add(key{"breaking", "developer", gd.Dir, td.Base.Name, "type renamed"}, pd.Version,
			fmt.Sprintf("%s was renamed to `%s` in `%s` (the wire format is unchanged).", subject, td.Head.Name, groupVersion(gd, pd)))
	case g.goOnlyTypes[td]:
		kind, rel := pp.oldTyp(td.Base.Name)
		if kind == td.Base.Name {
			kind, rel = pp.user(pd.Base, td.Base.Name)
		}
		subject := fmt.Sprintf("Go type `%s`", td.Base.Name)
		if kind != td.Base.Name {
			subject = fmt.Sprintf("`%s`: Go type `%s` (`%s`)", kind, td.Base.Name, rel)
		}
		g.add(key{"breaking", "developer", gd.Dir, td.Base.Name, "declaration changed"}, pd.Version,
			fmt.Sprintf("%s changed from `%s` to `%s` (the wire format is unchanged).", subject, declaration(td.Base), declaration(td.Head)))
	}
}

// declaration is what a type is declared as: its underlying type
// expression, or its kind ("struct", "interface") without one.
func declaration(t *model.Type) string {
	if t.Underlying != "" {
		return t.Underlying
	}
	return string(t.Kind)
}

func (g *generator) fieldChange(gd *model.GroupDiff, pd *model.PackageDiff, pp paths, fd *model.FieldDiff) {
	td := fd.Type
	f := fd.Head
	if f == nil {
		f = fd.Base
	}
	if f.Inline() || f.JSON.Name == "-" {
		return
	}
	subject := td.Name() + "." + fd.Name()
	switch {
	case fd.Base == nil:
		kind, rel := pp.field(td.Name(), f)
		aud := g.audience(gd, kind)
		for _, l := range addedLeaves(pd, f, rel) {
			what := "field"
			if l.field.Optional() {
				what = "optional field"
			}
			line := fmt.Sprintf("`%s`: new %s `%s`.", kind, what, l.path)
			if l.more > 0 {
				line = fmt.Sprintf("`%s`: new %s `%s` with %d fields.", kind, what, l.path, l.more)
			}
			if s := firstSentence(l.field.Doc); s != "" {
				line += " " + s
			}
			g.add(key{"feature", aud, gd.Dir, td.Name() + "." + l.goPath, "added"}, pd.Version, line)
		}
	case fd.Head == nil:
		kind, rel := pp.oldField(td.BaseName(), f)
		g.add(key{"breaking", g.audience(gd, kind), gd.Dir, td.Name() + "." + f.Name, "removed"}, pd.Version,
			removedLine(fmt.Sprintf("`%s`: field `%s` was removed", kind, rel), f.Doc))
	default:
		kind, rel := pp.field(td.Name(), fd.Head)
		if fd.Has(model.AttrDeprecated) {
			aud := g.audience(gd, kind)
			if fd.Head.Deprecated {
				line := fmt.Sprintf("`%s`: field `%s` is deprecated.", kind, rel)
				if text := deprecationText(fd.Head.Doc); text != "" {
					line += " " + text
				}
				g.add(key{"noteworthy", aud, gd.Dir, subject, "deprecated"}, pd.Version, line)
			} else {
				g.add(key{"noteworthy", aud, gd.Dir, subject, "undeprecated"}, pd.Version,
					fmt.Sprintf("`%s`: field `%s` is no longer deprecated.", kind, rel))
			}
		}
		// Go-only lines name the field as Go code knew it, at base.
		kind, rel = pp.oldField(td.BaseName(), fd.Base)
		if fd.Has(model.AttrGoName) && !fd.Has(model.AttrJSONName) {
			g.add(key{"breaking", "developer", gd.Dir, td.Name() + "." + fd.Base.Name, "go renamed"}, pd.Version,
				fmt.Sprintf("`%s`: Go field `%s.%s` (`%s`) was renamed to `%s` (the wire format is unchanged).", kind, td.BaseName(), fd.Base.Name, rel, fd.Head.Name))
		}
		if g.goOnly(fd) {
			goName := td.BaseName() + "." + fd.Base.Name
			from, to := fd.Base.Type, fd.Head.Type
			if from == to && fd.Base.TypeID != fd.Head.TypeID {
				// The same spelling names a type of another package.
				from, to = fd.Base.TypeID, fd.Head.TypeID
			}
			line := fmt.Sprintf("`%s`: Go type of field `%s` (`%s`) changed from `%s` to `%s` (the wire format is unchanged).",
				kind, goName, rel, from, to)
			if !fd.Has(model.AttrGoType) {
				how := "is now embedded"
				if !fd.Head.Embedded {
					how = "is no longer embedded"
				}
				line = fmt.Sprintf("`%s`: Go field `%s` (`%s`) %s (the wire format is unchanged).", kind, goName, rel, how)
			}
			g.add(key{"breaking", "developer", gd.Dir, subject, "go type changed"}, pd.Version, line)
		}
	}
}

// removedLine ends the line about a removed field or type (stmt, without
// its period) with the replacement its Deprecated: paragraph named and
// the first sentence of its doc comment: "`Shoot`: field `.spec.foo` was
// removed; use `.spec.bar` instead. Foo is the foo."
func removedLine(stmt, doc string) string {
	if r := replacement(doc); r != "" {
		stmt += "; " + r
	}
	stmt += "."
	if s := firstSentence(doc); s != "" {
		stmt += " " + s
	}
	return stmt
}

// maxLeaves is how many leaf fields of a new struct are named one by one;
// a bigger new struct is named as one field.
const maxLeaves = 8

// leaf is a field that a new field brings: its JSON path below the kind,
// its Go path below the type that got the new field, and for a struct
// named as a whole (too many fields), how many fields it has.
type leaf struct {
	field  *model.Field
	path   string
	goPath string
	more   int
}

// addedLeaves are the fields a new field f (JSON path rel) adds: f itself,
// or, when f's type is a struct that is new in this change, the leaf
// fields below it (through further new structs): a reader wants to know
// `.spec.controlPlane.zones.allowZonePinning`, not only `.zones`.
func addedLeaves(pd *model.PackageDiff, f *model.Field, rel string) []leaf {
	self := []leaf{{field: f, path: rel, goPath: f.Name}}
	leaves, ok := newStructLeaves(pd, f, rel, f.Name, map[string]bool{})
	switch {
	case !ok || len(leaves) == 0:
		return self
	case len(leaves) > maxLeaves:
		self[0].more = len(leaves)
		return self
	}
	return leaves
}

// newStructLeaves returns the leaf fields below f when its type is a
// struct (or a pointer to one) of the package that base does not have; ok
// is false when f's type is no such struct, or the struct has a member
// that cannot be named on its own (inlined from an existing type).
func newStructLeaves(pd *model.PackageDiff, f *model.Field, rel, goPath string, seen map[string]bool) ([]leaf, bool) {
	if strings.HasPrefix(strings.TrimLeft(f.Type, "*"), "[") || strings.HasPrefix(strings.TrimLeft(f.Type, "*"), "map[") {
		return nil, false // a new list or map is the feature, not its entries' fields
	}
	name := model.LocalTypeName(f.Type)
	if name == "" || pd.Head == nil || seen[name] {
		return nil, false
	}
	t := pd.Head.Type(name)
	if t == nil || t.Kind != model.KindStruct || !newType(pd, name) {
		return nil, false
	}
	seen[name] = true
	defer delete(seen, name)
	var out []leaf
	for _, c := range t.Fields {
		if c.JSON.Name == "-" {
			continue
		}
		cpath, cgo := rel, goPath+"."+c.Name
		if !c.Inline() {
			cpath += "." + c.WireName()
		}
		if sub, ok := newStructLeaves(pd, c, cpath, cgo, seen); ok {
			out = append(out, sub...)
			continue
		}
		if c.Inline() {
			return nil, false
		}
		out = append(out, leaf{field: c, path: cpath, goPath: cgo})
	}
	return out, true
}

// newType reports whether the head type name of a package pair is new in
// this change (not renamed from a base type).
func newType(pd *model.PackageDiff, name string) bool {
	for _, td := range pd.Types {
		if td.Head != nil && td.Head.Name == name {
			return td.Base == nil
		}
	}
	return false
}

// deprecationText returns the text of a doc comment's deprecation
// notice on one line, with the replacement it names quoted as code: the
// paragraph from the first line that says the field is deprecated, in
// any of the styles the scan reads as one (scan.DeprecationLine: Go's
// "Deprecated: use x", "Deprecated, use x", "DEPRECATED - use x"), after
// its leading word.
func deprecationText(doc string) string {
	lines := strings.Split(doc, "\n")
	start := slices.IndexFunc(lines, scan.DeprecationLine)
	if start < 0 {
		return ""
	}
	var para []string
	for _, l := range lines[start:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		para = append(para, l)
	}
	first := strings.TrimSpace(para[0])
	para[0] = strings.TrimLeft(first[len("deprecated"):], ":.,;!-\u2013\u2014 \t")
	text := strings.Join(strings.Fields(strings.Join(para, " ")), " ")
	if text != "" && !strings.HasSuffix(text, ".") {
		text += "."
	}
	return quoteReplacement(text)
}

// replacementRe finds where a deprecation names what to use instead: "use
// X instead", "please use X", "in favo(u)r of X". X is what follows, up
// to " instead" or the end of the sentence.
var replacementRe = lazyre.New(`(?i)\b(?:please\s+use|use|in\s+favou?r\s+of)\s+`)

// replacementLead are words before the replacement's name ("use the new
// field X instead").
var replacementLead = lazyre.New(`(?i)^(?:the\s+)?(?:new\s+)?(?:field\s+|fields\s+)?`)

// quoteReplacement puts the name of the replacement that a deprecation
// text names in backticks: "Use .spec.network instead." becomes "Use
// `.spec.network` instead.". A replacement of several words is left alone
// (it is prose), and so is a text that names none.
func quoteReplacement(text string) string {
	start, end, name, quoted := findReplacement(text)
	if name == "" || quoted {
		return text
	}
	return text[:start] + "`" + name + "`" + text[end:]
}

// findReplacement finds the name of the replacement a deprecation text
// names: text[start:end] is the name as written (perhaps in quotes),
// name the name itself, quoted whether the text already has it in
// backticks. name is "" when the text names none.
func findReplacement(text string) (start, end int, name string, quoted bool) {
	for _, loc := range replacementRe.FindAllStringIndex(text, -1) {
		verb := strings.ToLower(strings.Join(strings.Fields(text[loc[0]:loc[1]]), " "))
		rest := text[loc[1]:]
		phrase := rest[:sentenceEnd(rest)]
		if i := strings.Index(strings.ToLower(phrase), " instead"); i >= 0 {
			phrase = phrase[:i]
		} else if verb == "use" {
			continue // "use X" without "instead" is no replacement ("do not use this field")
		}
		lead := replacementLead.FindString(phrase)
		token := strings.TrimRight(phrase[len(lead):], ",;:)")
		name := strings.Trim(token, `'"`)
		switch {
		case name == "" || strings.ContainsAny(name, " \t"):
			continue // prose, not a name
		case strings.Contains(name, "`"):
			return loc[1] + len(lead), loc[1] + len(lead) + len(token), strings.Trim(name, "`"), true
		}
		return loc[1] + len(lead), loc[1] + len(lead) + len(token), name, false
	}
	return 0, 0, "", false
}

// replacement is what a doc comment's deprecation notice says to use
// instead, for the note about the removal: "use `spec.foo` instead" for
// "Deprecated: use spec.foo instead", "please use spec.foo" and "in favor
// of spec.foo" alike; "" when it names none.
func replacement(doc string) string {
	_, _, name, _ := findReplacement(deprecationText(doc))
	if name == "" {
		return ""
	}
	return "use `" + name + "` instead"
}

// firstSentence is the first sentence of a doc comment, on one line: of
// its first paragraph, up to a period followed by a space or the end of
// the paragraph, with the period. The marker lines (+optional, ...) are
// no part of it, nor is a deprecation notice, tag lines such as
// "<gateway:experimental>", or what follows a "---" line (Kubernetes'
// generators leave that out of the API documentation). "" when the doc
// comment has no such text.
func firstSentence(doc string) string {
	var para []string
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "---" || scan.DeprecationLine(t):
			return sentence(para)
		case t == "" && len(para) > 0:
			return sentence(para)
		case t == "", strings.HasPrefix(t, "+"), strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">"):
			continue
		}
		para = append(para, t)
	}
	return sentence(para)
}

// sentence is the first sentence of a paragraph's lines; an abbreviation
// ("e.g.", "i.e.") ends none.
func sentence(lines []string) string {
	text := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	for off := 0; off < len(text); {
		i := sentenceEnd(text[off:])
		end := off + i
		if end >= len(text) {
			break
		}
		if text[end] == '.' && !abbreviation(text[:end+1]) {
			return text[:end+1]
		}
		off = end + 1
	}
	if text != "" && !strings.HasSuffix(text, ".") {
		text += "."
	}
	return text
}

// abbreviations end with a period that ends no sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "incl."}

// abbreviation reports whether text ends with an abbreviation.
func abbreviation(text string) bool {
	lower := strings.ToLower(text)
	for _, a := range abbreviations {
		if strings.HasSuffix(lower, a) && (len(lower) == len(a) || !isLetter(lower[len(lower)-len(a)-1])) {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// sentenceEnd is the index where the sentence that starts s ends: at ". "
// (a period before a space) or the end of s; a period inside a path such
// as ".spec.network" does not end it.
func sentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == ';') && (i+1 == len(s) || s[i+1] == ' ') {
			return i
		}
	}
	return len(s)
}

func groupVersion(gd *model.GroupDiff, pd *model.PackageDiff) string {
	name := pd.Pkg().GroupName
	if name == "" {
		for _, g := range []*model.Group{gd.Head, gd.Base} {
			if g != nil && g.Name != "" {
				name = g.Name
				break
			}
		}
	}
	if name == "" {
		return gd.Dir + "/" + pd.Version
	}
	return name + "/" + pd.Version
}

// paths gives JSON paths of the types of one package pair: head's paths
// first, base's for types that only base has.
type paths struct {
	head, base map[string]string
}

func newPaths(pd *model.PackageDiff) paths {
	var p paths
	if pd.Head != nil {
		p.head = pd.Head.APIPaths()
	}
	if pd.Base != nil {
		p.base = pd.Base.APIPaths()
	}
	return p
}

func (p paths) full(typ string) string {
	if s, ok := p.head[typ]; ok {
		return s
	}
	if s, ok := p.base[typ]; ok {
		return s
	}
	return typ
}

// typ splits a type's path into kind and the path below it ("" for the
// kind itself or an unreachable type).
func (p paths) typ(name string) (kind, rel string) {
	full := p.full(name)
	kind, rest, _ := strings.Cut(full, ".")
	if rest != "" {
		rest = "." + rest
	}
	return kind, rest
}

// oldTyp is typ by base's paths first: where users knew a type that was
// removed, renamed or changed.
func (p paths) oldTyp(name string) (kind, rel string) {
	return paths{head: p.base, base: p.head}.typ(name)
}

// oldField is field by base's paths first (typ is the type's name at
// base): the path users knew a field by that was removed or renamed.
func (p paths) oldField(typ string, f *model.Field) (kind, rel string) {
	return paths{head: p.base, base: p.head}.field(typ, f)
}

// user is the kind and path of the first field of package p (in p's
// order) whose type is the named type (a string or list type, which
// APIPaths does not map); the type's name and "" when no field a kind
// reaches uses it.
func (p paths) user(pkg *model.Package, name string) (kind, rel string) {
	for _, t := range pkg.Types {
		if _, ok := p.base[t.Name]; !ok {
			continue
		}
		for _, f := range t.Fields {
			if model.LocalTypeName(f.Type) == name && !f.Inline() {
				return p.oldField(t.Name, f)
			}
		}
	}
	return name, ""
}

// field returns the kind and the JSON path of a field below it.
func (p paths) field(typ string, f *model.Field) (kind, rel string) {
	kind, rel = p.typ(typ)
	name := f.WireName()
	if name == "" {
		name = f.Name
	}
	return kind, rel + "." + name
}

func (g *generator) blocks() []Block {
	byBlock := map[[2]string]map[string]bool{}
	for k, e := range g.entries {
		bk := [2]string{k.category, k.audience}
		if byBlock[bk] == nil {
			byBlock[bk] = map[string]bool{}
		}
		byBlock[bk][e.line] = true
	}
	var out []Block
	for _, c := range Categories {
		for _, au := range Audiences {
			lines := byBlock[[2]string{c, au}]
			if len(lines) == 0 {
				continue
			}
			b := Block{Category: c, Audience: au}
			for l := range lines {
				b.Lines = append(b.Lines, l)
			}
			sort.Strings(b.Lines)
			out = append(out, b)
		}
	}
	return out
}

// Render writes the blocks as Markdown, separated by blank lines, or the
// None block when there are none.
func Render(w io.Writer, blocks []Block) error {
	var b strings.Builder
	if len(blocks) == 0 {
		b.WriteString(None)
	}
	for i, bl := range blocks {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "```%s %s\n", bl.Category, bl.Audience)
		for _, l := range bl.Lines {
			b.WriteString(l + "\n")
		}
		b.WriteString("```\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
