package config

import (
	"fmt"
	"path"
	"strings"

	"github.com/apicheck/apicheck/internal/glob"
)

// ReleaseNotes configures the release-note stubs.
type ReleaseNotes struct {
	// Audiences assign release-note audiences to API groups and kinds, in
	// file order: the first entry that matches decides, before the
	// profile's defaults.
	Audiences []Audience
}

// Audience is one releaseNotes.audiences entry. Group and Kind are
// patterns; an empty one matches everything, and at least one is set.
type Audience struct {
	// Group matches the API group: a pattern with a '/' is a directory
	// glob (as exclude, see glob.Match: it matches the directory and
	// everything below), any other a path.Match pattern of the API group
	// name, e.g. "*.gardener.cloud".
	Group string
	// Kind is a path.Match pattern of the kind (for a type no kind
	// reaches, its Go type name).
	Kind string
	// Audience is one of Vocabulary.Audiences.
	Audience string
	// Pos is where the entry is in the configuration file.
	Pos Pos
}

// Matches reports whether the entry applies to a kind of the API group
// named name (its +groupName; "" when it has none) in directory dir.
func (a Audience) Matches(name, dir, kind string) bool {
	if a.Group != "" {
		if strings.Contains(a.Group, "/") {
			if !glob.Match(a.Group, dir) {
				return false
			}
		} else if ok, _ := path.Match(a.Group, name); !ok || name == "" {
			return false
		}
	}
	if a.Kind != "" {
		if ok, _ := path.Match(a.Kind, kind); !ok {
			return false
		}
	}
	return true
}

// AudienceFor returns the audience of the first entry that matches, or
// "" when none does.
func (r ReleaseNotes) AudienceFor(name, dir, kind string) string {
	for _, a := range r.Audiences {
		if a.Matches(name, dir, kind) {
			return a.Audience
		}
	}
	return ""
}

func (v *validator) releaseNotes(s *strict[rawReleaseNotes]) {
	if !usable(v, s, "releaseNotes") {
		return
	}
	l := &s.V.Audiences
	if !usable(v, l, "releaseNotes.audiences") {
		return
	}
	for i, el := range elems(l) {
		key := fmt.Sprintf("releaseNotes.audiences[%d]", i)
		if !usable(v, el, key) {
			continue
		}
		r := &el.V
		a := Audience{Group: r.Group.V, Kind: r.Kind.V, Pos: v.pos(el.n)}
		ok := true
		if r.Group.set() {
			var err error
			if strings.Contains(a.Group, "/") {
				_, err = glob.Compile(strings.TrimSuffix(a.Group, "/"))
			} else {
				_, err = path.Match(a.Group, "")
				if err != nil {
					err = fmt.Errorf("%q: %v", a.Group, err)
				}
			}
			if err != nil {
				v.errorf(r.Group.n, key+".group", "%v", err)
				ok = false
			}
		}
		if r.Kind.set() {
			if _, err := path.Match(a.Kind, ""); err != nil {
				v.errorf(r.Kind.n, key+".kind", "%q: %v", a.Kind, err)
				ok = false
			}
		}
		switch {
		case !r.Group.set() && !r.Kind.set():
			v.errorf(el.n, key, "needs group or kind (or both) to say what the audience is for")
			ok = false
		case !r.Audience.set():
			v.errorf(el.n, key+".audience", "missing audience (%s)", oneOf(v.vocab.Audiences))
			ok = false
		default:
			var known bool
			if a.Audience, known = word(v.vocab.Audiences, r.Audience.V); !known {
				v.errorf(r.Audience.n, key+".audience", "unknown audience %q (want %s)", r.Audience.V, oneOf(v.vocab.Audiences))
				ok = false
			}
		}
		if ok {
			v.cfg.ReleaseNotes.Audiences = append(v.cfg.ReleaseNotes.Audiences, a)
		}
	}
}
