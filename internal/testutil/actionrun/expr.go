package actionrun

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The part of GitHub Actions expressions (${{ }}) that action.yml and
// workflows like it use: contexts and property access (a.b, a['b']),
// string, number, boolean and null literals, ! == != < <= > >= && ||,
// parentheses, and the functions success, failure, always, cancelled,
// format, contains, startsWith, endsWith, toJSON. Semantics follow
// GitHub's documentation: && and || yield one of their operands, string
// comparison ignores case, values of different types compare as numbers,
// a missing property is null.

// Context is what an expression can read: the named contexts (inputs,
// github, steps, env, runner, ...) and the job status for the status
// functions.
type Context struct {
	Values map[string]any
	// Failed is whether an earlier step of the job failed (failure() is
	// true, success() false).
	Failed bool
}

// Eval evaluates an expression (without ${{ }}).
func Eval(expr string, ctx *Context) (any, error) {
	p := &parser{src: expr, ctx: ctx}
	p.next()
	v, err := p.or()
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", expr, err)
	}
	if p.tok.kind != tokEOF {
		return nil, fmt.Errorf("expression %q: unexpected %q", expr, p.tok.text)
	}
	return v, nil
}

// Interpolate replaces every ${{ expr }} in s with its value as a string.
func Interpolate(s string, ctx *Context) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated ${{ in %q", s)
		}
		b.WriteString(s[:i])
		v, err := Eval(s[i+3:i+j], ctx)
		if err != nil {
			return "", err
		}
		b.WriteString(ToString(v))
		s = s[i+j+2:]
	}
}

// EvalIf evaluates a step's if: condition as the runner does: an
// optional ${{ }} around the expression, and an implicit success() &&
// unless the condition calls a status function itself. An empty
// condition is success().
func EvalIf(cond string, ctx *Context) (bool, error) {
	cond = strings.TrimSpace(cond)
	if strings.HasPrefix(cond, "${{") && strings.HasSuffix(cond, "}}") {
		cond = strings.TrimSpace(cond[3 : len(cond)-2])
	}
	if cond == "" {
		return !ctx.Failed, nil
	}
	v, err := Eval(cond, ctx)
	if err != nil {
		return false, err
	}
	if !usesStatus(cond) && ctx.Failed {
		return false, nil
	}
	return Truthy(v), nil
}

func usesStatus(expr string) bool {
	for _, f := range []string{"success(", "failure(", "always(", "cancelled("} {
		if strings.Contains(expr, f) {
			return true
		}
	}
	return false
}

// Truthy is the value's truth: false, 0, NaN, "" and null are false.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// ToString is the value as ${{ }} puts it in a string.
func ToString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func toNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		if n, err := strconv.ParseInt(s, 0, 64); err == nil {
			return float64(n)
		}
	}
	return math.NaN()
}

