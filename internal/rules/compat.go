package rules

import (
	"fmt"
	"go/token"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
)

// contractOf is a field's contract (computed by the scanner).
func contractOf(f *model.Field) *model.Contract {
	if f.Contract != nil {
		return f.Contract
	}
	return &model.Contract{Name: f.WireName(), Inline: f.Inline(), Type: f.Type}
}

// jsonDesc names how a field appears on the wire.
func jsonDesc(f *model.Field) string {
	c := contractOf(f)
	switch {
	case c.Inline:
		return "inline"
	case c.Name == "-":
		return "- (not serialised)"
	}
	return fmt.Sprintf("%q", c.Name)
}

// jsonNote is jsonDesc for release notes (Markdown).
func jsonNote(f *model.Field) string {
	c := contractOf(f)
	switch {
	case c.Inline:
		return "inline"
	case c.Name == "-":
		return "`-`"
	}
	return "`" + c.Name + "`"
}

var JSONNameChanged = &Rule{
	ID:           "JSON_NAME_CHANGED",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Error,
	Relax:        relaxedToWarning,
	Judges:       []model.Attr{model.AttrJSONName, model.AttrInline},
	ReleaseNote: func(fd *model.FieldDiff) string {
		if fd == nil {
			return "json name changed"
		}
		return fmt.Sprintf("JSON name changed from %s to %s", jsonNote(fd.Base), jsonNote(fd.Head))
	},
	Summary: "An existing field's json name changed (or became `-`, or inline). Info for a field base did not serialise (`json:\"-\"`) that head does: it joins the wire as a new field would, and the new-field rules judge it.",
	Why:     "The json name is the field's identity in every manifest, patch and stored object.",
	Fix:     "Restore the json name; add a new field and deprecate the old one instead.",
	Before:  "Foo *string `json:\"fooBar,omitempty\"`",
	After:   "Foo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrJSONName) && !fd.Has(model.AttrInline) {
				continue
			}
			if want := listConvention(fd); want != "" {
				// A List kind's metadata and items are what every
				// Kubernetes API server sends and every client reads: a
				// tag that now says so aligns the Go type with the wire.
				c.Field(fd, Report{
					Severity: finding.Info,
					Message: fmt.Sprintf("json name of %s.%s changed from %s to %s: the Go type now follows the Kubernetes list convention (%s), which API servers and generic clients use",
						fd.Type.Name(), fd.Name(), jsonDesc(fd.Base), jsonDesc(fd.Head), want),
				})
				continue
			}
			if joinsWire(fd) {
				// Not on the wire at base: no object or client has it
				// under any name, so it is new, and the new-field rules
				// judge it.
				c.Field(fd, Report{
					Severity: finding.Info,
					Message: fmt.Sprintf("json name of %s.%s changed from %s to %s: the field joins the wire, as a new field would (the new-field rules judge it)",
						fd.Type.Name(), fd.Name(), jsonDesc(fd.Base), jsonDesc(fd.Head)),
				})
				continue
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("json name of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), jsonDesc(fd.Base), jsonDesc(fd.Head)),
				Hint:    fmt.Sprintf("restore json name %s", jsonDesc(fd.Base)),
			})
		}
	},
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

// kindOf is the root kind a root-kind type of p stands for: the type
// itself, or for a List kind the kind it lists; nil for other types.
func kindOf(p *model.Package, t *model.Type) *model.Type {
	if !t.RootKind {
		return nil
	}
	if name, ok := strings.CutSuffix(t.Name, "List"); ok {
		if k := p.Type(name); k != nil && k.RootKind {
			return k
		}
	}
	return t
}

// listKindField reports whether fd is the ListMeta or Items field of a
// List kind (a root kind named *List).
func listKindField(fd *model.FieldDiff) bool {
	td := fd.Type
	return td.Head != nil && td.Head.RootKind && strings.HasSuffix(td.Head.Name, "List") &&
		(fd.Name() == "ListMeta" || fd.Name() == "Items")
}

// listConvention returns the conventional wire name (quoted) when fd is
// the ListMeta or Items field of a List kind (a root kind named *List)
// and its head json tag now follows the Kubernetes list convention
// ("metadata", "items"); "" otherwise.
func listConvention(fd *model.FieldDiff) string {
	td := fd.Type
	if td.Head == nil || !td.Head.RootKind || !strings.HasSuffix(td.Head.Name, "List") || fd.Head == nil {
		return ""
	}
	c := contractOf(fd.Head)
	if c.Inline {
		return ""
	}
	switch {
	case fd.Name() == "ListMeta" && c.Name == "metadata":
		return `"metadata"`
	case fd.Name() == "Items" && c.Name == "items":
		return `"items"`
	}
	return ""
}

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
			if !fd.Has(model.AttrGoType) && !fd.Has(model.AttrEmbedded) {
				continue
			}
			if !fd.Has(model.AttrGoType) { // embedding only
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("field %s changed between embedded and named (Go clients break; the wire is judged by the json name)", name),
					Hint:     "restore the field as it was at base unless the change is intended for Go clients",
				})
				continue
			}
			bt, ht := contractOf(fd.Base).Type, contractOf(fd.Head).Type
			base := typeSide{m: c.Diff.Base, pkg: fd.Type.Pkg.Base, id: bt}
			head := typeSide{m: c.Diff.Head, pkg: fd.Type.Pkg.Head, id: ht}
			pol := c.Policy(fd.Type.Pkg)
			statusWritten := pol.StatusByController && c.inStatus(fd)
			unvalidated := c.contentWithoutSchema(fd)
			res := compareShapesDropped(base, head, shapeOpts{alphaGoes: pol.AlphaMayBreak, statusWritten: statusWritten, unvalidated: unvalidated != ""})
			if res.match == shapeDifferent && unvalidated == "" {
				// What Go's tags make required, hand-written manifests
				// may not: they alone say what the API server requires.
				if why := c.handWrittenRequiresNothing(fd); why != "" {
					res = compareShapesDropped(base, head, shapeOpts{alphaGoes: pol.AlphaMayBreak, statusWritten: statusWritten, unvalidated: true})
					unvalidated = why
				}
			}
			shape, dropped, why := res.match, res.dropped, res.why
			bounded := boundedInteger(fd) // the values validation keeps within both integer types, if so
			decodes := ""                 // how a component's decoder reads base's values, if it does
			if pol.ReadFromFiles {
				decodes = decodesBase(fd)
			}
			relaxed := "" // what the comparison let pass, said after its verdict
			if len(res.alphaGone) > 0 {
				relaxed = fmt.Sprintf("; alpha member(s) %s went away or changed, as alpha fields may", quoteList(res.alphaGone))
			}
			if len(res.required) > 0 && unvalidated != "" {
				relaxed += fmt.Sprintf("; member(s) %s became required, which nothing enforces (%s)", quoteList(res.required), unvalidated)
			} else if len(res.required) > 0 {
				relaxed += fmt.Sprintf("; status member(s) %s became required, which only the controller that ships with the CRD writes", quoteList(res.required))
			}
			from, to := fd.Base.Type, fd.Head.Type
			// goOnly reports a change only Go code sees, saying why.
			goOnly := func(why, who string) {
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("type of %s changed from %s to %s: %s", name, from, to, why),
					Hint:     fmt.Sprintf("keep %s unless the change is intended for %s", fd.Base.Type, who),
				})
			}
			if from == to && bt != ht {
				// The same spelling names types of two packages (Cluster
				// API's capierrors.ClusterStatusError moved from
				// sigs.k8s.io/cluster-api/errors to .../api/deprecated/errors).
				from, to = bt, ht
			}
			switch {
			case shape == shapeSame && fd.Base.Type == fd.Head.Type:
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
				c.Field(fd, r)
			case shape == shapeSame && aliasedAtHead(fd):
				// Head keeps the old name as an alias of the new one
				// (type IPFamilyPolicyType = IPFamilyPolicy): one Go type.
				c.Field(fd, Report{
					Severity: finding.Info,
					Message: fmt.Sprintf("type of %s changed from %s to %s; head keeps the old name as an alias of the new one, so Go clients and the wire are unchanged",
						name, from, to),
				})
			case shape == shapeSame && literalForNamed(fd):
				// []string and CidrBlocks ([]string): assignable both ways
				// in Go, the same on the wire.
				c.Field(fd, Report{
					Severity: finding.Info,
					Message: fmt.Sprintf("type of %s changed from %s to %s, a named type declared as the other; the wire shape is unchanged and "+
						"Go assigns one to the other", name, from, to),
				})
			case shape == shapeSame:
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("type of %s changed from %s to %s; the wire shape is unchanged%s (Go clients break, the wire does not)", name, from, to, relaxed),
					Hint:     fmt.Sprintf("keep %s unless the change is intended for Go clients", fd.Base.Type),
				})
			case shape == shapeSuperset:
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message:  fmt.Sprintf("type of %s changed from %s to %s; the wire shape is unchanged for existing objects: the new type has the old members plus optional ones%s (Go clients break, the wire does not)", name, from, to, relaxed),
					Hint:     fmt.Sprintf("keep %s unless the change is intended for Go clients", fd.Base.Type),
				})
			case shape == shapeUnknown && res.custom != "":
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message: fmt.Sprintf("type of %s changed from %s to %s; %s has its own MarshalJSON and UnmarshalJSON, which decide its JSON form (apicheck does not read their code), so the wire shapes were not compared",
						name, from, to, res.custom),
					Hint: fmt.Sprintf("confirm %s's methods read the values base's type wrote", res.custom),
				})
			case shape == shapeUnknown:
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message: fmt.Sprintf("type of %s changed from %s to %s; a type declared outside the repository was not resolved (apicheck compares the wire shapes of the repository's own types and of well-known Kubernetes types), so the wire shapes were not compared",
						name, from, to),
					Hint: "confirm the wire shape is unchanged (e.g. a named string for a string)",
				})
			case shape == shapeDropsReserved:
				var how, confirm []string
				if len(dropped) > 0 {
					how = append(how, fmt.Sprintf("%s under a tombstone (a deliberate removal)", quoteList(dropped)))
					confirm = append(confirm, "that clients could not set the dropped members (e.g. validation always rejected them)")
				}
				if len(res.deprecated) > 0 {
					how = append(how, fmt.Sprintf("%s, deprecated at base (an announced removal)", quoteList(res.deprecated)))
					confirm = append(confirm, "that the deprecation period is over")
				}
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message: fmt.Sprintf("type of %s changed from %s to %s, which drops %s and keeps the rest of the wire shape%s",
						name, from, to, strings.Join(how, ", and "), relaxed),
					Hint: "confirm " + strings.Join(confirm, " and ") + "; otherwise keep " + fd.Base.Type,
				})
			case signednessOnly(fd):
				goOnly("an integer of the same size whose validation rules out negative values, "+
					"so the schema and the values on the wire are unchanged (Go clients break, the wire does not)", "Go clients")
			case bounded != "":
				goOnly("validation keeps the values within both integer types ("+bounded+"), "+
					"so the values on the wire are unchanged (Go clients break, the wire does not)", "Go clients")
			case decodes != "":
				goOnly(decodes+", and the component decodes its configuration files with Go's decoder, "+
					"so files written for base still load (Go code that sets the field breaks)", "Go code")
			case c.schemaHeld(fd) != "":
				goOnly(c.schemaHeld(fd)+" (Go clients break, the wire does not)", "Go clients")
			case pol.SchemaValidates && listOfItsKind(fd) != "":
				goOnly(listOfItsKind(fd)+" (Go clients break, the wire does not)", "Go clients")
			case fd.Base.Type == fd.Head.Type:
				c.Field(fd, Report{
					Message: fmt.Sprintf("type %s of %s now denotes %s, of another wire shape%s", fd.Head.Type, name, ht, because(why)),
					Hint:    fmt.Sprintf("keep %s as it was at base; declare a new type for the new shape", fd.Base.Type),
				})
			default:
				c.Field(fd, Report{
					Message: fmt.Sprintf("type of %s changed from %s to %s%s", name, from, to, because(why)),
					Hint:    fmt.Sprintf("restore type %s; add a new field for the new type", fd.Base.Type),
				})
			}
		}
	},
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

