package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/crd"
	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// FieldTypeChanged is FIELD_TYPE_CHANGED.
var FieldTypeChanged = &Rule{
	ID:           "FIELD_TYPE_CHANGED",
	Uses:         []Input{InputManifests},
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Error,
	Judges:       []model.Attr{model.AttrGoType, model.AttrEmbedded, model.AttrQuoted},
	ReleaseNote: func(fd *model.FieldDiff) string {
		if fd == nil {
			return "type changed"
		}
		if !fd.Has(model.AttrGoType) {
			return "JSON encoding changed (`,string` option)"
		}
		return fmt.Sprintf("type changed from `%s` to `%s`", fd.Base.Type, fd.Head.Type)
	},
	Summary: "An existing field's type changed (a warning when the wire shape stayed: pointer-ness, a named type for its underlying type, a type moved to another package or wrapped by one that inlines it; or a struct swapped for one that drops members under tombstones and keeps the rest; or a type outside the repository that could not be resolved, or a type of the repository whose own MarshalJSON and UnmarshalJSON decide its JSON form; or an integer that only changed its signedness while validation rules out negative values, or any integer whose validation keeps the values within both types (an enum of integers, or a minimum and a maximum, at base and at head), or Go's int for int64 (uint for uint64), which hold the same values on every 64-bit platform), or, in a component configuration, a number type that Go decodes every old value into (a wider integer, an integer or float32 " +
		"as a float), or a field the API server validates nothing of (marked `+kubebuilder:validation:Schemaless`, or see NEW_FIELD_NOT_OPTIONAL), or whose hand-written CRD manifests at head require nothing in its value, whose new type only adds required members, or a scalar whose hand-written CRD manifests at base (see NEW_FIELD_NOT_OPTIONAL) gave it the JSON type of the new one, so the API server held no other values, or the items of a custom resource's list (<Kind>List) that became []<Kind> (the API server lists the kind's objects whatever the Go type said), or its value started or stopped travelling as a JSON string (the `,string` json option).",
	Why:    "Stored objects and clients carry values of the old type; Go clients stop compiling.",
	Fix:    "Keep the type; add a new field of the new type and deprecate the old one.",
	Before: "Replicas *int64",
	After:  "Replicas *int32 // as at base",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			name := fd.Type.Name() + "." + fd.Name()
			if fd.Has(model.AttrQuoted) {
				c.Field(fd, quotedReport(name, contractOf(fd.Head).Quoted))
			}
			switch {
			case fd.Has(model.AttrGoType):
				c.Field(fd, typeChangeReport(c, fd, compareFieldTypes(c, fd, name)))
			case fd.Has(model.AttrEmbedded): // embedding only
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("field %s changed between embedded and named (Go clients break; the wire is judged by the json name)", name),
					Hint:     "restore the field as it was at base unless the change is intended for Go clients",
				})
			}
		}
	},
}

// typeChange is what FIELD_TYPE_CHANGED found comparing the Go types of a
// field pair.
type typeChange struct {
	// name is the field ("Type.Field"); from and to are its types as the
	// message names them, bt and ht their identities.
	name, from, to, bt, ht string
	// res compares the types' wire shapes.
	res shapeResult
	// relaxed says what the comparison let pass, after its verdict.
	relaxed string
	// bounded describes the values validation keeps within both integer
	// types, if it does; decodes how a component's decoder reads base's
	// values, if it does.
	bounded, decodes string
	pol              Policy
}

