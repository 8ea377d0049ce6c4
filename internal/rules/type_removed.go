package rules

import (
	"fmt"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// TypeRemoved is TYPE_REMOVED.
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
				} else if td.Base.RootKind {
					// Only a root kind has CRD manifests to read.
					if why, ok := unservedKinds(c, c.Manifests(), pd.Base.GroupName, pd.Base, []string{td.Base.Name}); ok {
						r.Severity = finding.Info
						r.Message += "; " + why
						r.Hint = "Go clients referring to the type break; the API server did not serve the kind at this version at base"
					} else if why, ok := servedAtHead(c, pd.Base.GroupName, pd.Base, []string{td.Base.Name}, "Go type"); ok {
						r.Severity = finding.Warning
						r.Message += "; " + why
						r.Hint = "Go clients referring to the type break: tell them where it went; if the manifests are stale, regenerate them (then this removes a served kind)"
					}
				} else {
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
				c.Type(td, r.ifTypeUnreleased(td))
			}
		}
	},
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
