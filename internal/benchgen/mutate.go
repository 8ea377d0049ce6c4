package benchgen

import (
	"fmt"
	"slices"
)

// violationKinds are the violations Mutate plants, ViolationsEach times each.
var violationKinds = []string{"non-pointer-field", "proto-number-changed", "field-removed"}

// ViolationsEach is how often Mutate plants each kind of violation.
const ViolationsEach = 2

// touchShare is the share of the revision's files Mutate aims to change.
const touchShare = 0.10

// mutate applies a change set to t and returns what it did. It aims at
// changing touchShare of the files: a change to a types file changes it
// in both packages of the group (the internal one too, so that versions
// do not drift apart) and, when fields come or go, the deep-copy files.
func (t *tree) mutate(seed int64) []Change {
	b := &builder{r: newRand(seed, 0x6d7574617465)}
	totalFiles := 2 + len(t.groups)*2*(t.opts.TypesFiles+3)
	budget := int(float64(totalFiles)*touchShare + 0.5)

	type slot struct{ g, f int }
	var slots []slot
	for gi, g := range t.groups {
		for fi := range g.files {
			slots = append(slots, slot{gi, fi})
		}
	}
	b.r.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })

	var pending []string
	for range ViolationsEach {
		pending = append(pending, violationKinds...)
	}
	touched := map[string]bool{}
	var changes []Change
	for _, sl := range slots {
		if len(pending) == 0 && len(touched) >= budget {
			break
		}
		g, f := t.groups[sl.g], t.groups[sl.g].files[sl.f]
		m := &mutator{b: b, t: t, g: g, f: f}
		var cs []Change
		if len(pending) > 0 {
			if c, ok := m.violation(pending[0]); ok {
				cs = append(cs, c)
				pending = pending[1:]
			}
		} else {
			for n := b.intn(1, 3); n > 0; n-- {
				if c, ok := m.benign(); ok {
					cs = append(cs, c)
				}
			}
		}
		for _, p := range m.touched() {
			touched[p] = true
		}
		changes = append(changes, cs...)
	}
	return changes
}

// mutator changes one types file of one group.
type mutator struct {
	b       *builder
	t       *tree
	g       *group
	f       *typesFile
	extOnly bool // only the versioned package changes (protobuf numbers)
	layout  bool // fields came or went: the deep-copy files change too
	changed bool
}

func (m *mutator) dir() string { return "pkg/apis/" + m.g.name }

// touched estimates the files this mutator changed.
func (m *mutator) touched() []string {
	if !m.changed {
		return nil
	}
	var out []string
	for _, d := range []string{m.dir(), m.dir() + "/v1beta1"} {
		if m.extOnly && d == m.dir() {
			continue
		}
		out = append(out, d+"/types_"+m.f.name+".go")
		if m.layout {
			out = append(out, d+"/zz_generated.deepcopy.go")
		}
	}
	return out
}

// target picks a struct that may change: not a root kind or a list.
func (m *mutator) target() *structType {
	var cands []*structType
	for _, s := range m.f.structs {
		if !s.root && !s.list {
			cands = append(cands, s)
		}
	}
	return pick(m.b, cands)
}

