package rules

import (
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
	"github.com/apicheck/apicheck/internal/model"
)

// Which root kinds reach the structs of a package, by name: VERSION_SKEW
// compares same-named structs of two versions only when a kind reaches
// both, and recognises a field a version already had in another struct of
// the kind (a backport).

// kindReach memoises, per package, the root kinds from which each struct
// type is reachable.
type kindReach map[*model.Package]map[string]map[string]bool

// of returns the root kinds that reach each struct type of p.
func (k kindReach) of(p *model.Package) map[string]map[string]bool {
	if m, ok := k[p]; ok {
		return m
	}
	m := map[string]map[string]bool{}
	for _, r := range p.Types {
		if !r.RootKind || strings.HasSuffix(r.Name, "List") {
			continue
		}
		seen := map[string]bool{r.Name: true}
		queue := []*model.Type{r}
		for len(queue) > 0 {
			t := queue[0]
			queue = queue[1:]
			if m[t.Name] == nil {
				m[t.Name] = map[string]bool{}
			}
			m[t.Name][r.Name] = true
			for _, f := range t.Fields {
				if ft := p.Type(model.LocalTypeName(f.Type)); ft != nil && ft.Kind == model.KindStruct && !seen[ft.Name] {
					seen[ft.Name] = true
					queue = append(queue, ft)
				}
			}
		}
	}
	k[p] = m
	return m
}

// sharesKind reports whether the structs of two versions can be converted
// into each other: some root kind reaches both (by name), or either is
// reached by no kind at all (then nothing says they differ).
// prometheus-operator's v1 HTTPConfig (of ServiceMonitor, PodMonitor,
// Probe) and v1alpha1 HTTPConfig (of ScrapeConfig) only share a name.
func (k kindReach) sharesKind(a, b skewPV) bool {
	if a.pd.Head == nil || b.pd.Head == nil {
		return true
	}
	ka, kb := k.of(a.pd.Head)[a.td.Head.Name], k.of(b.pd.Head)[b.td.Head.Name]
	if len(ka) == 0 || len(kb) == 0 {
		return true
	}
	for kind := range ka {
		if kb[kind] {
			return true
		}
	}
	return false
}

// qualifier matches the package qualifiers of a type expression.
var qualifier = lazyre.New(`\b[A-Za-z_][A-Za-z0-9_]*\.`)

// holds reports whether version x already had, at base and at head, the
// field that version g added to its type fname, in another struct of a
// kind that also reaches g's type: the same json name and the same type
// but for package qualifiers (Cluster API's v1beta2 keeps
// KubeadmControlPlane's taints in spec.machineTemplate.spec, and a change
// adds them to v1beta1's spec.machineTemplate afterwards, a backport).
// Type names, not wire shapes: versions reshape their types (v1beta2's
// UnhealthyMachineCondition counts seconds where v1beta1's holds a
// duration) and conversions map them.
func (k kindReach) holds(x *model.PackageDiff, g skewPV, fname string) bool {
	f := g.td.Head.Field(fname)
	if f == nil || x.Base == nil || x.Head == nil {
		return false
	}
	kinds := k.of(g.pd.Head)[g.td.Head.Name]
	if len(kinds) == 0 {
		return false
	}
	wire, shape := f.WireName(), qualifier.ReplaceAllString(f.Type, "")
	has := func(p *model.Package) bool {
		reach := k.of(p)
		for _, t := range p.Types {
			if !slices.ContainsFunc(t.Fields, func(o *model.Field) bool {
				return o.WireName() == wire && qualifier.ReplaceAllString(o.Type, "") == shape
			}) {
				continue
			}
			for kind := range reach[t.Name] {
				if kinds[kind] {
					return true
				}
			}
		}
		return false
	}
	return has(x.Base) && has(x.Head)
}