// intSize is the size of Go's integer types by name, signed and unsigned
// alike ("int" and "uint" are the platform's).
var intSize = map[string]string{
	"int8": "8", "uint8": "8", "int16": "16", "uint16": "16", "int32": "32", "uint32": "32",
	"int64": "64", "uint64": "64", "int": "int", "uint": "int",
}

// signednessOnly reports a field whose type changed only between the
// signed and the unsigned integer of one size (*uint64 to *int64, []uint32
// to []int32) while its validation has a minimum of at least 0 at head,
// and at base too unless the change is uint64 to int64: the OpenAPI
// schema (type integer, the same format for both) and the values the API
// server holds are the same, and every value fits both Go types
// (prometheus-operator v0.93.0 added the minimums and changed the types).
func signednessOnly(fd *model.FieldDiff) bool {
	b, h := elemTypes(fd.Base.Type, fd.Head.Type)
	if b == h || intSize[b] == "" || intSize[b] != intSize[h] {
		return false
	}
	nonNegative := func(f *model.Field) bool {
		for _, k := range contractOf(f).Validation {
			if k.Kind == "minimum" {
				v, err := strconv.ParseFloat(k.Value, 64)
				return err == nil && v >= 0
			}
		}
		return false
	}
	if !nonNegative(fd.Head) {
		return false
	}
	// From a 64-bit unsigned to the signed type, base's values fit too:
	// the API server keeps integers as int64 (a JSON number beyond that
	// is no integer to its validation), so no stored value exceeds the
	// new type. Anything else needs base's values ruled non-negative too.
	return nonNegative(fd.Base) || intSize[b] == "64" && strings.HasPrefix(b, "u")
}

// decodesBase says how every JSON value of the field's base type decodes
// into its head type (behind the same pointers and slices; a type of the
// field's package declared as a number counts as that number): an
// integer type within a wider one's range, an integer as a float, a
// float32 as a float64. "" when some value would not decode, or the
// types are no such numbers.
func decodesBase(fd *model.FieldDiff) string {
	b, h := elemTypes(fd.Base.Type, fd.Head.Type)
	bn, hn := numberType(fd.Type.Pkg.Base, b), numberType(fd.Type.Pkg.Head, h)
	switch {
	case bn == "" || hn == "" || bn == hn:
		return ""
	case intSize[bn] != "" && intSize[hn] != "":
		blo, bhi := integerRange(bn)
		hlo, hhi := integerRange(hn)
		if blo.Cmp(hlo) >= 0 && bhi.Cmp(hhi) <= 0 {
			return fmt.Sprintf("%s holds every %s value", hn, bn)
		}
	case intSize[bn] != "" && hn == "float64":
		return fmt.Sprintf("Go decodes every %s value into a float64 (rounded beyond 2^53)", bn)
	case intSize[bn] != "" && hn == "float32":
		return fmt.Sprintf("Go decodes every %s value into a float32 (rounded beyond 2^24)", bn)
	case bn == "float32" && hn == "float64":
		return "float64 holds every float32 value"
	}
	return ""
}

// numberType is integerType for integers and floats alike.
func numberType(p *model.Package, t string) string {
	if t == "float32" || t == "float64" {
		return t
	}
	if n := integerType(p, t); n != "" {
		return n
	}
	if p != nil {
		if nt := p.Type(t); nt != nil && nt.Kind == model.KindOther && (nt.Underlying == "float32" || nt.Underlying == "float64") {
			return nt.Underlying
		}
	}
	return ""
}

// elemTypes strips the pointers and slices two type expressions share
// from their front (*[]uint32 and *[]int32 are uint32 and int32).
func elemTypes(b, h string) (string, string) {
	for {
		switch {
		case strings.HasPrefix(b, "*") && strings.HasPrefix(h, "*"):
			b, h = b[1:], h[1:]
			continue
		case strings.HasPrefix(b, "[]") && strings.HasPrefix(h, "[]"):
			b, h = b[2:], h[2:]
			continue
		}
		break
	}
	return b, h
}

// boundedInteger describes the values validation lets a field hold when
// its type changed from one integer type to another (behind the same
// pointers and slices; a type of the field's package declared as an
// integer counts as that integer) and they fit both types: base's
// values, which stored objects hold, the new type; head's values, which
// new clients send, the old type old clients decode into. Each side's
// validation is an enum of integers, or a minimum and a maximum (Contour's
// redirect StatusCode, *int with enum 301 and 302, became
// *RedirectResponseCode, a uint32 with enum 301 to 308). "" when the
// types are not both integers, or either side's values may not fit.
func boundedInteger(fd *model.FieldDiff) string {
	b, h := elemTypes(fd.Base.Type, fd.Head.Type)
	bi, hi := integerType(fd.Type.Pkg.Base, b), integerType(fd.Type.Pkg.Head, h)
	if bi == "" || hi == "" || bi == hi {
		return ""
	}
	bv, bdesc := acceptedIntegers(contractOf(fd.Base))
	hv, hdesc := acceptedIntegers(contractOf(fd.Head))
	if bv == nil || hv == nil || !fitIn(bv, hi) || !fitIn(hv, bi) {
		return ""
	}
	return "base: " + bdesc + "; head: " + hdesc
}