// compare returns -1, 0 or 1, and false when the values do not compare
// (NaN, objects).
func compare(a, b any) (int, bool) {
	if as, ok := a.(string); ok {
		if bs, ok := b.(string); ok {
			as, bs = strings.ToUpper(as), strings.ToUpper(bs)
			return strings.Compare(as, bs), true
		}
	}
	switch a.(type) {
	case map[string]any, []any:
		if fmt.Sprintf("%p", a) == fmt.Sprintf("%p", b) {
			return 0, true
		}
		return 0, false
	}
	switch b.(type) {
	case map[string]any, []any:
		return 0, false
	}
	x, y := toNumber(a), toNumber(b)
	if math.IsNaN(x) || math.IsNaN(y) {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokString
	tokNumber
	tokOp
)

type token struct {
	kind tokKind
	text string
}

type parser struct {
	src string
	pos int
	tok token
	ctx *Context
	err error
}

func (p *parser) next() {
	for p.pos < len(p.src) && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.pos++
	}
	if p.pos >= len(p.src) {
		p.tok = token{tokEOF, ""}
		return
	}
	c := p.src[p.pos]
	switch {
	case c == '\'':
		var b strings.Builder
		i := p.pos + 1
		for {
			if i >= len(p.src) {
				p.err = fmt.Errorf("unterminated string")
				p.tok = token{tokEOF, ""}
				return
			}
			if p.src[i] == '\'' {
				if i+1 < len(p.src) && p.src[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				break
			}
			b.WriteByte(p.src[i])
			i++
		}
		p.pos = i + 1
		p.tok = token{tokString, b.String()}
	case c >= '0' && c <= '9' || c == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9':
		i := p.pos + 1
		for i < len(p.src) && strings.ContainsRune("0123456789.xXabcdefABCDEF", rune(p.src[i])) {
			i++
		}
		p.tok = token{tokNumber, p.src[p.pos:i]}
		p.pos = i
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		i := p.pos + 1
		for i < len(p.src) && (p.src[i] == '_' || p.src[i] == '-' || p.src[i] >= 'a' && p.src[i] <= 'z' ||
			p.src[i] >= 'A' && p.src[i] <= 'Z' || p.src[i] >= '0' && p.src[i] <= '9') {
			i++
		}
		p.tok = token{tokIdent, p.src[p.pos:i]}
		p.pos = i
	default:
		for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||", "!", "<", ">", "(", ")", "[", "]", ".", ","} {
			if strings.HasPrefix(p.src[p.pos:], op) {
				p.tok = token{tokOp, op}
				p.pos += len(op)
				return
			}
		}
		p.err = fmt.Errorf("unexpected character %q", c)
		p.tok = token{tokEOF, ""}
	}
}

func (p *parser) is(op string) bool { return p.tok.kind == tokOp && p.tok.text == op }

func (p *parser) expect(op string) error {
	if !p.is(op) {
		return p.fail("want %q, got %q", op, p.tok.text)
	}
	p.next()
	return nil
}

func (p *parser) fail(format string, a ...any) error {
	if p.err != nil {
		return p.err
	}
	return fmt.Errorf(format, a...)
}

func (p *parser) or() (any, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.is("||") {
		p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		if !Truthy(l) {
			l = r
		}
	}
	return l, nil
}

func (p *parser) and() (any, error) {
	l, err := p.cmp()
	if err != nil {
		return nil, err
	}
	for p.is("&&") {
		p.next()
		r, err := p.cmp()
		if err != nil {
			return nil, err
		}
		if Truthy(l) {
			l = r
		}
	}
	return l, nil
}

func (p *parser) cmp() (any, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokOp {
		op := p.tok.text
		switch op {
		case "==", "!=", "<", "<=", ">", ">=":
		default:
			return l, nil
		}
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		c, ok := compare(l, r)
		switch op {
		case "==":
			l = ok && c == 0
		case "!=":
			l = !(ok && c == 0)
		case "<":
			l = ok && c < 0
		case "<=":
			l = ok && c <= 0
		case ">":
			l = ok && c > 0
		case ">=":
			l = ok && c >= 0
		}
	}
	return l, nil
}

func (p *parser) unary() (any, error) {
	if p.is("!") {
		p.next()
		v, err := p.unary()
		if err != nil {
			return nil, err
		}
		return !Truthy(v), nil
	}
	return p.postfix()
}

func (p *parser) postfix() (any, error) {
	v, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.is("."):
			p.next()
			if p.tok.kind != tokIdent {
				return nil, p.fail("want a property name after '.', got %q", p.tok.text)
			}
			v = property(v, p.tok.text)
			p.next()
		case p.is("["):
			p.next()
			k, err := p.or()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			if a, ok := v.([]any); ok {
				i := toNumber(k)
				if i >= 0 && int(i) < len(a) && float64(int(i)) == i {
					v = a[int(i)]
				} else {
					v = nil
				}
			} else {
				v = property(v, ToString(k))
			}
		default:
			return v, nil
		}
	}
}

