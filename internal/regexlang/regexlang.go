// Package regexlang compares the languages of two regular expressions:
// whether every string one accepts the other accepts too. Validation
// patterns (OpenAPI "pattern", +kubebuilder:validation:Pattern) change in
// both directions; only the language tells a loosened pattern from a
// tightened one.
//
// Patterns have OpenAPI's search semantics: a string is valid when the
// pattern matches somewhere in it, unless ^ and $ anchor it. The
// comparison builds the product of the two patterns' automata on the fly
// (a subset construction over Go's compiled regexp program) and searches
// it breadth first for a string the first accepts and the second rejects;
// when it finds one it returns it, the shortest, as a counterexample.
//
// Anything the construction cannot model exactly — word boundaries,
// multi-line anchors, a pattern Go cannot parse, too many states — yields
// Unknown, never a guess.
package regexlang

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// Verdict is the relation of two patterns' languages.
type Verdict int

const (
	// Unknown: the patterns could not be compared exactly.
	Unknown Verdict = iota
	// Same: both accept exactly the same strings.
	Same
	// Wider: the new pattern accepts every string the old one accepted,
	// and more.
	Wider
	// Narrower: some string the old pattern accepted is rejected now
	// (whether or not the new one accepts others).
	Narrower
)

func (v Verdict) String() string {
	switch v {
	case Same:
		return "same"
	case Wider:
		return "wider"
	case Narrower:
		return "narrower"
	}
	return "unknown"
}

// Limits bound the work: the product automaton's states and the alphabet's
// classes. Beyond them the result is Unknown.
const (
	maxStates  = 20000
	maxClasses = 600
)

var errUnsupported = errors.New("unsupported construct")

// Compare relates the language of newPat to that of oldPat. For Narrower
// it returns a shortest string oldPat accepts and newPat rejects. Answers
// are memoised for the process: a pattern change usually repeats on
// sibling fields and versions (Gardener's MaintenanceTimeWindow.Begin and
// End), and comparing the automata is the costly part.
func Compare(oldPat, newPat string) (Verdict, string) {
	if oldPat == newPat {
		return Same, ""
	}
	key := [2]string{oldPat, newPat}
	if r, ok := memo.Load(key); ok {
		return r.(answer).v, r.(answer).witness
	}
	v, w := compare(oldPat, newPat)
	if memoSize.Load() < memoMax {
		if _, loaded := memo.LoadOrStore(key, answer{v, w}); !loaded {
			memoSize.Add(1)
		}
	}
	return v, w
}

// memo holds Compare's answers, at most memoMax of them.
var (
	memo     sync.Map // [2]string -> answer
	memoSize atomic.Int64
)

const memoMax = 4096

type answer struct {
	v       Verdict
	witness string
}

func compare(oldPat, newPat string) (Verdict, string) {
	a, err := compile(oldPat)
	if err != nil {
		return Unknown, ""
	}
	b, err := compile(newPat)
	if err != nil {
		return Unknown, ""
	}
	classes, ok := alphabet(a, b)
	if !ok {
		return Unknown, ""
	}
	lost, witness, ok := difference(a, b, classes)
	if !ok {
		return Unknown, ""
	}
	if lost {
		return Narrower, witness
	}
	gained, _, ok := difference(b, a, classes)
	if !ok {
		return Unknown, ""
	}
	if gained {
		return Wider, ""
	}
	return Same, ""
}

// machine is one pattern's compiled program.
type machine struct{ prog *syntax.Prog }

func compile(pat string) (*machine, error) {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth {
			if syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
				return nil, errUnsupported
			}
		}
	}
	return &machine{prog: prog}, nil
}

// state is a machine's configuration after reading a prefix: the
// instructions waiting for the next rune (before their ε-closure),
// whether the prefix is empty, and whether a match already ended inside
// the prefix (search semantics: then every extension is accepted).
type state struct {
	kernel  []uint32
	atStart bool
	matched bool
}

func (s state) key() string {
	var b strings.Builder
	for _, pc := range s.kernel {
		b.WriteString(strconv.FormatUint(uint64(pc), 36))
		b.WriteByte(',')
	}
	if s.atStart {
		b.WriteByte('^')
	}
	if s.matched {
		b.WriteByte('!')
	}
	return b.String()
}

func (m *machine) initial() state {
	return state{kernel: []uint32{uint32(m.prog.Start)}, atStart: true}
}

// closure follows ε-moves from the kernel. It returns the instructions
// that consume a rune and whether the match instruction was reached.
func (m *machine) closure(kernel []uint32, atStart, atEnd bool) (consuming []uint32, match bool) {
	seen := map[uint32]bool{}
	stack := slices.Clone(kernel)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &m.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			match = true
		case syntax.InstFail:
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			if op&syntax.EmptyBeginText != 0 && !atStart || op&syntax.EmptyEndText != 0 && !atEnd {
				continue
			}
			stack = append(stack, in.Out)
		default:
			consuming = append(consuming, pc)
		}
	}
	slices.Sort(consuming)
	return consuming, match
}