// acceptedIntegers are the bounds of the values c's validation accepts
// (an enum's values, or a minimum and a maximum) and their description;
// nil when it does not bound them.
func acceptedIntegers(c *model.Contract) ([]*big.Int, string) {
	var minV, maxV *big.Int
	for _, k := range c.Validation {
		switch k.Kind {
		case "enum":
			var vals []*big.Int
			for _, v := range strings.Split(k.Value, ";") {
				n, ok := new(big.Int).SetString(strings.TrimSpace(v), 10)
				if !ok {
					return nil, ""
				}
				vals = append(vals, n)
			}
			return vals, "enum " + strings.ReplaceAll(k.Value, ";", ", ")
		case "minimum", "maximum":
			r, ok := new(big.Rat).SetString(k.Value)
			if !ok || !r.IsInt() {
				return nil, ""
			}
			if k.Kind == "minimum" {
				minV = r.Num()
			} else {
				maxV = r.Num()
			}
		}
	}
	if minV == nil || maxV == nil {
		return nil, ""
	}
	return []*big.Int{minV, maxV}, fmt.Sprintf("minimum %s, maximum %s", minV, maxV)
}

// fitIn reports whether every value lies in integer type t's range.
func fitIn(vals []*big.Int, t string) bool {
	lo, hi := integerRange(t)
	for _, v := range vals {
		if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
			return false
		}
	}
	return true
}

// integerType is the integer type name t denotes in package p: itself
// for a basic integer type, the underlying integer of a type p declares;
// "" otherwise.
func integerType(p *model.Package, t string) string {
	if intSize[t] != "" {
		return t
	}
	if p == nil {
		return ""
	}
	if nt := p.Type(t); nt != nil && nt.Kind == model.KindOther && intSize[nt.Underlying] != "" {
		return nt.Underlying
	}
	return ""
}

// integerRange is the range of a basic integer type (int and uint as
// platformInt sizes them).
func integerRange(t string) (lo, hi *big.Int) {
	if sized, ok := platformInt[t]; ok {
		t = sized
	}
	bits := map[string]uint{"8": 8, "16": 16, "32": 32, "64": 64}[intSize[t]]
	one := big.NewInt(1)
	if strings.HasPrefix(t, "u") {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
	}
	top := new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
	return new(big.Int).Neg(new(big.Int).Add(top, one)), top
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

var TypeUnderlyingChanged = &Rule{
	ID:       "TYPE_UNDERLYING_CHANGED",
	Alpha:    finding.Info,
	Category: CatCompat,
	Severity: finding.Error,
	Judges:   []model.Attr{model.AttrUnderlying},
	Summary: "A named type kept its name but its declaration changed (`type Mode string` became `type Mode int32`, " +
		"a struct became a string): every field that uses it changes its wire type. A warning when the wire shape " +
		"stayed (Go clients break), the type has its own MarshalJSON and UnmarshalJSON at base and at head (they, not the declaration, decide its JSON form), or no field of the version uses the type at base and at head (a field new at head never had the old type); info for types that are not serialised (interfaces, funcs).",
	Why: "Stored objects and clients carry values of the old type under the same field names; the field diff shows no " +
		"change because the fields still name the type.",
	Fix:    "Keep the type's declaration; add a new type (and a new field using it) for the new shape.",
	Before: "type Mode string",
	After:  "type Mode string // as at base; a new ModeV2 int32 for the new field",
	Check: func(c *Context) {
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if td.Base == nil || td.Head == nil || !underlyingChanged(td) {
					continue
				}
				name := td.Name()
				what := fmt.Sprintf("type %s changed from %s to %s", name, typeDesc(td.Base), typeDesc(td.Head))
				users := fieldsUsing(pd.Head, name)
				if td.Head.Alias && len(users) > 0 {
					// The fields' contracts name the aliased type:
					// FIELD_TYPE_CHANGED judges each field that uses it.
					continue
				}
				// Only a field that used the type at base and still does
				// changes its wire type; one new at head never had the
				// old one, one gone or retyped is judged as such.
				users = keptUsers(pd.Base, users, name)
				r := Report{Hint: fmt.Sprintf("restore type %s as it was at base; declare a new type for the new shape", name)}
				for i, f := range users {
					if i == 5 {
						break
					}
					r.Related = append(r.Related, related("used by "+f.typ+"."+f.field.Name, f.field.Pos))
				}
				shape := underlyingShape(c, td)
				if shape == shapeSame && td.Base.Underlying == td.Head.Underlying {
					// Written the same and the same on the wire: a type it
					// names changed (e.g. became an alias), judged there.
					continue
				}
				switch {
				case !serialised(td.Base) && !serialised(td.Head):
					r.Severity = finding.Info
					r.Message = fmt.Sprintf("type %s changed; values of it are not serialised (an interface or func type)", name)
					r.Hint = ""
				case td.Base.CustomJSON && td.Head.CustomJSON:
					// Its own MarshalJSON and UnmarshalJSON decide its JSON
					// form at both revisions: the declaration says nothing
					// of the wire (ClickHouse operator's Settings went from
					// a struct to a map, its methods writing the same list).
					r.Severity = finding.Warning
					r.Message = what + "; its own MarshalJSON and UnmarshalJSON decide its JSON form at base and at head, not its declaration (Go clients break; apicheck does not read the methods' code)"
					r.Hint = fmt.Sprintf("confirm %s's methods still write and read the form of base, and keep the declaration unless the change is intended for Go clients", name)
				case shape == shapeSame && td.Head.Alias:
					r.Severity = finding.Info
					r.Message = fmt.Sprintf("type %s became an alias of %s; the wire shape is unchanged and code that names %s keeps compiling", name, typeDesc(td.Head), name)
					r.Hint = ""
				case shape == shapeUnknown:
					r.Severity = finding.Warning
					r.Message = what + "; a type outside the API groups could not be resolved (in a package of the repository that is not an API group, or a module that is not in the module cache), so the wire shapes were not compared"
				case shape == shapeSame || shape == shapeSuperset:
					r.Severity = finding.Warning
					r.Message = what + "; the wire shape is unchanged (Go clients break, the wire does not)"
					r.Hint = fmt.Sprintf("keep %s's declaration unless the change is intended for Go clients", name)
				case len(users) == 0:
					r.Severity = finding.Warning
					r.Message = what + "; no field of " + pd.Version + " uses it at base and at head (Go clients break; fields in other packages that use it change their wire type)"
				default:
					r.Message = what + ": the wire type of " + usersDesc(users) + " changes"
				}
				c.Type(td, r)
			}
		}
	},
}

// underlyingChanged reports a named type whose declaration changed: its
// kind (struct or not) or its underlying type. Struct fields are diffed
// field by field; this is about what the name stands for.
func underlyingChanged(td *model.TypeDiff) bool {
	if td.Base.Kind != td.Head.Kind {
		return true
	}
	return td.Base.Kind != model.KindStruct && td.Base.UnderlyingIdentity() != td.Head.UnderlyingIdentity()
}

// underlyingShape compares what a named type's declaration looks like on
// the wire at base and at head.
func underlyingShape(c *Context, td *model.TypeDiff) shapeMatch {
	// A struct side is compared by its declaration (its members), the
	// other side by what it stands for: a struct that became an alias of
	// another struct of the same members keeps its wire shape.
	side := func(m *model.Model, pkg *model.Package, t *model.Type) typeSide {
		if t.Kind == model.KindStruct {
			return typeSide{m: m, pkg: pkg, id: t.Name}
		}
		return typeSide{m: m, pkg: pkg, id: t.UnderlyingIdentity()}
	}
	return compareShapes(side(c.Diff.Base, td.Pkg.Base, td.Base), side(c.Diff.Head, td.Pkg.Head, td.Head), shapeOpts{alphaGoes: c.Policy(td.Pkg).AlphaMayBreak})
}

// serialised reports whether values of a type appear on the wire:
// interfaces and funcs do not.
func serialised(t *model.Type) bool {
	u := t.UnderlyingIdentity()
	return t.Kind == model.KindStruct || !strings.HasPrefix(u, "interface{") && !strings.HasPrefix(u, "func(") && !strings.HasPrefix(u, "chan ")
}

// typeUser is a field whose type names a type of its own package.
type typeUser struct {
	typ   string
	field *model.Field
}

// fieldsUsing lists the fields of a package whose type refers to the
// named type of that package (directly, through pointers, slices or
// maps), in declaration order.
func fieldsUsing(p *model.Package, name string) []typeUser {
	var out []typeUser
	for _, t := range p.Types {
		for _, f := range t.Fields {
			if mentionsType(f.Type, name) {
				out = append(out, typeUser{typ: t.Name, field: f})
			}
		}
	}
	return out
}

