package rules

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/regexlang"
)

// Changes to a field's validation (+kubebuilder:validation:*, +k8s:*),
// constraint by constraint, as tightening or loosening: VALIDATION_TIGHTENED
// and VALIDATION_LOOSENED share this check and differ in the direction.

// validationCheck is the Check of VALIDATION_TIGHTENED (tighter) and
// VALIDATION_LOOSENED: an existing field whose validation changed in that
// direction, each change named.
func validationCheck(tighter bool) func(c *Context) {
	return func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			if !fd.Has(model.AttrValidation) {
				continue
			}
			var what []string
			mirrors := c.Policy(fd.Type.Pkg).DeclarativeValidationMirrors
			unsignedOnly := tighter
			for _, ch := range constraintChanges(contractOf(fd.Base).Validation, contractOf(fd.Head).Validation) {
				if ch.tighter == tighter {
					what = append(what, ch.String())
					mirrors = mirrors && strings.HasPrefix(ch.marker, "+k8s:")
					unsignedOnly = unsignedOnly && nonNegativeMinimum(ch) && unsignedType(fd.Base.Type)
				}
			}
			if len(what) == 0 {
				continue
			}
			verb, hint := "tightened", "existing objects that violate the new constraint can no longer be updated; keep the old bound or ratchet the validation"
			if !tighter {
				verb, hint = "loosened", "older API servers reject values newer clients may now send; fine once every server accepts them"
			}
			r := Report{
				Message: fmt.Sprintf("validation of %s.%s %s: %s", fd.Type.Name(), fd.Name(), verb, strings.Join(what, "; ")),
				Hint:    hint,
			}
			if unsignedOnly {
				// prometheus-operator added Minimum=0 to its uint64 limits:
				// the values it rules out never decoded into the Go type,
				// so no object its controller could read is rejected.
				r.Severity = finding.Info
				r.Message += fmt.Sprintf(" (the Go type %s never held a negative value)", fd.Base.Type)
				r.Hint = ""
			} else if mirrors {
				// Declarative tags restate the hand-written validation
				// this profile's API server enforces; apicheck cannot see
				// that code, so the tags alone change no contract it knows.
				r.Severity = finding.Info
				r.Hint = "declarative validation tags restate the hand-written validation, which stays authoritative; " +
					"make sure the hand-written rule already " + map[bool]string{true: "rejected", false: "accepted"}[tighter] + " these values"
			}
			c.Field(fd, r)
		}
	}
}

// constraintChange is one difference between the validation of a field
// at base and at head.
type constraintChange struct {
	kind, marker string
	old, new     string // "" when absent
	tighter      bool
	// example is a value the change rejects, when one is known.
	example string
}

// String says what changed, as a finding's message names it.
func (ch constraintChange) String() string {
	show := func(v string) string {
		if v == "" || v == "true" && ch.kind == "immutable" {
			return ch.marker
		}
		if ch.kind == "rule" {
			return fmt.Sprintf("%s %q", ch.marker, v)
		}
		return ch.marker + "=" + v
	}
	switch {
	case ch.old == "" && ch.new == "":
		return ch.marker + " added"
	case ch.old == "":
		return show(ch.new) + " added"
	case ch.new == "":
		return show(ch.old) + " removed"
	}
	s := fmt.Sprintf("%s changed from %s to %s", ch.marker, ch.old, ch.new)
	if ch.example != "" {
		s += " (" + ch.example + ")"
	}
	return s
}

// lowerBounds and upperBounds are the constraints whose value bounds from
// below or above: raising a lower bound tightens, raising an upper one
// loosens.
var (
	lowerBounds = map[string]bool{"minimum": true, "exclusiveMinimum": true, "minLength": true, "minItems": true, "minProperties": true}
	upperBounds = map[string]bool{"maximum": true, "exclusiveMaximum": true, "maxLength": true, "maxItems": true, "maxProperties": true}
)