// liveProto picks a declared (not tombstoned) field with a protobuf
// number, or nil.
func (m *mutator) liveProto(s *structType) *field {
	var cands []*field
	for _, f := range s.fields {
		if !f.tombstone && !f.embedded && f.num > 0 {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	return pick(m.b, cands)
}

func usedNames(s *structType) map[string]bool {
	used := map[string]bool{}
	for _, f := range s.fields {
		used[f.name] = true
	}
	return used
}

// others returns the file's plain structs other than s, for []Nested fields.
func (m *mutator) others(s *structType) []*structType {
	var out []*structType
	for _, x := range m.f.structs {
		if x != s && !x.root && !x.list && x.name != s.name {
			out = append(out, x)
		}
	}
	return out
}

func (m *mutator) enum() *enumType {
	if len(m.f.enums) == 0 {
		return nil
	}
	return m.f.enums[0]
}

func (m *mutator) appendField(s *structType, f *field) {
	f.num = s.nextNum
	s.nextNum++
	s.fields = append(s.fields, f)
	m.changed, m.layout = true, true
}

func (m *mutator) change(kind string, s *structType, f *field, violation bool) Change {
	c := Change{Kind: kind, Dir: m.dir(), Violation: violation}
	if s != nil {
		c.Type = s.name
	}
	if f != nil {
		c.Field = f.name
	}
	return c
}

func (m *mutator) violation(kind string) (Change, bool) {
	s := m.target()
	switch kind {
	case "non-pointer-field":
		typ := pick(m.b, []fieldType{value("string", "bytes"), value("int32", "varint"), value("bool", "varint")})
		f := m.b.finishField(m.b.fieldName(usedNames(s)), typ)
		f.optional, f.omit = true, true
		m.appendField(s, f)
		return m.change(kind, s, f, true), true
	case "proto-number-changed":
		f := m.liveProto(s)
		if f == nil {
			return Change{}, false
		}
		f.num = s.nextNum
		s.nextNum++
		m.changed, m.extOnly = true, true
		return m.change(kind, s, f, true), true
	case "field-removed":
		f := m.liveProto(s)
		if f == nil {
			return Change{}, false
		}
		s.fields = slices.DeleteFunc(s.fields, func(x *field) bool { return x == f })
		m.changed, m.layout = true, true
		return m.change(kind, s, f, true), true
	}
	panic("benchgen: unknown violation " + kind)
}

// benign makes one change that a compatibility checker accepts.
func (m *mutator) benign() (Change, bool) {
	s := m.target()
	switch n := m.b.r.IntN(10); {
	case n < 5:
		f := m.b.field(usedNames(s), m.others(s), m.enum(), true)
		f.optional, f.omit = true, true
		m.appendField(s, f)
		return m.change("add-optional-field", s, f, false), true
	case n < 8:
		var cands []*field
		for _, f := range s.fields {
			if !f.tombstone && !f.embedded {
				cands = append(cands, f)
			}
		}
		f := pick(m.b, cands)
		f.doc = append(slices.Clone(f.doc), pick(m.b, docFollowUps))
		m.changed = true
		return m.change("edit-doc", s, f, false), true
	case n < 9:
		if e := m.enum(); e != nil {
			for _, w := range shuffled(m.b, enumValueWords) {
				if !slices.ContainsFunc(e.values, func(v enumValue) bool { return v.value == w }) {
					e.values = append(e.values, m.b.enumValue(e.name, w))
					m.changed = true
					return Change{Kind: "add-enum-value", Dir: m.dir(), Type: e.name, Field: e.values[len(e.values)-1].name}, true
				}
			}
		}
		return m.addNested(s)
	default:
		if m.b.chance(0.5) {
			return m.addNested(s)
		}
		f := m.liveProto(s)
		if f == nil {
			return Change{}, false
		}
		f.tombstone = true
		m.changed, m.layout = true, true
		return m.change("tombstone-field", s, f, false), true
	}
}

// addNested declares a new struct in the file and an optional pointer
// field of that type in s.
func (m *mutator) addNested(s *structType) (Change, bool) {
	taken := map[string]bool{}
	for _, f := range m.g.files {
		for _, x := range f.structs {
			taken[x.name] = true
		}
		for _, e := range f.enums {
			taken[e.name] = true
		}
	}
	kind := m.f.structs[0].name
	for _, suf := range shuffled(m.b, nestedSuffixes) {
		name := kind + suf
		if taken[name] || usedNames(s)[suf] {
			continue
		}
		ns := m.b.plainStruct(name, m.b.intn(4, 8), nil, m.enum())
		for _, f := range ns.fields {
			f.tombstone = false
		}
		m.f.order = append(m.f.order, declRef{i: len(m.f.structs)})
		m.f.structs = append(m.f.structs, ns)
		f := m.b.namedField(usedNames(s), suf, name)
		f.optional, f.omit = true, true
		m.appendField(s, f)
		return m.change("add-nested-struct", s, f, false), true
	}
	return Change{}, false
}

func (c Change) String() string {
	v := ""
	if c.Violation {
		v = " (violation)"
	}
	return fmt.Sprintf("%s %s %s.%s%s", c.Kind, c.Dir, c.Type, c.Field, v)
}