// keptUsers are the users (at head) of type name whose field base's
// package p had in the same struct, using the type too.
func keptUsers(p *model.Package, users []typeUser, name string) []typeUser {
	if p == nil {
		return nil
	}
	var out []typeUser
	for _, u := range users {
		if t := p.Type(u.typ); t != nil {
			if f := t.Field(u.field.Name); f != nil && mentionsType(f.Type, name) {
				out = append(out, u)
			}
		}
	}
	return out
}

// usersDesc names the fields that use a type: "WidgetSpec.mode and
// WidgetSpec.modes", "A.x, B.y and 3 more".
func usersDesc(us []typeUser) string {
	var names []string
	for _, u := range us {
		names = append(names, u.typ+"."+u.field.Name)
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("%d more", len(us)-3))
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// kindMetadata reports a root kind's ObjectMeta (a list's ListMeta is
// listKindField's): the API server fills it (a stored object always has a
// name) and validates it in Go whatever the schema says, so its json
// options (lws swapped omitzero for omitempty on metadata) change nothing
// a client sees.
func kindMetadata(fd *model.FieldDiff) bool {
	return fd.Type.Head != nil && fd.Type.Head.RootKind &&
		strings.TrimPrefix(fd.Head.TypeID, "*") == "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta"
}

// omitUnknown reports whether a field kept its json tag's omit options
// and only its type's kind is unknown on one side (a type outside the
// repository that was not resolved): omitempty does not omit a struct
// value, so whether the field was or is omitted when empty is unknown
// (Kubeflow's RunPolicy, json:"runPolicy,omitempty", went from
// commonv1.RunPolicy to the package's own struct: it never was).
func omitUnknown(fd *model.FieldDiff) bool {
	b, h := fd.Base, fd.Head
	return b.JSON.OmitEmpty == h.JSON.OmitEmpty && b.JSON.OmitZero == h.JSON.OmitZero &&
		(b.ValueKind == model.KindUnknown || h.ValueKind == model.KindUnknown)
}

// nullWhenEmpty are the types outside the repository whose MarshalJSON
// writes their zero value as JSON null, and whose UnmarshalJSON reads null
// as the zero value.
var nullWhenEmpty = map[string]bool{
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                       true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                          true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                     true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":      true,
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON": true,
}

// emptyIsNull reports whether a field's empty value is written as JSON
// null: a nil pointer or interface, or the zero value of a type that
// marshals it as null (Gardener's ManagedSeed went from
// *runtime.RawExtension to runtime.RawExtension, omitempty kept). Where
// the API server decodes into Go types (Policy.NullIsAbsent), that is
// the absent field it was.
func emptyIsNull(f *model.Field) bool {
	switch f.ValueKind {
	case model.KindPointer, model.KindInterface:
		return true
	case model.KindStructValue:
		return nullWhenEmpty[f.TypeID]
	}
	return false
}

var FieldBecameRequired = &Rule{
	ID:           "FIELD_BECAME_REQUIRED",
	Uses:         []Input{InputManifests},
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Error,
	Relax:        relaxedToWarning,
	Judges:       []model.Attr{model.AttrOptional, model.AttrOmitEmpty},
	ReleaseNote:  fixedNote("it became required"),
	Summary: "An existing field became required in the OpenAPI schema (it loses every optional form: `+optional`, `+k8s:optional`, " +
		"`omitempty`, `omitzero`, or gains `+required`), or stops being omitted when empty (not a kind's metadata, which the server fills; info for an optional field whose empty value is then written as null, " +
		"a nil pointer or the zero value of a type such as metav1.Time or runtime.RawExtension, where the API server decodes into Go types, which read null as absent, " +
		"and for a custom resource's field that is neither nullable nor defaulted, whose null the API server prunes before it validates; info for an optional member of a kind's " +
		"status, which only the controller writes, and for a field the schema required already; a warning under the crd profile for " +
		"any member of a status, whose controller ships with the CRD; a warning for an optional field that is no longer omitted only because its type became a struct value " +
		"(its json tag unchanged: omitempty omits no struct), for which Go clients now send an empty object, unless that struct requires a member without a default " +
		"(an error then: the object fails validation), or is declared outside the repository (not checked, but for the well-known types whose empty object " +
		"means unset, see NEW_FIELD_NOT_POINTER); a warning under the crd profile for a field with a default at head, which the " +
		"API server fills in before it validates (unless omitempty went and Go clients now send a zero value that is not the default); info when the release before base had the field as head has it: " +
		"the change restores the released form; info for a struct-valued field that only loses omitempty (which omits no struct: its JSON is unchanged, as after go fix) " +
		"where the group's objects are decoded and validated in Go (no crd profile, no CRD manifest serving its package), which enforces no schema's required list; " +
		"in a component configuration, which its component decodes from a file with no schema, " +
		"info unless the field is marked required, and then at most a warning; info where the API server validates nothing of a custom " +
		"resource's field, see NEW_FIELD_NOT_OPTIONAL); a warning for a field newly marked required that keeps omitempty where the CRD manifests at head, " +
		"generated by controller-gen with the field, do not require it (before v0.16 controller-gen lets omitempty win over the marker).",
	Why: "Clients that never set the field now fail validation, or serialise zero values they never meant. " +
		"Marking a field required that already was (no optional form at base) changes nothing and is not reported.",
	Fix:    "Keep the field optional with omitempty.",
	Before: "// +required\nFoo *string `json:\"foo\"`",
	After:  "// +optional\nFoo *string `json:\"foo,omitempty\"`",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if listKindField(fd) {
				continue // lists are responses: no client sends one
			}
			if kindMetadata(fd) {
				continue // the server's: a stored object always has a name
			}
			bc, hc := contractOf(fd.Base), contractOf(fd.Head)
			if hc.Name == "-" {
				continue // no longer serialised at all: JSON_NAME_CHANGED's
			}
			var what []string
			genWhy := ""
			if bc.Presence == model.Optional && hc.Presence == model.Required {
				// Marked required with omitempty kept, where the generated
				// manifests at head hold the field and do not require it
				// (controller-gen before v0.16): the schema did not change.
				if fd.Head.Required() && fd.Head.Omits() {
					genWhy = c.generatedOptional(fd)
				}
				if genWhy == "" {
					what = append(what, "required in the schema ("+requiredWhy(fd.Head)+")")
				}
			}
			omitLost := bc.Omit && !hc.Omit && !hc.Inline && !omitUnknown(fd)
			lostWhy := "omitempty/omitzero removed"
			if b, h := fd.Base.JSON, fd.Head.JSON; b.OmitEmpty == h.OmitEmpty && b.OmitZero == h.OmitZero {
				lostWhy = fmt.Sprintf("its type became %s, whose empty value omitempty does not omit", fd.Head.Type)
			}
			if omitLost {
				what = append(what, "no longer omitted when empty ("+lostWhy+")")
			}
			if len(what) == 0 && genWhy != "" {
				c.Field(fd, Report{
					Severity: finding.Warning,
					Message: fmt.Sprintf("field %s.%s is now marked required, but %s (omitempty wins over the marker in controller-gen before v0.16); "+
						"generated by a controller-gen that honours the marker, the manifests would require it", fd.Type.Name(), fd.Name(), genWhy),
					Hint: "keep the field optional (// +optional), which is what the manifests say",
				})
				continue
			}
			if len(what) == 0 {
				continue
			}
			r := Report{
				Message: fmt.Sprintf("field %s.%s became required: %s", fd.Type.Name(), fd.Name(), strings.Join(what, "; ")),
				Hint:    "keep the field optional (// +optional and omitempty)",
			}
			if bc.Presence == model.Required && hc.Presence == model.Required {
				// Required at both revisions, only omitempty dropped (as
				// kube-api-linter asks of required fields): an object
				// without the field was invalid before, and a client that
				// now sends the zero value instead of nothing is validated
				// as it was (it can only get further).
				r.Severity = finding.Info
				r.Message = fmt.Sprintf("field %s.%s, required at base already, is no longer omitted when empty (omitempty/omitzero removed): "+
					"clients send its zero value instead of nothing, which validation rejected before as a missing field", fd.Type.Name(), fd.Name())
				r.Hint = ""
			} else if d := hc.Default; d != nil && c.Policy(fd.Type.Pkg).SchemaDefaults && (!omitLost || unsetBecomesDefault(c.Policy(fd.Type.Pkg), fd.Head)) {
				// The API server fills in the default before it validates
				// (and prunes a null, a nil pointer's empty value, first):
				// a client that does not send the field passes, as it did
				// (Vault Secrets Operator's VaultConnectionSpec.SkipTLSVerify
				// traded omitempty for +kubebuilder:default=false). Where
				// omitempty went, what Go clients now send for an unset
				// field is null or the default itself. A non-zero default
				// that Go clients now override with the zero value stays
				// an error.
				r.Severity = finding.Warning
				r.Message += fmt.Sprintf("; its default (%s) is filled in for clients that do not send it, before validation, so none breaks", *d)
				if omitLost {
					sent := "that default"
					if emptyIsNull(fd.Head) {
						sent = "null, which the API server prunes before it defaults"
					}
					r.Message += ", and what Go clients now send for an unset field is " + sent
				}
				r.Hint = "keep the field optional (// +optional and omitempty): a defaulted field is optional to its clients"
			} else if c.Policy(fd.Type.Pkg).ReadFromFiles && !fd.Head.Required() {
				// A component configuration: the component decodes its
				// file, which no schema validates, and Go's decoder reads
				// a missing field and an explicit zero value alike (kwok
				// dropped omitempty from struct-valued fields, as go vet
				// advises since Go 1.24).
				r.Severity = finding.Info
				r.Message += " (a component configuration: its component decodes the file in Go, which requires no field and reads an explicit zero value as the absent one; its validation code decides what is required)"
				r.Hint = "confirm the component's validation does not now require the field"
			} else if why := c.onlySchemaRequired(fd, len(what) == 1 && !omitLost); why != "" {
				// go fix (Go 1.26) drops omitempty from struct-valued
				// fields, where it never omitted anything: metal-stack's
				// provider configuration lost it from three.
				r.Severity = finding.Info
				r.Message += why
				r.Hint = "confirm the validation code does not now require the field; only the schema generated from the tags changed"
			} else if fd.Head.Required() && c.Policy(fd.Type.Pkg).ValidatedInGo {
				// Built-in types: the server validates in Go and does not
				// enforce the schema's required list; the marker (and the
				// omitempty dropped with it, as the conventions ask for
				// required fields) documents what validation requires.
				r.Severity = finding.Info
				r.Message += " (explicitly marked required: the API server validates this group in Go code, which stays authoritative; the schema now documents it)"
				r.Hint = "confirm the hand-written validation already required the field"
			} else if pol := c.Policy(fd.Type.Pkg); len(what) == 1 && omitLost && hc.Presence == model.Optional && emptyIsNull(fd.Head) &&
				(pol.NullIsAbsent || pol.SchemaValidates && prunedNull(fd.Head)) {
				// Only the serialisation changed, to null for the empty
				// value, which the server's Go decoding takes for the
				// absent field, and which a custom resource's API server
				// prunes (not nullable, no default).
				reads := "decoders read as the absent field"
				if !pol.NullIsAbsent {
					reads = "the API server prunes before it validates (a custom resource's field that is neither nullable nor defaulted)"
				}
				r.Severity = finding.Info
				r.Message = fmt.Sprintf("field %s.%s is no longer omitted when empty (%s); it stays optional, "+
					"and its empty value is written as null, which %s", fd.Type.Name(), fd.Name(), lostWhy, reads)
				r.Hint = ""
			} else if len(what) == 1 && hc.Presence == model.Optional && statusMember(c.fieldAPIPath(fd)) {
				// Only the serialisation changed, of a member of a kind's
				// status: the controller writes status (through the status
				// subresource), and readers decode an explicit zero as the
				// absent value they got before.
				r.Severity = finding.Info
				r.Message = fmt.Sprintf("field %s.%s is no longer omitted when empty (%s); it stays optional, "+
					"and as a member of the status only the controller writes it", fd.Type.Name(), fd.Name(), lostWhy)
				r.Hint = ""
			} else if c.Policy(fd.Type.Pkg).StatusByController && c.inStatus(fd) {
				// The status: only the controller writes it, and it ships
				// with the CRD, so what status requires is its to send.
				r.Severity = finding.Warning
				r.Message += "; it is status, which only the controller that ships with the CRD writes"
				r.Hint = "confirm the controller always sets it"
			} else if len(what) == 1 && c.becameStruct(fd) && hc.Presence == model.Optional {
				// Only the Go type changed, to a struct value, which
				// omitempty does not omit: what Go clients now send for
				// an unset field is an empty object. It is a break only
				// where the schema requires a member of it (Percona's
				// *PodResources became corev1.ResourceRequirements).
				r = c.emptyObjectSent(fd, r)
			} else if fd.Head.Required() && bc.Omit == hc.Omit {
				// An explicit +required that changes only the schema is a
				// deliberate decision, usually documenting what validation
				// already enforced: a reviewer confirms it.
				r.Severity = finding.Warning
				r.Message += " (explicitly marked required: confirm that validation already rejected objects without it)"
				r.Hint = "keep it only if the API server already required the field; otherwise keep it optional"
			}
			c.Field(fd, c.restoresRelease(fd, c.relaxNoSchema(fd, r, finding.Info)))
		}
	},
}