// compareFieldTypes compares the types of field pair fd (called name),
// whose Go type changed.
func compareFieldTypes(c *Context, fd *model.FieldDiff, name string) typeChange {
	bt, ht := contractOf(fd.Base).Type, contractOf(fd.Head).Type
	base := typeSide{m: c.Diff.Base, pkg: fd.Type.Pkg.Base, id: bt}
	head := typeSide{m: c.Diff.Head, pkg: fd.Type.Pkg.Head, id: ht}
	pol := c.Policy(fd.Type.Pkg)
	statusWritten := pol.StatusByController && c.inStatus(fd)
	unvalidated := contentWithoutSchema(c, fd)
	res := compareShapesDropped(base, head, shapeOpts{alphaGoes: pol.AlphaMayBreak, statusWritten: statusWritten, unvalidated: unvalidated != ""})
	if res.match == shapeDifferent && unvalidated == "" {
		// What Go's tags make required, hand-written manifests
		// may not: they alone say what the API server requires.
		if why := handWrittenRequiresNothing(c, fd); why != "" {
			res = compareShapesDropped(base, head, shapeOpts{alphaGoes: pol.AlphaMayBreak, statusWritten: statusWritten, unvalidated: true})
			unvalidated = why
		}
	}
	ch := typeChange{name: name, bt: bt, ht: ht, res: res, pol: pol}
	ch.bounded = boundedInteger(fd)
	if pol.ReadFromFiles {
		ch.decodes = decodesBase(fd)
	}
	if len(res.alphaGone) > 0 {
		ch.relaxed = fmt.Sprintf("; alpha member(s) %s went away or changed, as alpha fields may", quoteList(res.alphaGone))
	}
	if len(res.required) > 0 && unvalidated != "" {
		ch.relaxed += fmt.Sprintf("; member(s) %s became required, which nothing enforces (%s)", quoteList(res.required), unvalidated)
	} else if len(res.required) > 0 {
		ch.relaxed += fmt.Sprintf("; status member(s) %s became required, which only the controller that ships with the CRD writes", quoteList(res.required))
	}
	ch.from, ch.to = fd.Base.Type, fd.Head.Type
	if ch.from == ch.to && bt != ht {
		// The same spelling names types of two packages (Cluster
		// API's capierrors.ClusterStatusError moved from
		// sigs.k8s.io/cluster-api/errors to .../api/deprecated/errors).
		ch.from, ch.to = bt, ht
	}
	return ch
}

// typeChangeReport words the finding about field pair fd, whose type
// changed as ch says, by what of the change the wire sees.
func typeChangeReport(c *Context, fd *model.FieldDiff, ch typeChange) Report {
	if ch.res.match == shapeSame {
		return sameShapeReport(c, fd, ch)
	}
	name, from, to, res, relaxed := ch.name, ch.from, ch.to, ch.res, ch.relaxed
	// goOnly reports a change only Go code sees, saying why.
	goOnly := func(why, who string) Report {
		return Report{
			Severity: finding.Warning,
			Message:  fmt.Sprintf("type of %s changed from %s to %s: %s", name, from, to, why),
			Hint:     fmt.Sprintf("keep %s unless the change is intended for %s", fd.Base.Type, who),
		}
	}
	switch {
	case res.match == shapeSuperset:
		return Report{
			Severity: finding.Warning,
			Message:  fmt.Sprintf("type of %s changed from %s to %s; the wire shape is unchanged for existing objects: the new type has the old members plus optional ones%s (Go clients break, the wire does not)", name, from, to, relaxed),
			Hint:     fmt.Sprintf("keep %s unless the change is intended for Go clients", fd.Base.Type),
		}
	case res.match == shapeUnknown && res.custom != "":
		return Report{
			Severity: finding.Warning,
			Message: fmt.Sprintf("type of %s changed from %s to %s; %s has its own MarshalJSON and UnmarshalJSON, which decide its JSON form (apicheck does not read their code), so the wire shapes were not compared",
				name, from, to, res.custom),
			Hint: fmt.Sprintf("confirm %s's methods read the values base's type wrote", res.custom),
		}
	case res.match == shapeUnknown:
		return Report{
			Severity: finding.Warning,
			Message: fmt.Sprintf("type of %s changed from %s to %s; a type declared outside the repository was not resolved (apicheck compares the wire shapes of the repository's own types and of well-known Kubernetes types), so the wire shapes were not compared",
				name, from, to),
			Hint: "confirm the wire shape is unchanged (e.g. a named string for a string)",
		}
	case res.match == shapeDropsReserved:
		var how, confirm []string
		if len(res.dropped) > 0 {
			how = append(how, fmt.Sprintf("%s under a tombstone (a deliberate removal)", quoteList(res.dropped)))
			confirm = append(confirm, "that clients could not set the dropped members (e.g. validation always rejected them)")
		}
		if len(res.deprecated) > 0 {
			how = append(how, fmt.Sprintf("%s, deprecated at base (an announced removal)", quoteList(res.deprecated)))
			confirm = append(confirm, "that the deprecation period is over")
		}
		return Report{
			Severity: finding.Warning,
			Message: fmt.Sprintf("type of %s changed from %s to %s, which drops %s and keeps the rest of the wire shape%s",
				name, from, to, strings.Join(how, ", and "), relaxed),
			Hint: "confirm " + strings.Join(confirm, " and ") + "; otherwise keep " + fd.Base.Type,
		}
	case signednessOnly(fd):
		return goOnly("an integer of the same size whose validation rules out negative values, "+
			"so the schema and the values on the wire are unchanged (Go clients break, the wire does not)", "Go clients")
	case ch.bounded != "":
		return goOnly("validation keeps the values within both integer types ("+ch.bounded+"), "+
			"so the values on the wire are unchanged (Go clients break, the wire does not)", "Go clients")
	case ch.decodes != "":
		return goOnly(ch.decodes+", and the component decodes its configuration files with Go's decoder, "+
			"so files written for base still load (Go code that sets the field breaks)", "Go code")
	case schemaHeld(c, fd) != "":
		return goOnly(schemaHeld(c, fd)+" (Go clients break, the wire does not)", "Go clients")
	case ch.pol.SchemaValidates && listOfItsKind(fd) != "":
		return goOnly(listOfItsKind(fd)+" (Go clients break, the wire does not)", "Go clients")
	case fd.Base.Type == fd.Head.Type:
		return Report{
			Message: fmt.Sprintf("type %s of %s now denotes %s, of another wire shape%s", fd.Head.Type, name, ch.ht, because(res.why)),
			Hint:    fmt.Sprintf("keep %s as it was at base; declare a new type for the new shape", fd.Base.Type),
		}
	}
	return Report{
		Message: fmt.Sprintf("type of %s changed from %s to %s%s", name, from, to, because(res.why)),
		Hint:    fmt.Sprintf("restore type %s; add a new field for the new type", fd.Base.Type),
	}
}

