package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// EnumValueRemoved is ENUM_VALUE_REMOVED.
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

// literalValue is constValue of a string or integer literal; ok is false
// for any other expression.
func literalValue(v string) (string, bool) {
	c := constValue(v)
	return c, c != v || strings.HasPrefix(v, "\"") && strings.HasSuffix(v, "\"") || isDecimal(v)
}

// isDecimal reports a decimal integer literal.
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