// onlySchemaRequired says why a field that became required in the
// schema only by losing omitempty changes nothing any server enforces
// ("" when it does): schemaOnly (the schema's required list is the only
// change found), the field is a struct value at both revisions (of one
// Go type), whose omitempty omitted nothing (encoding/json writes every
// struct value), not marked +required, and its group's API server
// decodes objects into Go types and validates them in Go, never against
// the schema's required list (not the crd profile, and no CRD manifest
// at head serves a kind of its package: Gardener's extension resources
// are CRDs, its providers' configurations are read by Go code).
func (c *Context) onlySchemaRequired(fd *model.FieldDiff, schemaOnly bool) string {
	b, h := fd.Base, fd.Head
	if !schemaOnly || h.Required() || b.Type != h.Type || b.ValueKind != model.KindStructValue || h.ValueKind != model.KindStructValue ||
		!b.JSON.OmitEmpty || b.JSON.OmitZero || c.Policy(fd.Type.Pkg).SchemaValidates {
		return ""
	}
	if p, ms := fd.Type.Pkg.Head, c.Manifests(); p != nil && p.GroupName != "" && ms != nil {
		for _, k := range rootKinds(p) {
			if _, served := ms.Head.Kind(p.GroupName, k); served {
				return ""
			}
		}
	}
	return "; its JSON is unchanged (omitempty omits no struct value: Go clients sent it before as now), and this group's objects " +
		"are decoded into Go types and validated in Go, which enforces no schema's required list"
}

// becameStruct reports a field that is omitted when empty no more only
// because its type became a struct that JSON writes as an object, which
// omitempty never omits: its json tag kept its omit options, and the
// struct has no JSON form of its own (metav1.Duration writes a string,
// metav1.Time null; a type of the repository with its own MarshalJSON
// decides).
func (c *Context) becameStruct(fd *model.FieldDiff) bool {
	b, h := fd.Base, fd.Head
	if b.JSON.OmitEmpty != h.JSON.OmitEmpty || b.JSON.OmitZero != h.JSON.OmitZero ||
		h.ValueKind != model.KindStructValue || b.ValueKind == model.KindStructValue {
		return false
	}
	id := headTypeID(fd)
	if jsonKind(id) != "" || nullWhenEmpty[id] {
		return false
	}
	t := c.refs(1).types[id]
	return t == nil || (t.Kind == model.KindStruct && !t.CustomJSON)
}

// headTypeID is the qualified identity of field fd's type at head,
// pointers dropped.
func headTypeID(fd *model.FieldDiff) string {
	return qualified(fd.Type.Pkg.Head.ImportPath, wireID(fd.Head.TypeID))
}

// emptyObjectSent words FIELD_BECAME_REQUIRED's finding r for a field
// whose type became a struct value (becameStruct) and that stays optional:
// Go clients now send an empty object for it. An error when the schema
// requires a member of the struct that has no default (the empty object
// fails validation), a warning when it requires none (the object passes,
// but it is stored, and a default of the field no longer applies) or
// when that is not known: the struct, or a struct it inlines, is declared
// outside the repository.
func (c *Context) emptyObjectSent(fd *model.FieldDiff, r Report) Report {
	typ, was := strings.TrimLeft(fd.Head.Type, "*"), fd.Base.Type
	sent := fmt.Sprintf("its type became the struct value %s (it was %s), which omitempty does not omit, "+
		"so Go clients now send an empty object for an unset field", typ, was)
	r.Hint = "make it a pointer again (or tag it omitzero, Go 1.24) to keep an unset field absent"
	rejects, unknown := emptyObjectRejects(c.refs(1), headTypeID(fd), c.Policy(fd.Type.Pkg).SchemaDefaults, 0)
	if !emptyObjectAllowed(contractOf(fd.Head).Validation) {
		rejects = append(rejects, "a rule of the field")
	}
	switch {
	case len(rejects) > 0:
		r.Message = fmt.Sprintf("field %s.%s became required: %s, which may fail validation (%s: %s)",
			fd.Type.Name(), fd.Name(), sent, typ, strings.Join(slices.Compact(rejects), ", "))
	case len(unknown) == 0:
		r.Severity = finding.Warning
		r.Message = fmt.Sprintf("field %s.%s is no longer omitted when empty: %s; it stays optional and %s requires no member, "+
			"so the object passes validation, but it is stored where nothing was, and a default of the field no longer applies to it",
			fd.Type.Name(), fd.Name(), sent, typ)
	default:
		r.Severity = finding.Warning
		r.Message = fmt.Sprintf("field %s.%s is no longer omitted when empty: %s; it stays optional; whether %s accepts an empty object was not checked "+
			"(%s declared outside the repository)", fd.Type.Name(), fd.Name(), sent, typ, strings.Join(unknown, ", "))
		r.Hint = "confirm " + typ + " requires no member; " + r.Hint
	}
	return r
}

// restoresRelease makes finding r of FIELD_BECAME_REQUIRED, when it is
// above info, information if the release before base had the field as
// head has it, required and not omitted: the change reverts what base
// loosened since that release, and no release ever served the optional
// form (external-secrets reverted main to v0.15's API, whose
// GCPWorkloadIdentity.ClusterName was required).
func (c *Context) restoresRelease(fd *model.FieldDiff, r Report) Report {
	return c.relaxByRelease(r, func() (bool, error) {
		rf, found, err := c.analyses.Release.ReleaseField(fd)
		if err != nil || !found {
			return false, err
		}
		rc, hc := contractOf(rf), contractOf(fd.Head)
		return rc.Presence == hc.Presence && rc.Omit == hc.Omit, nil
	}, func(rel lifecycle.Release) string {
		return fmt.Sprintf("as release %s had it: the change restores the released form", rel.Newest.Name)
	})
}

// statusMember reports an API path that names a direct member of a
// kind's status ("JobSet.status.restarts").
func statusMember(apiPath string) bool {
	parts := strings.Split(apiPath, ".")
	return len(parts) == 3 && parts[1] == "status"
}

// requiredWhy says what makes a field required.
func requiredWhy(f *model.Field) string {
	if f.Required() {
		return "it is marked required"
	}
	return "it has neither an optional marker nor omitempty"
}

var FieldRenamed = &Rule{
	ID:          "FIELD_RENAMED",
	Category:    CatCompat,
	Severity:    finding.Info,
	ReleaseNote: fixedNote("field renamed"),
	Relax:       relaxedToInfo,
	Judges:      []model.Attr{model.AttrGoName},
	Summary:     "A Go field name changed while its json name and protobuf number stayed.",
	Why:         "The wire is unchanged, but Go clients of the API package stop compiling.",
	Fix:         "Intended renames are fine; mention them in the release note for Go clients.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Renamed {
				continue
			}
			what := "json and protobuf unchanged"
			if fd.Has(model.AttrJSONName) || fd.Has(model.AttrInline) {
				what = "the json name changed too, reported separately"
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("Go field %s.%s was renamed to %s (%s)", fd.Type.Name(), fd.Base.Name, fd.Head.Name, what),
				Hint:    "Go clients must be updated; mention the rename in the release note",
			})
		}
	},
}

var FieldDefaultChanged = &Rule{
	ID:           "FIELD_DEFAULT_CHANGED",
	Uses:         []Input{InputManifests},
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Warning,
	Judges:       []model.Attr{model.AttrDefault},
	ReleaseNote:  fixedNote("default changed"),
	Summary: "The default (`+default=`, `+kubebuilder:default=`, `+k8s:default=`) of an existing field was added, removed or changed. " +
		"A zero-value default added to a field that cannot be nil is no change. Info where the CRD manifests are hand-written (see " +
		"NEW_FIELD_NOT_OPTIONAL) and gave the field the new default already (or, for a removed marker, still give the old one): " +
		"the API server applies what the manifests say.",
	Why: "Defaults are applied when objects are read from storage: changing one silently changes existing objects.",
	Fix: "Keep the default; if it must change, handle it through a new field or version.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrDefault) {
				continue
			}
			bd, hd := contractOf(fd.Base).Default, contractOf(fd.Head).Default
			var msg string
			switch {
			case bd == nil:
				if isZeroDefault(*hd, fd.Head) {
					continue // the zero value of a non-nillable field: what an absent value decodes to anyway
				}
				msg = fmt.Sprintf("default %s was added to existing field %s.%s", *hd, fd.Type.Name(), fd.Name())
				if c.Policy(fd.Type.Pkg).DefaultsAreDocumentation {
					// Built-in types are defaulted in Go code; the marker
					// usually documents a default that was applied already.
					c.Field(fd, Report{Severity: finding.Info, Message: msg + " (a default marker on a built-in type documents Go defaulting; confirm the defaulter applied it before)",
						Hint: "fine when the defaulting code already set this value"})
					continue
				}
			case hd == nil:
				if isZeroDefault(*bd, fd.Base) {
					continue
				}
				msg = fmt.Sprintf("default %s was removed from field %s.%s", *bd, fd.Type.Name(), fd.Name())
			default:
				msg = fmt.Sprintf("default of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), *bd, *hd)
			}
			r := Report{Message: msg, Hint: "changing a default changes existing stored objects when they are read; keep it or add a new field"}
			same, differs := c.manifestDefault(fd)
			r.Message += differs
			c.Field(fd, c.relaxTo(r, finding.Info, func() (string, error) { return same, nil }))
		}
	},
}

// isZeroDefault reports a default that equals the zero value of a field
// whose type cannot be nil (so an absent value already decodes to it).
func isZeroDefault(v string, f *model.Field) bool {
	if f.Nillable != model.NotNillable {
		return false
	}
	switch f.ValueKind {
	case model.KindString:
		return v == `""` || v == ""
	case model.KindNumber:
		return v == "0" || v == "0.0"
	case model.KindBool:
		return v == "false"
	}
	return false
}

var PatchStrategyChanged = &Rule{
	ID:           "PATCH_STRATEGY_CHANGED",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Relax:        patchInert,
	Category:     CatCompat,
	Severity:     finding.Error,
	Judges:       []model.Attr{model.AttrPatchStrategy, model.AttrPatchMergeKey},
	ReleaseNote:  fixedNote("patch strategy changed"),
	Summary: "`patchStrategy` or `patchMergeKey` (tag or marker) changed on an existing field (info under the crd profile: " +
		"the API server accepts no strategic merge patch of custom resources, and server-side apply reads `+listType`).",
	Why: "Strategic merge patch uses them to merge lists: clients built against the old metadata send " +
		"patches that now replace or merge differently.",
	Fix:    "Keep the patch metadata; to support a new merge key use a recommended merge key that starts with the old one.",
	Before: "Ports []Port `patchStrategy:\"merge\" patchMergeKey:\"name\"`",
	After:  "Ports []Port `patchStrategy:\"merge\" patchMergeKey:\"port\"` // as at base",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			var what []string
			bc, hc := contractOf(fd.Base), contractOf(fd.Head)
			if fd.Has(model.AttrPatchStrategy) {
				what = append(what, fmt.Sprintf("patchStrategy %q -> %q", bc.PatchStrategy, hc.PatchStrategy))
			}
			if fd.Has(model.AttrPatchMergeKey) {
				what = append(what, fmt.Sprintf("patchMergeKey %q -> %q", bc.PatchMergeKey, hc.PatchMergeKey))
			}
			if len(what) == 0 {
				continue
			}
			if bl, hl := bc.List, hc.List; (bl != nil && bl.From == "patch strategy" || hl != nil && hl.From == "patch strategy") &&
				listDesc(bl) != listDesc(hl) {
				what = append(what, "server-side apply follows: "+listKind(bl)+" -> "+listKind(hl))
			}
			c.Field(fd, Report{
				Message: fmt.Sprintf("patch metadata of %s.%s changed: %s", fd.Type.Name(), fd.Name(), strings.Join(what, ", ")),
				Hint:    "restore the patch strategy and merge key; they are part of the wire contract",
			})
		}
	},
}