// sameShapeReport is typeChangeReport for types of the same wire shape.
func sameShapeReport(c *Context, fd *model.FieldDiff, ch typeChange) Report {
	name, from, to, bt, ht := ch.name, ch.from, ch.to, ch.bt, ch.ht
	switch {
	case fd.Base.Type == fd.Head.Type:
		// The same type name now denotes another type of the same
		// shape: the name became an alias (type T = v1.T). Code
		// that names T keeps compiling; the wire is unchanged.
		r := Report{
			Severity: finding.Info,
			Message:  fmt.Sprintf("type %s of %s now denotes %s (it became an alias); the wire shape is unchanged", fd.Head.Type, name, ht),
		}
		if from, to, ok := movedPackage(bt, ht); ok {
			// The import behind the same alias moved: the same
			// declaration under a new import path. A version
			// package of a group that moved is the group's move
			// (paired, and judged as such); any other package's
			// move breaks the Go clients that import it.
			r.Message = fmt.Sprintf("type %s of %s now denotes %s: its package moved from %s to %s; the wire shape is unchanged", fd.Head.Type, name, ht, from, to)
			if !isGroupPackage(c.Diff.Head, to) {
				r.Severity = finding.Warning
				r.Message += fmt.Sprintf(" (Go clients that import %s break, the wire does not)", from)
				r.Hint = fmt.Sprintf("keep the type in %s (e.g. as an alias of the moved one) unless the change is intended for Go clients", from)
			}
		}
		return r
	case aliasedAtHead(fd):
		// Head keeps the old name as an alias of the new one
		// (type IPFamilyPolicyType = IPFamilyPolicy): one Go type.
		return Report{
			Severity: finding.Info,
			Message: fmt.Sprintf("type of %s changed from %s to %s; head keeps the old name as an alias of the new one, so Go clients and the wire are unchanged",
				name, from, to),
		}
	case literalForNamed(fd):
		// []string and CidrBlocks ([]string): assignable both ways
		// in Go, the same on the wire.
		return Report{
			Severity: finding.Info,
			Message: fmt.Sprintf("type of %s changed from %s to %s, a named type declared as the other; the wire shape is unchanged and "+
				"Go assigns one to the other", name, from, to),
		}
	}
	return Report{
		Severity: finding.Warning,
		Message:  fmt.Sprintf("type of %s changed from %s to %s; the wire shape is unchanged%s (Go clients break, the wire does not)", name, from, to, ch.relaxed),
		Hint:     fmt.Sprintf("keep %s unless the change is intended for Go clients", fd.Base.Type),
	}
}