// property reads a property of an object, case-insensitively; anything
// else, or a missing property, is null.
func property(v any, name string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if x, ok := m[name]; ok {
		return x
	}
	for k, x := range m {
		if strings.EqualFold(k, name) {
			return x
		}
	}
	return nil
}

func (p *parser) primary() (any, error) {
	t := p.tok
	switch t.kind {
	case tokString:
		p.next()
		return t.text, nil
	case tokNumber:
		p.next()
		n := toNumber(t.text)
		if math.IsNaN(n) {
			return nil, fmt.Errorf("bad number %q", t.text)
		}
		return n, nil
	case tokIdent:
		p.next()
		switch t.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		if p.is("(") {
			return p.call(t.text)
		}
		if v, ok := p.ctx.Values[t.text]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("unknown context %q", t.text)
	case tokOp:
		if t.text == "(" {
			p.next()
			v, err := p.or()
			if err != nil {
				return nil, err
			}
			return v, p.expect(")")
		}
	}
	return nil, p.fail("unexpected %q", t.text)
}

func (p *parser) call(name string) (any, error) {
	p.next() // (
	var args []any
	for !p.is(")") {
		v, err := p.or()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		if p.is(",") {
			p.next()
			continue
		}
		if !p.is(")") {
			return nil, p.fail("want ',' or ')' in %s(), got %q", name, p.tok.text)
		}
	}
	p.next() // )
	argc := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("%s() takes %d arguments, got %d", name, n, len(args))
		}
		return nil
	}
	switch strings.ToLower(name) {
	case "success":
		return !p.ctx.Failed, argc(0)
	case "failure":
		return p.ctx.Failed, argc(0)
	case "always":
		return true, argc(0)
	case "cancelled":
		return false, argc(0)
	case "contains":
		if err := argc(2); err != nil {
			return nil, err
		}
		if a, ok := args[0].([]any); ok {
			for _, x := range a {
				if c, ok := compare(x, args[1]); ok && c == 0 {
					return true, nil
				}
			}
			return false, nil
		}
		return strings.Contains(strings.ToUpper(ToString(args[0])), strings.ToUpper(ToString(args[1]))), nil
	case "startswith":
		if err := argc(2); err != nil {
			return nil, err
		}
		return strings.HasPrefix(strings.ToUpper(ToString(args[0])), strings.ToUpper(ToString(args[1]))), nil
	case "endswith":
		if err := argc(2); err != nil {
			return nil, err
		}
		return strings.HasSuffix(strings.ToUpper(ToString(args[0])), strings.ToUpper(ToString(args[1]))), nil
	case "format":
		if len(args) == 0 {
			return nil, fmt.Errorf("format() needs a format string")
		}
		return format(ToString(args[0]), args[1:])
	case "tojson":
		if err := argc(1); err != nil {
			return nil, err
		}
		return ToString(args[0]), nil
	}
	return nil, fmt.Errorf("unknown function %s()", name)
}

// format is GitHub's format(): {N} replaced by argument N, {{ and }}
// for literal braces.
func format(f string, args []any) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		switch {
		case strings.HasPrefix(f[i:], "{{"):
			b.WriteByte('{')
			i++
		case strings.HasPrefix(f[i:], "}}"):
			b.WriteByte('}')
			i++
		case f[i] == '{':
			j := strings.IndexByte(f[i:], '}')
			if j < 0 {
				return "", fmt.Errorf("format %q: unterminated {", f)
			}
			n, err := strconv.Atoi(f[i+1 : i+j])
			if err != nil || n < 0 || n >= len(args) {
				return "", fmt.Errorf("format %q: bad argument index %q", f, f[i+1:i+j])
			}
			b.WriteString(ToString(args[n]))
			i += j
		default:
			b.WriteByte(f[i])
		}
	}
	return b.String(), nil
}