var ListTypeChanged = &Rule{
	ID:           "LIST_TYPE_CHANGED",
	ReleasedOnly: true,
	Alpha:        finding.Info,
	Category:     CatCompat,
	Severity:     finding.Error,
	Judges:       []model.Attr{model.AttrListType},
	ReleaseNote:  fixedNote("list type changed"),
	Summary: "The list semantics server-side apply uses for an existing field changed: atomic, set, or map and its keys " +
		"(from `+listType`/`+listMapKey`, else from `patchStrategy:\"merge\"` and `patchMergeKey`, else atomic). A warning from " +
		"atomic to set or map (appliers keep working; existing items must be unique). Info when a list map only adds keys that are " +
		"optional members new in its items, where items may leave a key out (not custom resources, whose keys must be required or defaulted). " +
		"A field whose new type is no list, or was none, is FIELD_TYPE_CHANGED's.",
	Why: "Server-side apply merges lists by these semantics; changing them changes field ownership and merge results. " +
		"A marker that states what was already in effect (`+listType=atomic` on an unmarked list, `+listType=map` keyed by the " +
		"existing patchMergeKey) changes nothing and is not reported.",
	Fix: "Keep the list semantics as they were.",
	Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrListType) {
				continue
			}
			bl, hl := contractOf(fd.Base).List, contractOf(fd.Head).List
			if (fd.Has(model.AttrPatchStrategy) || fd.Has(model.AttrPatchMergeKey)) &&
				(bl != nil && bl.From == "patch strategy" || hl != nil && hl.From == "patch strategy") {
				continue // follows from the patch metadata: PATCH_STRATEGY_CHANGED reports it
			}
			if (bl == nil) != (hl == nil) && fd.Has(model.AttrGoType) {
				continue // a list no more, or now: FIELD_TYPE_CHANGED reports the type
			}
			r := Report{
				Message: fmt.Sprintf("list semantics of %s.%s changed from %s to %s", fd.Type.Name(), fd.Name(), listDesc(bl), listDesc(hl)),
				Hint:    "restore the list semantics of base (" + listDesc(bl) + ")",
			}
			if bl != nil && hl != nil && bl.Type == "atomic" && (hl.Type == "set" || hl.Type == "map" && len(hl.Keys) > 0) {
				// Kubernetes' server-side apply documentation: from
				// atomic to granular the server cannot infer who owns
				// the existing items, so no conflict arises (the other
				// way every later change conflicts). What remains is the
				// new uniqueness of items, a tightening.
				r.Severity = finding.Warning
				r.Message += "; from atomic to granular, appliers keep working (ownership of existing items is not inferred, so no conflict arises), " +
					"but existing objects must hold unique items" + map[bool]string{true: " with their keys set", false: ""}[hl.Type == "map"]
				r.Hint = "confirm that existing objects hold no duplicate items; keep atomic otherwise"
			} else if added := newOptionalKeys(fd, bl, hl); added != nil && c.Policy(fd.Type.Pkg).OptionalMapKeys {
				// kubernetes/api's ResourceClaimStatus.Devices gained the
				// key shareID, a member new in its items: no existing item
				// has it, and an absent key is no part of an item's
				// identity, so every item keeps its key and the
				// managed-fields paths recorded for it.
				r.Severity = finding.Info
				r.Message += fmt.Sprintf("; the added key %s is a new optional member of the items: no existing item has it, "+
					"so each keeps its identity, and only items that set it may share the other keys", strings.Join(added, ", "))
				r.Hint = ""
			}
			c.Field(fd, r)
		}
	},
}

// newOptionalKeys returns the keys head's list map adds to base's, when
// base's keys are all kept and each added key is an optional member of
// the items' struct (of the package) that base's struct did not have;
// nil otherwise.
func newOptionalKeys(fd *model.FieldDiff, bl, hl *model.ListSemantics) []string {
	if bl == nil || hl == nil || bl.Type != "map" || hl.Type != "map" || len(bl.Keys) == 0 || len(hl.Keys) <= len(bl.Keys) {
		return nil
	}
	for _, k := range bl.Keys {
		if !slices.Contains(hl.Keys, k) {
			return nil
		}
	}
	pd := fd.Type.Pkg
	be, he := localElem(pd.Base, fd.Base.TypeID), localElem(pd.Head, fd.Head.TypeID)
	if be == nil || he == nil {
		return nil
	}
	var added []string
	for _, k := range hl.Keys {
		if slices.Contains(bl.Keys, k) {
			continue
		}
		if slices.ContainsFunc(be.Fields, func(f *model.Field) bool { return f.WireName() == k }) {
			return nil // a member items may already set: their identity changes
		}
		i := slices.IndexFunc(he.Fields, func(f *model.Field) bool { return f.WireName() == k })
		if i < 0 || contractOf(he.Fields[i]).Presence != model.Optional {
			return nil
		}
		added = append(added, k)
	}
	return added
}

// localElem returns the struct of package p that a list's type names
// ("[]Item", "[]*Item"), nil for any other type.
func localElem(p *model.Package, typeID string) *model.Type {
	name, ok := strings.CutPrefix(typeID, "[]")
	if !ok || p == nil {
		return nil
	}
	name = strings.TrimPrefix(name, "*")
	if !token.IsIdentifier(name) {
		return nil
	}
	if t := p.Type(name); t != nil && t.Kind == model.KindStruct {
		return t
	}
	return nil
}

// listKind describes list semantics.
func listKind(l *model.ListSemantics) string {
	switch {
	case l == nil:
		return "no list"
	case l.Type == "map" && len(l.Keys) == 0:
		return "map without keys"
	case l.Type == "map":
		return "map keyed by " + strings.Join(l.Keys, ",")
	}
	return l.Type
}

// listDesc describes list semantics and where they come from.
func listDesc(l *model.ListSemantics) string {
	if l == nil {
		return "no list"
	}
	d := listKind(l)
	switch l.From {
	case "default":
		return d + " (unmarked)"
	case "patch strategy":
		return d + " (from the patch strategy)"
	}
	return d
}

var TypeRemoved = &Rule{
	ID:          "TYPE_REMOVED",
	Uses:        []Input{InputManifests},
	Alpha:       finding.Info,
	Category:    CatCompat,
	Severity:    finding.Error,
	ReleaseNote: fixedNote("type removed"),
	Relax:       relaxedToInfo,
	Summary: "An exported type of an external version at base is gone at head. A type that only fields or types " +
		"removed (or retyped) by the same change used, or that nothing used, is reported as info; a removed kind " +
		"stays an error, unless the CRD manifests at base did not serve it at that version (info) or head's still serve it " +
		"(a warning: its Go type moved out of the repository).",
	Why: "Go clients referring to the type stop compiling; a removed kind disappears from the API. A type used only " +
		"by a removed field goes with that field, whose own finding covers the wire. A type the release before base did not " +
		"have in that version (added and removed again in one release cycle, e.g. a revert) is information.",
	Fix: "Keep the type (deprecate it) until the API version is removed.",
	Check: func(c *Context) {
		var groups []string // of removed kinds: their manifests are read in one pass
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if pd.Head != nil && td.Base != nil && td.Head == nil && td.Base.RootKind {
					groups = append(groups, pd.Base.GroupName)
				}
			}
		}
		loadManifests(c, groups)
		for pd := range c.Diff.ExternalPackages() {
			if pd.Head == nil {
				continue // the whole version went away: VERSION_REMOVED reports it
			}
			for _, td := range pd.Types {
				if td.Base == nil || td.Head != nil {
					continue
				}
				r := Report{
					Message: fmt.Sprintf("type %s was removed from %s", td.Base.Name, pd.Version),
					Hint:    "keep the type until the API version itself is removed",
					Related: []finding.Related{related("base", td.Base.Pos)},
				}
				if kind := kindOf(pd.Base, td.Base); kind != nil && kind.Deprecated {
					if v, ok := kind.Markers.Get("k8s:prerelease-lifecycle-gen:removed"); ok && v != "" {
						r.Severity = finding.Info
						r.Message += fmt.Sprintf(" (kind %s is no longer served since %s: +k8s:prerelease-lifecycle-gen:removed=%s)", kind.Name, v, v)
						r.Hint = "Go clients referring to the type break; the API server stopped serving the kind before"
					} else {
						r.Severity = finding.Warning
						r.Message += fmt.Sprintf("; kind %s was deprecated at base, so the removal was announced", kind.Name)
						r.Hint = "confirm the deprecation period is over and the removal is in the release note"
					}
				} else if why, ok := unservedKinds(c, c.Manifests(), pd.Base.GroupName, pd.Base, []string{td.Base.Name}); ok && td.Base.RootKind {
					r.Severity = finding.Info
					r.Message += "; " + why
					r.Hint = "Go clients referring to the type break; the API server did not serve the kind at this version at base"
				} else if why, ok := servedAtHead(c, pd.Base.GroupName, pd.Base, []string{td.Base.Name}, "Go type"); ok && td.Base.RootKind {
					r.Severity = finding.Warning
					r.Message += "; " + why
					r.Hint = "Go clients referring to the type break: tell them where it went; if the manifests are stale, regenerate them (then this removes a served kind)"
				} else if !td.Base.RootKind {
					if users, alive := typeUsers(pd, td.Base.Name); !alive {
						r.Severity = finding.Info
						if len(users) > 0 {
							r.Message += fmt.Sprintf(" together with what used it (%s)", strings.Join(users, ", "))
						} else {
							r.Message += " (nothing in the package used it)"
						}
						r.Hint = "Go clients referring to the type break; the wire is judged by the findings about the fields that used it"
					}
				}
				c.Type(td, c.unreleasedType(td, r))
			}
		}
	},
}

