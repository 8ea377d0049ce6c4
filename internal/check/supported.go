package check

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/deprecations"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
)

// supportedNotes name the deprecated fields the change makes removable
// by dropping Kubernetes versions from the supported versions
// (shoot.supportedVersions): a Shoot spec field that validation forbids
// from a Kubernetes version may go once no supported version allows it
// (docs/deprecations.md). Nothing but that file is read unless it differs
// between base and head and head lacks a version base lists; then the
// removal planner plans the Shoot fields at both revisions
// (deprecations.Input.ShootRemovals) and deprecations.NewlyRemovable
// compares the plans. One note per dropped version that makes fields
// removable; a plan that fails is a note, an interruption an error.
func supportedNotes(res *Result, req Request) ([]string, error) {
	dropped := droppedVersions(res)
	if len(dropped) == 0 {
		return nil, nil
	}
	var plans [2]*deprecations.Plan
	for i, snap := range []git.Snapshot{res.Base, res.Head} {
		p, err := deprecations.Find(deprecations.Input{
			Context: req.ctx(), Repo: res.Repo, Snap: snap,
			Scan: res.Options.Scan, Lifecycle: res.Options.Lifecycle, ShootRemovals: true,
		})
		if stop := req.stopped(); stop != nil {
			return nil, stop
		}
		if err != nil {
			return []string{fmt.Sprintf("dropping Kubernetes %s from the supported versions: cannot tell which deprecated fields this makes removable: %v",
				versionList(dropped), err)}, nil
		}
		plans[i] = p
	}
	byVersion := map[string][]string{}
	var order []string
	for _, u := range deprecations.NewlyRemovable(plans[0], plans[1]) {
		name := fmt.Sprintf("%s (forbidden from %s)", u.Deprecation.APIPath, u.Deprecation.ForbiddenFrom)
		if _, ok := byVersion[u.Dropped]; !ok {
			order = append(order, u.Dropped)
		}
		if !slices.Contains(byVersion[u.Dropped], name) { // the same field in another version of its group
			byVersion[u.Dropped] = append(byVersion[u.Dropped], name)
		}
	}
	var notes []string
	for _, v := range order {
		names := byVersion[v]
		what, them := fmt.Sprintf("%d deprecated fields", len(names)), "them with a tombstone each"
		if len(names) == 1 {
			what, them = "1 deprecated field", "it with a tombstone"
		}
		notes = append(notes, fmt.Sprintf("dropping Kubernetes %s from the supported versions makes %s removable: %s; remove %s (apicheck deprecations lists the plan)",
			v, what, strings.Join(names, ", "), them))
	}
	return notes, nil
}

// droppedVersions are the Kubernetes versions the supported versions file
// lists at base and not at head, in order; none when the file is the same
// at both revisions (by blob where both are commits), missing at either,
// or not readable as a list of versions at either.
func droppedVersions(res *Result) []shoot.Version {
	p := res.Options.Lifecycle.Shoot.WithDefaults().SupportedVersions
	snaps := [2]git.Snapshot{res.Base, res.Head}
	var ids [2]string
	for i, snap := range snaps {
		if ok, err := git.HasFile(snap, p); err != nil || !ok {
			return nil
		}
		if b, ok := snap.(git.BlobIDs); ok {
			ids[i], _ = b.BlobID(p)
		}
	}
	if ids[0] != "" && ids[0] == ids[1] {
		return nil
	}
	var data [2][]byte
	for i, snap := range snaps {
		files, err := snap.ReadFiles([]string{p})
		if err != nil {
			return nil
		}
		data[i] = files[p]
	}
	if bytes.Equal(data[0], data[1]) {
		return nil
	}
	var vers [2][]shoot.Version
	for i := range data {
		var err error
		if vers[i], err = shoot.SupportedVersions(data[i]); err != nil {
			return nil
		}
	}
	var out []shoot.Version
	for _, v := range vers[0] {
		if !slices.Contains(vers[1], v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b shoot.Version) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	return out
}

// versionList is "1.30" or "1.29, 1.30".
func versionList(vs []shoot.Version) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}