// accepts reports whether the prefix read so far is in the language.
func (m *machine) accepts(s state) bool {
	if s.matched {
		return true
	}
	_, match := m.closure(s.kernel, s.atStart, true)
	return match
}

// step reads one rune.
func (m *machine) step(s state, r rune) state {
	if s.matched {
		return s
	}
	consuming, match := m.closure(s.kernel, s.atStart, false)
	if match {
		return state{matched: true}
	}
	next := []uint32{uint32(m.prog.Start)} // search: a match may start at any position
	for _, pc := range consuming {
		if m.prog.Inst[pc].MatchRune(r) {
			next = append(next, m.prog.Inst[pc].Out)
		}
	}
	slices.Sort(next)
	return state{kernel: slices.Compact(next)}
}

// alphabet splits the runes into classes no instruction of either
// program tells apart, and returns one representative rune per class.
func alphabet(ms ...*machine) ([]rune, bool) {
	cuts := map[rune]bool{0: true, utf8.MaxRune + 1: true}
	cut := func(lo, hi rune) {
		cuts[lo] = true
		cuts[hi+1] = true
	}
	for _, m := range ms {
		for _, in := range m.prog.Inst {
			switch in.Op {
			case syntax.InstRune1:
				cut(in.Rune[0], in.Rune[0])
			case syntax.InstRuneAnyNotNL:
				cut('\n', '\n')
			case syntax.InstRune:
				if len(in.Rune) == 1 {
					// A single rune, case-folded when the flag says so.
					r := in.Rune[0]
					cut(r, r)
					if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
						for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
							cut(f, f)
						}
					}
					continue
				}
				for i := 0; i+1 < len(in.Rune); i += 2 {
					cut(in.Rune[i], in.Rune[i+1])
				}
			}
		}
		if len(cuts) > 2*maxClasses {
			return nil, false
		}
	}
	var points []rune
	for r := range cuts {
		points = append(points, r)
	}
	slices.Sort(points)
	if len(points)-1 > maxClasses {
		return nil, false
	}
	reps := make([]rune, 0, len(points)-1)
	for i := 0; i+1 < len(points); i++ {
		reps = append(reps, representative(points[i], points[i+1]-1))
	}
	return reps, true
}

// representative picks a readable rune of [lo, hi]: a letter or digit
// when the class has one, else its first rune.
func representative(lo, hi rune) rune {
	for _, want := range []struct{ lo, hi rune }{{'a', 'z'}, {'0', '9'}, {'A', 'Z'}, {'!', '~'}, {' ', ' '}} {
		if lo <= want.hi && want.lo <= hi {
			return max(lo, want.lo)
		}
	}
	if lo >= 0xD800 && lo <= 0xDFFF && hi > 0xDFFF {
		return 0xE000
	}
	return lo
}

type pair struct{ a, b state }

// difference searches for a string a accepts and b rejects; ok is false
// when the search exceeded its limits.
func difference(a, b *machine, classes []rune) (found bool, witness string, ok bool) {
	type node struct {
		p      pair
		parent int
		r      rune
	}
	start := pair{a.initial(), b.initial()}
	nodes := []node{{p: start, parent: -1}}
	seen := map[string]bool{start.a.key() + "|" + start.b.key(): true}
	for i := 0; i < len(nodes); i++ {
		p := nodes[i].p
		if a.accepts(p.a) && !b.accepts(p.b) {
			var rs []rune
			for j := i; nodes[j].parent >= 0; j = nodes[j].parent {
				rs = append(rs, nodes[j].r)
			}
			slices.Reverse(rs)
			return true, string(rs), true
		}
		if p.b.matched {
			continue // b accepts every extension: nothing to find below
		}
		if len(p.a.kernel) == 1 && !p.a.matched && !p.a.atStart && deadEnd(a, p.a) {
			continue
		}
		for _, r := range classes {
			next := pair{a.step(p.a, r), b.step(p.b, r)}
			k := next.a.key() + "|" + next.b.key()
			if seen[k] {
				continue
			}
			seen[k] = true
			if len(nodes) >= maxStates {
				return false, "", false
			}
			nodes = append(nodes, node{p: next, parent: i, r: r})
		}
	}
	return false, "", true
}

// deadEnd reports whether a state holds nothing but the restart of the
// search and the program cannot match from it without the start of
// text: then it accepts no extension (an anchored pattern past its
// start).
func deadEnd(m *machine, s state) bool {
	if s.kernel[0] != uint32(m.prog.Start) {
		return false
	}
	consuming, match := m.closure(s.kernel, false, true)
	if match {
		return false
	}
	consumingMid, _ := m.closure(s.kernel, false, false)
	return len(consuming) == 0 && len(consumingMid) == 0
}

// Describe formats a counterexample for a message.
func Describe(s string) string {
	return fmt.Sprintf("%q", s)
}
