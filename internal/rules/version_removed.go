package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/model"
)

// VersionRemoved is VERSION_REMOVED.
var VersionRemoved = &Rule{
	ID:       "VERSION_REMOVED",
	Uses:     []Input{InputManifests},
	Category: CatVersions,
	Severity: finding.Error,
	Relax:    relaxedToInfo,
	Alpha:    finding.Info,
	Summary: "An API version package (or a whole group) present at base is gone at head: deleted, or no longer " +
		"declaring its group. A version whose every kind was marked deprecated at base is a warning (the removal " +
		"was announced); an alpha version in a profile that lets alpha APIs break is info. A group moved to another " +
		"directory with the same group name is not a removal, and a version that head serves, with every kind of it, " +
		"from another directory of the same group (moved or merged) is info, and so is a version that the CRD manifests " +
		"at base did not serve for any of its kinds (a conversion package, a leftover); a version whose every kind head's CRD " +
		"manifests still serve (its Go types moved to another module) is a warning, and so is one whose Go package left for a module " +
		"head's go.mod requires (one that holds its import path, or one of the repository's owner named after a directory on its path: " +
		"Kyverno's github.com/kyverno/api); a version the release before base did not " +
		"have (added and removed within one release cycle) is info.",
	Why: "Every client and every stored object of that version stops working; with protobuf, clients still " +
		"hold its message definitions.",
	Fix: "Keep serving the version until its deprecation period is over; announce the removal by deprecating its kinds first.",
	Check: func(c *Context) {
		var groups []string // of the removed versions: their manifests are read in one pass
		for _, gd := range c.Diff.Groups {
			for _, pd := range gd.Packages {
				if pd.External() && pd.Base != nil && pd.Head == nil {
					groups = append(groups, pd.Base.GroupName)
				}
			}
		}
		loadManifests(c, groups)
		for _, gd := range c.Diff.Groups {
			for _, pd := range gd.Packages {
				if !pd.External() || pd.Base == nil || pd.Head != nil {
					continue
				}
				what := fmt.Sprintf("API version %s", pd.Base.Label())
				if gd.Base != nil && gd.Base.Name != "" {
					what = fmt.Sprintf("API version %s/%s", gd.Base.Name, pd.Version)
				}
				r := Report{
					Message: what + " was removed (" + pd.Base.Dir + ")",
					Hint:    "keep serving the version until its deprecation period is over",
				}
				if gd.Head == nil {
					r.Message = what + " was removed together with its group (" + pd.Base.Dir + ")"
				}
				if gd.Base != nil && gd.Base.Name != "" {
					// The same group version may still be served from
					// another directory: its kinds moved (Cluster API merged
					// exp/api/v1beta1 into api/core/v1beta1). Only kinds
					// that head serves nowhere are removed.
					if dirs, missing := servedElsewhere(c.Diff.Head, gd.Base.Name, pd.Base); len(dirs) > 0 {
						if len(missing) == 0 {
							c.Package(pd, versionPos(gd, pd), Report{
								Severity: finding.Info,
								Message: fmt.Sprintf("%s left %s; head still serves it, with every kind of it, from %s",
									what, pd.Base.Dir, strings.Join(dirs, ", ")),
							})
							continue
						}
						r.Message = fmt.Sprintf("%s left %s, and head serves it from %s without kind(s) %s",
							what, pd.Base.Dir, strings.Join(dirs, ", "), strings.Join(missing, ", "))
						r.Hint = "keep serving the kinds until their deprecation period is over"
					}
				}
				kinds := rootKinds(pd.Base)
				if why, ok := unservedKinds(c, c.Manifests(), pd.Base.GroupName, pd.Base, kinds); ok {
					r.Severity = finding.Info
					r.Message += "; " + why
					r.Hint = "Go clients referring to its types break; the API server did not serve the version at base"
				} else if why, ok := servedAtHead(c, pd.Base.GroupName, pd.Base, kinds, "Go package"); ok {
					r.Severity = finding.Warning
					r.Message += "; " + why
					r.Hint = "Go clients that import " + pd.Base.ImportPath + " break: tell them where the types went; if the manifests are stale, regenerate them (then this removes a served version)"
				} else if mod, samePath, ok := c.Diff.Head.MovedToModule(pd.Base.ImportPath); ok {
					// Its Go types left for a module head requires: the
					// API is not known to be gone (Kyverno's kyverno/api).
					r.Severity = finding.Warning
					if samePath {
						r.Message += "; head's go.mod requires module " + mod + ", which holds its import path now: the Go package left the repository, not the API (unless the module dropped it)"
						r.Hint = "confirm module " + mod + " serves the version's types, and that the API server still serves the version"
					} else {
						r.Message += "; head's go.mod requires module " + mod + ": the Go package left the repository for it, not the API (unless the API server no longer serves the version)"
						r.Hint = "Go clients that import " + pd.Base.ImportPath + " break: tell them where the types went (module " + mod + "); confirm the API server still serves the version"
					}
				} else if pd.Base.Deprecated {
					r.Severity = finding.Warning
					r.Message += "; every kind of it was deprecated at base, so the removal was announced"
					r.Hint = "confirm the deprecation period is over and the removal is in the release note"
				}
				// A version the release before base did not have was
				// never served by a release (external-secrets reverted
				// main's new v1 to v0.15's API).
				c.Package(pd, versionPos(gd, pd), r.ifVersionUnreleased(pd))
			}
		}
	},
}

// servedElsewhere returns the directories of head's packages of the same
// group name and version as base package p, and the root kinds of p that
// none of them has.
func servedElsewhere(head *model.Model, group string, p *model.Package) (dirs, missing []string) {
	var pkgs []*model.Package
	for _, g := range head.Groups {
		if g.Name != group {
			continue
		}
		for _, hp := range g.Versions {
			if hp.Version == p.Version {
				pkgs = append(pkgs, hp)
				dirs = append(dirs, hp.Dir)
			}
		}
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	for _, t := range p.Types {
		if !t.RootKind {
			continue
		}
		if !slices.ContainsFunc(pkgs, func(hp *model.Package) bool { return hp.Type(t.Name) != nil }) {
			missing = append(missing, t.Name)
		}
	}
	slices.Sort(dirs)
	slices.Sort(missing)
	return dirs, missing
}

// versionPos is where a removed version is reported: a file of the group
// that head still has, else the version's first file at base.
func versionPos(gd *model.GroupDiff, pd *model.PackageDiff) model.Pos {
	if gd.Head != nil {
		for _, p := range gd.Head.Packages() {
			if len(p.Files) > 0 {
				return model.Pos{File: p.Files[0], Line: 1, Col: 1}
			}
		}
	}
	if len(pd.Base.Files) > 0 {
		return model.Pos{File: pd.Base.Files[0], Line: 1, Col: 1}
	}
	return model.Pos{File: pd.Base.Dir}
}
