// Package lazyre is a regular expression compiled the first time it is
// used. A package-level regexp.MustCompile runs in every apicheck
// process before main: in the supervising process too, which never uses
// one (a process start of apicheck compiled 55 of them, 0.9 of its 1.4 ms
// of package initialisation), and in the check process for the
// expressions of the commands it does not run.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is regexp.MustCompile(expr), compiled on first use; its methods
// are those of *regexp.Regexp. An expression that does not compile
// panics on first use.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

// New returns expr, to be compiled on first use.
func New(expr string) *Regexp {
	return &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

func (r *Regexp) String() string { return r.expr }

func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

func (r *Regexp) Match(b []byte) bool { return r.re().Match(b) }

func (r *Regexp) FindString(s string) string { return r.re().FindString(s) }

func (r *Regexp) FindStringIndex(s string) []int { return r.re().FindStringIndex(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.re().FindStringSubmatchIndex(s) }

func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }

func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }

func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.re().FindAllStringIndex(s, n) }

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}

func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte { return r.re().FindAllSubmatch(b, n) }

func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.re().FindAllIndex(b, n) }

func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}

func (r *Regexp) SubexpNames() []string { return r.re().SubexpNames() }

func (r *Regexp) SubexpIndex(name string) int { return r.re().SubexpIndex(name) }

func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }
