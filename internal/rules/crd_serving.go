package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// Which versions of a group's kinds the CRD manifests at base and head
// serve: a version or kind that no manifest at base served never reached a
// client (TYPE_REMOVED, VERSION_REMOVED and the severity policy's
// ReleasedVersionOnly), and one that head still serves left the repository,
// not the API.

// rootKinds are the names of p's root kinds, in p's order.
func rootKinds(p *model.Package) []string {
	var kinds []string
	for _, t := range p.Types {
		if t.RootKind {
			kinds = append(kinds, t.Name)
		}
	}
	return kinds
}

// loadManifests reads the CRD manifests of groups at base and head in one
// pass each (a lookup reads one group at a time otherwise).
func loadManifests(c *Context, groups []string) {
	if ms := c.Manifests(); ms != nil && len(groups) > 0 {
		ms.Base.Load(groups...)
		ms.Head.Load(groups...)
	}
}

// unservedKinds says why root kinds of base package p of group were not
// served at p's version at base: the CRD manifests at base define every
// one of them and none serves that version. A list kind (XList beside
// kind X) goes by X's manifest. ok is false when anything is unknown: no
// manifests in the run, a kind without a manifest, a version served. ms
// are the run's manifests: a rule's declared input (c.Manifests()), or
// what the ReleasedVersionOnly property reads.
func unservedKinds(c *Context, ms *Manifests, group string, p *model.Package, kinds []string) (why string, ok bool) {
	defined, served, files, ok := manifestsServe(c, ms, false, group, p, kinds, false)
	if !ok {
		return "", false
	}
	serves := "no version"
	if len(served) > 0 {
		serves = strings.Join(served, ", ") + " only"
	}
	return fmt.Sprintf("base did not serve %s/%s: the CRD manifests of %s at base (%s) serve %s",
		group, p.Version, strings.Join(defined, ", "), strings.Join(files, ", "), serves), true
}

// servedAtHead says how head still serves the root kinds of base package
// p of group at p's version although what (the Go package or type) is
// gone: head's CRD manifests define every one of them and serve that
// version (the Go types moved out of the repository, as Kyverno's to its
// kyverno/api module). ok is false when anything is unknown or not served.
func servedAtHead(c *Context, group string, p *model.Package, kinds []string, what string) (why string, ok bool) {
	defined, _, files, ok := manifestsServe(c, c.Manifests(), true, group, p, kinds, true)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("head's CRD manifests of %s (%s) still serve %s/%s: the %s left the repository, not the API (unless the manifests are stale)",
		strings.Join(defined, ", "), strings.Join(files, ", "), group, p.Version, what), true
}

// manifestsServe checks that the CRD manifests at base (at head with
// atHead) define every root kind of package p of group (a list kind,
// XList beside kind X, goes by X's) and that each serves p's version
// (want: every manifest of it) or none does (!want). It returns the kinds, the versions they
// serve and the manifests (at most maxListed named), sorted; ok is false
// when anything is unknown or differs: no manifests in the run, no group,
// no kinds, a kind without a manifest.
func manifestsServe(c *Context, ms *Manifests, atHead bool, group string, p *model.Package, kinds []string, want bool) (defined, served, files []string, ok bool) {
	if ms == nil || group == "" || len(kinds) == 0 {
		return nil, nil, nil, false
	}
	m, rev := ms.Base, "base"
	if atHead {
		m, rev = ms.Head, "head"
	}
	defer func() {
		if why := m.Unread(); why != "" {
			c.Note(fmt.Sprintf("the CRD manifests at %s were not read (%s): which versions of the kinds were served there is unknown", rev, why))
		}
	}()
	for _, k := range kinds {
		if base, isList := strings.CutSuffix(k, "List"); isList && base != "" && p.Type(base) != nil && p.Type(base).RootKind {
			k = base
		}
		if slices.Contains(defined, k) {
			continue
		}
		ks, ok := m.Kind(group, k)
		// Not served: no manifest serves it. Served (head still serving
		// what left the repository): every manifest does, so that a copy
		// not regenerated yet (a chart's) cannot hide a removal.
		if !ok || !want && slices.Contains(ks.Versions, p.Version) || want && !slices.Contains(ks.Everywhere, p.Version) {
			return nil, nil, nil, false
		}
		defined = append(defined, k)
		served = append(served, ks.Versions...)
		files = append(files, ks.Files...)
	}
	slices.Sort(served)
	slices.Sort(files)
	files = slices.Compact(files)
	if len(files) > maxListed {
		files = append(files[:maxListed:maxListed], fmt.Sprintf("and %d more", len(files)-maxListed))
	}
	return defined, slices.Compact(served), files, true
}