// typeUsers lists the fields and types of a package at base that refer to
// the type name, and whether any of those references survives at head (a
// field still there with a type that mentions it, a type still there
// whose definition mentions it).
func typeUsers(pd *model.PackageDiff, name string) (users []string, alive bool) {
	for _, bt := range pd.Base.Types {
		if bt.Name == name {
			continue
		}
		ht := pd.Head.Type(bt.Name)
		if bt.Kind != model.KindStruct {
			if mentionsType(bt.Underlying, name) {
				users = append(users, bt.Name)
				if ht != nil && mentionsType(ht.Underlying, name) {
					alive = true
				}
			}
			continue
		}
		for _, f := range bt.Fields {
			if !mentionsType(f.Type, name) {
				continue
			}
			users = append(users, bt.Name+"."+f.Name)
			if ht != nil {
				if hf := ht.Field(f.Name); hf != nil && mentionsType(hf.Type, name) {
					alive = true
				}
			}
		}
	}
	return users, alive
}

// mentionsType reports whether a type expression refers to the
// package-local type name (as a whole identifier, not qualified).
func mentionsType(expr, name string) bool {
	for i := 0; i+len(name) <= len(expr); {
		j := strings.Index(expr[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		before := j == 0 || !isIdentByte(expr[j-1]) && expr[j-1] != '.'
		after := end == len(expr) || !isIdentByte(expr[end])
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

var TypeRenamed = &Rule{
	ID:          "TYPE_RENAMED",
	Category:    CatCompat,
	Severity:    finding.Info,
	ReleaseNote: fixedNote("type renamed"),
	Relax:       relaxedToInfo,
	Summary: "An exported type was renamed in Go: a removed type and a new one with the same fields, or a struct whose name " +
		"a new type took over while every field that used it moved to a new type (its fields are then judged against the old ones).",
	Why: "The wire is unchanged but Go clients stop compiling.",
	Fix: "Intended renames are fine; keep a type alias `type Old = New` for Go clients if possible.",
	Check: func(c *Context) {
		for pd := range c.Diff.ExternalPackages() {
			for _, td := range pd.Types {
				if !td.Renamed {
					continue
				}
				r := Report{
					Message: fmt.Sprintf("type %s was renamed to %s (same fields)", td.Base.Name, td.Head.Name),
					Hint:    fmt.Sprintf("consider keeping `type %s = %s` for Go clients", td.Base.Name, td.Head.Name),
				}
				if !model.SameShape(td.Base, td.Head) {
					r.Message = fmt.Sprintf("type %s was renamed to %s; its fields are judged against %s's", td.Base.Name, td.Head.Name, td.Base.Name)
				}
				if pd.Head != nil && pd.Head.Type(td.Base.Name) != nil {
					r.Message += fmt.Sprintf(", and %s now names another type", td.Base.Name)
					r.Hint = fmt.Sprintf("Go clients that use %s break, or compile against the new type: mention it in the release note", td.Base.Name)
				}
				c.Type(td, r)
			}
		}
	},
}

// foreignConsts memoises the constant values of named types by identity
// ("import/path.Name"), read from the packages of a model.
type foreignConsts map[string]map[string]bool

// values returns the values of the constants of type id that m declares
// (in its API packages and the shared packages beside them).
func (f foreignConsts) values(m *model.Model, id string) map[string]bool {
	if v, ok := f[id]; ok {
		return v
	}
	out := map[string]bool{}
	f[id] = out
	dot := strings.LastIndexByte(id, '.')
	if m == nil || dot <= 0 {
		return out
	}
	path, name := id[:dot], id[dot+1:]
	pkgs := slices.Clone(m.Shared)
	for _, g := range m.Groups {
		pkgs = append(pkgs, g.Packages()...)
	}
	for _, p := range pkgs {
		if p.ImportPath != path {
			continue
		}
		for _, k := range p.Consts {
			if k.Type == name {
				out[constValue(k.Value)] = true
			}
		}
	}
	return out
}

var EnumValueRemoved = &Rule{
	ID:          "ENUM_VALUE_REMOVED",
	Alpha:       finding.Info,
	Category:    CatCompat,
	Severity:    finding.Warning,
	ReleaseNote: fixedNote("enum value removed"),
	Relax:       relaxedToInfo,
	Summary: "A value of a named API string/int type at base is gone at head: no constant of the type has it any more " +
		"(a constant removed, or kept with another value; a constant renamed while its value stays, or the value respelled " +
		"(`\"A\"` as a raw string, `1_000` as `1000`), is no removal, nor is a type that became an alias of another package's type " +
		"declaring the value). Condition types are open sets and exempt. " +
		"Info for a value documented as available only below a version (\"Only available for Kubernetes versions < v1.30.\").",
	Why: "Stored objects and clients may still use the value; Go clients referring to the constant break.",
	Fix: "Keep the constant (deprecated) while the value can still be stored.",
	Check: func(c *Context) {
		foreign := foreignConsts{}
		for pd := range c.Diff.ExternalPackages() {
			if pd.Head == nil {
				continue
			}
			values := map[string]bool{} // type + value at head
			for _, k := range pd.Head.Consts {
				values[k.Type+"\x00"+constValue(k.Value)] = true
			}
			reported := map[string]bool{} // a value two constants had is one removal
			for _, cd := range pd.Consts {
				if cd.Base == nil {
					continue
				}
				t := pd.Head.Type(cd.Base.Type)
				if t == nil {
					continue // the type itself was removed: TYPE_REMOVED
				}
				if cd.Head != nil {
					// The name stays: its value went only when both values
					// are literals that differ. A value written as another
					// constant (v1.ClusterScope) cannot be evaluated here,
					// and the same value under a renamed type is the type's
					// business (TYPE_* rules), not a removed value.
					bv, ok1 := literalValue(cd.Base.Value)
					hv, ok2 := literalValue(cd.Head.Value)
					if !ok1 || !ok2 || bv == hv {
						continue
					}
				}
				// A type head keeps as an alias of another (type A = B)
				// has B's values.
				typ := cd.Base.Type
				if target := model.AliasTarget(pd.Head, t); target != "" {
					typ = target
				} else if t.Alias && foreign.values(c.Diff.Head, t.UnderlyingID)[constValue(cd.Base.Value)] {
					// An alias of another package's type (gateway-api's
					// v1beta1.ProtocolType = v1.ProtocolType) has that
					// type's values.
					continue
				}
				v := typ + "\x00" + constValue(cd.Base.Value)
				if values[v] || reported[v] || strings.HasSuffix(cd.Base.Type, "ConditionType") {
					continue
				}
				reported[v] = true
				r := Report{
					Message: fmt.Sprintf("constant %s (%s = %s) was removed", cd.Base.Name, cd.Base.Type, cd.Base.Value),
					Hint:    "keep the constant while stored objects may carry the value",
					Related: []finding.Related{related("base", cd.Base.Pos)},
				}
				if cd.Head != nil {
					// The name stays, the value it stood for is gone.
					r.Message = fmt.Sprintf("constant %s (%s) changed its value from %s to %s: no constant of %s has %s any more",
						cd.Base.Name, cd.Base.Type, cd.Base.Value, cd.Head.Value, cd.Base.Type, cd.Base.Value)
					r.Hint = "keep the old value (add a constant for the new one) while stored objects may carry it"
				}
				if cd.Base.Below != "" {
					// A value documented as available only below a version
					// goes when those versions lose support.
					r.Severity = finding.Info
					r.Message += fmt.Sprintf(" (documented as available only for versions below %s: removed with the support for those versions)", cd.Base.Below)
					r.Hint = fmt.Sprintf("confirm that no supported version is below %s and that validation rejects the value", cd.Base.Below)
				}
				pos := t.Pos
				if cd.Head != nil {
					pos = cd.Head.Pos
				}
				c.Const(cd, pos, r)
			}
		}
	},
}

// literalValue is constValue of a string or integer literal; ok is false
// for any other expression.
func literalValue(v string) (string, bool) {
	c := constValue(v)
	return c, c != v || strings.HasPrefix(v, "\"") && strings.HasSuffix(v, "\"") || isDecimal(v)
}

func isDecimal(v string) bool {
	_, err := strconv.ParseInt(v, 10, 64)
	return err == nil
}

// constValue is a constant's value as the wire sees it: a string literal
// by its contents ("Proposed" and `Proposed` are one value), an integer
// literal in decimal (0x10 and 16 are one value); any other expression as
// written.
func constValue(v string) string {
	if s, err := strconv.Unquote(v); err == nil {
		return strconv.Quote(s)
	}
	if n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 0, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return v
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

// because is "; <why>" for a finding's message, or "" without a reason.
func because(why string) string {
	if why == "" {
		return ""
	}
	return "; on the wire " + why
}
