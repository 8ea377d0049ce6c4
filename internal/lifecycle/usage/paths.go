package usage

import (
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// Path matching: when the type of a selector's receiver cannot be
// resolved (it comes from a package that is not type-checked, such as a
// third-party module), the selector chain is compared with the Go field
// paths by which the removed field's root kinds reach it. `shoot.Spec.DNS.
// Providers[i].Zones` matches the path Shoot.Spec.DNS.Providers.Zones;
// `be.Spec.SecretRef` matches BackupBucket.Spec.SecretRef only when be's
// type is unknown, because a known type decides by itself.

// seg is one step of a field path: a Go field name, and whether the field
// is embedded (Go code may skip it: x.Spec.Field for x.Spec.Embedded.Field).
type seg struct {
	name     string
	embedded bool
}

// Bounds of the path enumeration, so that a pathological API (deep or
// very branchy) costs little.
const (
	maxPaths     = 64
	maxPathDepth = 16
)

// kindPaths returns the Go field paths from the root kinds of pkg to the
// field name of struct typ, the field included; with no root kind
// reaching typ, the path is the field alone.
func kindPaths(pkg *model.Package, typ, field string) [][]seg {
	var out [][]seg
	if pkg != nil {
		var walk func(t *model.Type, prefix []seg, onPath map[string]bool)
		walk = func(t *model.Type, prefix []seg, onPath map[string]bool) {
			if len(out) >= maxPaths || len(prefix) >= maxPathDepth {
				return
			}
			if t.Name == typ {
				out = append(out, append(append([]seg(nil), prefix...), seg{name: field}))
				// Keep walking: typ may also be reached through itself.
			}
			onPath[t.Name] = true
			defer delete(onPath, t.Name)
			for _, f := range t.Fields {
				ft := pkg.Type(model.LocalTypeName(f.Type))
				if ft == nil || ft.Kind != model.KindStruct || onPath[ft.Name] {
					continue
				}
				walk(ft, append(prefix, seg{name: f.Name, embedded: f.Embedded}), onPath)
			}
		}
		for _, t := range pkg.Types {
			if t.RootKind && t.Kind == model.KindStruct {
				walk(t, nil, map[string]bool{})
			}
		}
	}
	if len(out) == 0 {
		out = [][]seg{{{name: field}}}
	}
	return out
}

// matchChain reports whether a selector chain (Go names, outermost
// receiver first, the selected name last) names the field by one of its
// paths: the chain is a suffix of the path (embedded steps may be
// skipped) of at least two names, or the whole path when the path is a
// single name.
func matchChain(chain []string, paths [][]seg) bool {
	for _, p := range paths {
		if matchOne(chain, p) {
			return true
		}
	}
	return false
}

func matchOne(chain []string, p []seg) bool {
	named := 0
	for _, s := range p {
		if !s.embedded {
			named++
		}
	}
	if len(chain) < min(2, named) {
		return false
	}
	i, j := len(chain)-1, len(p)-1
	for i >= 0 {
		switch {
		case j < 0:
			return false
		case chain[i] == p[j].name:
			i--
			j--
		case p[j].embedded:
			j--
		default:
			return false
		}
	}
	return true
}

// pathString renders the paths of a field for messages: the first path,
// ".Spec.DNS.Providers.Zones".
func pathString(paths [][]seg) string {
	if len(paths) == 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range paths[0] {
		b.WriteString("." + s.name)
	}
	return b.String()
}