// quotedReport is the finding for a field whose value started (quoted)
// or stopped travelling as a JSON string.
func quotedReport(name string, quoted bool) Report {
	if quoted {
		return Report{
			Message: fmt.Sprintf("JSON encoding of %s changed: json:\",string\" now writes its value as a JSON string (\"5\" where clients send and stored objects hold 5)", name),
			Hint:    "remove the ,string option from the json tag",
		}
	}
	return Report{
		Message: fmt.Sprintf("JSON encoding of %s changed: without json:\",string\" its value is no longer a JSON string (5 where clients send and stored objects hold \"5\")", name),
		Hint:    "restore the ,string option in the json tag",
	}
}

// movedPackage reports two type identities that name the same type in
// different packages ("a/v1.T" and "b/v1.T"), with both import paths.
func movedPackage(base, head string) (from, to string, ok bool) {
	base, head = strings.TrimLeft(base, "*"), strings.TrimLeft(head, "*")
	bi, hi := strings.LastIndex(base, "."), strings.LastIndex(head, ".")
	if bi < 0 || hi < 0 || base[bi:] != head[hi:] || base[:bi] == head[:hi] || strings.ContainsAny(base+head, "[]") {
		return "", "", false
	}
	return base[:bi], head[:hi], true
}

// isGroupPackage reports whether importPath is a package of an API group
// of m (a version or the internal version).
func isGroupPackage(m *model.Model, importPath string) bool {
	if m == nil {
		return false
	}
	for _, g := range m.Groups {
		for _, p := range g.Packages() {
			if p.ImportPath == importPath {
				return true
			}
		}
	}
	return false
}

// aliasedAtHead reports whether base's spelling of fd's type denotes
// head's type through the aliases of head's package (type A = B): the
// type was renamed and the old name kept for Go clients.
func aliasedAtHead(fd *model.FieldDiff) bool {
	p := fd.Type.Pkg.Head
	if p == nil || fd.Base.Type == fd.Head.Type {
		return false
	}
	aliases := map[string]string{}
	for _, t := range p.Types {
		if target := model.AliasTarget(p, t); target != "" {
			aliases[t.Name] = target
		}
	}
	return len(aliases) > 0 && model.RenameType(fd.Base.Type, aliases) == fd.Head.Type
}

// literalForNamed reports a field whose type changed between a type
// literal (a slice or map, []string) and a type of the field's package
// declared as exactly that literal (type CidrBlocks []string), behind the
// same pointers: Go assigns values of either to the other.
func literalForNamed(fd *model.FieldDiff) bool {
	b, h := fd.Base.Type, fd.Head.Type
	for strings.HasPrefix(b, "*") && strings.HasPrefix(h, "*") {
		b, h = b[1:], h[1:]
	}
	literal := func(t string) bool { return strings.HasPrefix(t, "[]") || strings.HasPrefix(t, "map[") }
	declares := func(p *model.Package, name, as string) bool {
		if p == nil {
			return false
		}
		t := p.Type(name)
		return t != nil && t.Kind == model.KindOther && !t.Alias && t.Underlying == as
	}
	switch {
	case literal(b) && !literal(h):
		return declares(fd.Type.Pkg.Head, h, b)
	case literal(h) && !literal(b):
		return declares(fd.Type.Pkg.Base, b, h)
	}
	return false
}

// listOfItsKind says why the items of a custom resource's list type
// carry the kind whatever their Go type was (the API server builds the
// list from the stored objects): field fd is the items member of struct
// <Kind>List, a list of kind <Kind> of the same package at head (a root
// kind), and its type became []<Kind> (CDI's VolumeUploadSourceList held
// []VolumeImportSource, a copy-paste slip): the API server lists
// <Kind> objects, so only the Go type that decoded them was wrong. ""
// otherwise.
func listOfItsKind(fd *model.FieldDiff) string {
	pkg, t := fd.Type.Pkg.Head, fd.Type.Head
	if pkg == nil || t == nil || fd.Head == nil || fd.Head.WireName() != "items" {
		return ""
	}
	kind, ok := strings.CutSuffix(t.Name, "List")
	if !ok || kind == "" {
		return ""
	}
	if k := pkg.Type(kind); k == nil || !k.RootKind {
		return ""
	}
	if strings.TrimPrefix(contractOf(fd.Head).Type, "[]") != kind {
		return ""
	}
	return fmt.Sprintf("%s lists %s objects: the API server's list held %s objects whatever the Go type of its items said", t.Name, kind, kind)
}

// contentWithoutSchema says why the API server validates nothing of
// field fd's value at head: the field is marked
// +kubebuilder:validation:Schemaless, or it is a kind's spec that the
// kind's CRD manifests at head give no schema, or it lies where noSchema
// says nothing is validated. "" otherwise.
func contentWithoutSchema(c *Context, fd *model.FieldDiff) string {
	if fd.Head == nil || fd.Type.Head == nil || !c.Policy(fd.Type.Pkg).SchemaValidates {
		return ""
	}
	if fd.Head.Markers.Has(schemalessMarker) {
		return fmt.Sprintf("%s.%s is marked +%s: the API server validates, requires and defaults nothing in it", fd.Type.Name(), fd.Name(), schemalessMarker)
	}
	p, t, ms := fd.Type.Pkg.Head, fd.Type.Head, c.Manifests()
	if t.RootKind && fd.Head.WireName() == "spec" && ms != nil && fd.Type.Pkg.External() && p.GroupName != "" {
		if files, ok := kindWithoutSchema(ms, p, t.Name); ok {
			return fmt.Sprintf("the CRD manifests of %s at head (%s) give its spec at %s no schema: the API server validates, requires and defaults nothing in it",
				t.Name, listed(files), p.Version)
		}
	}
	return c.noSchema(fd)
}

// handWrittenRequiresNothing says why the API server requires no member
// of field fd's value at head, whatever its Go tags say: the CRD
// manifests at head are hand-written (handWrittenPlaces) and none of
// them requires anything in the field's value, where its kinds hold it
// (ClickHouse operator's reconciling settings). "" otherwise.
func handWrittenRequiresNothing(c *Context, fd *model.FieldDiff) string {
	where, files, ok := c.handWrittenPlaces(1, fd, func(s *crd.Schema, path []string) bool { return !s.RequiresBelow(path) })
	if !ok {
		return ""
	}
	return fmt.Sprintf("the hand-written CRD manifests at head (%s) require nothing in %s", files, where)
}

// schemaHeld says why the API server held only values of the JSON form
// of field fd's type at head although its Go type at base had another:
// the field is a scalar at both revisions, and the hand-written CRD
// manifests at base (handWrittenPlaces) give it that JSON type (Zalando's
// postgres-operator: a Duration that Go wrote as an integer, under a
// manifest that accepted only strings, became metav1.Duration). "" when
// not so.
func schemaHeld(c *Context, fd *model.FieldDiff) string {
	if fd.Base == nil || fd.Head == nil {
		return ""
	}
	bt, ht := strings.TrimLeft(contractOf(fd.Base).Type, "*"), strings.TrimLeft(contractOf(fd.Head).Type, "*")
	kind := jsonKind(ht)
	switch {
	case kind != "string" && kind != "integer" && kind != "number" && kind != "boolean",
		strings.HasPrefix(bt, "[]"), strings.HasPrefix(bt, "map["):
		return ""
	}
	where, files, ok := c.handWrittenPlaces(0, fd, func(s *crd.Schema, path []string) bool {
		n := s.At(path)
		return n != nil && n.Type == kind
	})
	if !ok {
		return ""
	}
	return fmt.Sprintf("the hand-written CRD manifests at base (%s) give %s type %s, the JSON form of the new type: the API server held no other values",
		files, where, kind)
}

// because is "; <why>" for a finding's message, or "" without a reason.
func because(why string) string {
	if why == "" {
		return ""
	}
	return "; on the wire " + why
}

// quoteList quotes names and joins them: `"a"`, `"a" and "b"`.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