// constraintChanges compares validation constraints kind by kind.
func constraintChanges(base, head []model.Constraint) []constraintChange {
	byKind := func(cs []model.Constraint) map[string][]model.Constraint {
		m := map[string][]model.Constraint{}
		for _, c := range cs {
			m[c.Kind] = append(m[c.Kind], c)
		}
		return m
	}
	b, h := byKind(base), byKind(head)
	kinds := slices.AppendSeq(slices.Collect(maps.Keys(b)), maps.Keys(h))
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	var out []constraintChange
	for _, k := range kinds {
		bs, hs := b[k], h[k]
		marker := func(cs ...[]model.Constraint) string {
			for _, l := range cs {
				if len(l) > 0 {
					return l[0].Marker
				}
			}
			return k
		}(hs, bs)
		switch {
		case len(bs) == 1 && len(hs) == 1 && (lowerBounds[k] || upperBounds[k]):
			if bs[0].Value == hs[0].Value {
				continue
			}
			bv, ok1 := new(big.Rat).SetString(bs[0].Value)
			hv, ok2 := new(big.Rat).SetString(hs[0].Value)
			tighter := true
			if ok1 && ok2 {
				tighter = (lowerBounds[k] && hv.Cmp(bv) > 0) || (upperBounds[k] && hv.Cmp(bv) < 0)
			}
			out = append(out, constraintChange{kind: k, marker: marker, old: bs[0].Value, new: hs[0].Value, tighter: tighter})
		case k == "enum" && len(bs) == 1 && len(hs) == 1:
			bvals, hvals := strings.Split(bs[0].Value, ";"), strings.Split(hs[0].Value, ";")
			removed := slices.ContainsFunc(bvals, func(v string) bool { return !slices.Contains(hvals, v) })
			if bs[0].Value != hs[0].Value {
				out = append(out, constraintChange{kind: k, marker: marker, old: bs[0].Value, new: hs[0].Value, tighter: removed})
			}
		case k == "pattern" && len(bs) == 1 && len(hs) == 1:
			if bs[0].Value == hs[0].Value {
				continue
			}
			// The patterns' languages decide: a pattern that accepts every
			// value the old one did loosens, whatever its spelling.
			ch := constraintChange{kind: k, marker: marker, old: bs[0].Value, new: hs[0].Value, tighter: true}
			switch verdict, witness := regexlang.Compare(bs[0].Value, hs[0].Value); verdict {
			case regexlang.Same:
				continue
			case regexlang.Wider:
				ch.tighter = false
			case regexlang.Narrower:
				ch.example = fmt.Sprintf("%s was valid and is rejected now", regexlang.Describe(witness))
			}
			out = append(out, ch)
		case k == "format" && len(bs) == 1 && len(hs) == 1:
			if bs[0].Value != hs[0].Value {
				// Formats are named checks; another name may reject values.
				out = append(out, constraintChange{kind: k, marker: marker, old: bs[0].Value, new: hs[0].Value, tighter: true})
			}
		default:
			// Sets of constraints (CEL rules, repeated markers): each one
			// added tightens, each one removed loosens.
			for _, hc := range hs {
				if !slices.ContainsFunc(bs, func(x model.Constraint) bool { return x.Value == hc.Value }) {
					out = append(out, constraintChange{kind: k, marker: hc.Marker, new: hc.Value, tighter: true})
				}
			}
			for _, bc := range bs {
				if !slices.ContainsFunc(hs, func(x model.Constraint) bool { return x.Value == bc.Value }) {
					out = append(out, constraintChange{kind: k, marker: bc.Marker, old: bc.Value})
				}
			}
		}
	}
	return out
}

// nonNegativeMinimum reports a change to a minimum of at most 0: on an
// unsigned type it rules out negative values only.
func nonNegativeMinimum(ch constraintChange) bool {
	v, ok := new(big.Rat).SetString(ch.new)
	return ch.kind == "minimum" && ok && v.Sign() <= 0
}

// unsignedType reports an unsigned integer type, behind pointers.
func unsignedType(t string) bool {
	t = strings.TrimLeft(t, "*")
	return t == "uint" || t == "uint8" || t == "uint16" || t == "uint32" || t == "uint64"
}
