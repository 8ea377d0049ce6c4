package fix

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around a change.
const diffContext = 3

// lineOp is one step of a line diff: '=' keeps a[a] (= b[b]), '-'
// deletes a[a], '+' inserts b[b].
type lineOp struct {
	kind byte
	a, b int
}

// splitLines splits after every newline; the last line may lack one.
func splitLines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(s), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// commonEnds returns how many lines a and b share at their start, and
// how many of the rest at their end.
func commonEnds(a, b []string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// lineDiff is a shortest edit script from a to b (Myers' O(ND)
// algorithm, on what remains after the common prefix and suffix).
func lineDiff(a, b []string) []lineOp {
	pre, suf := commonEnds(a, b)
	var ops []lineOp
	for i := 0; i < pre; i++ {
		ops = append(ops, lineOp{'=', i, i})
	}
	for _, o := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		ops = append(ops, lineOp{o.kind, o.a + pre, o.b + pre})
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, lineOp{'=', len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

func myers(a, b []string) []lineOp {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	limit := n + m
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, off)
			}
		}
	}
	panic("unreachable: the diff needs at most n+m steps")
}

func backtrack(trace [][]int, n, m, off int) []lineOp {
	var rev []lineOp
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			rev = append(rev, lineOp{'=', x - 1, y - 1})
			x--
			y--
		}
		if d > 0 {
			if x == px {
				rev = append(rev, lineOp{'+', x, y - 1})
				y--
			} else {
				rev = append(rev, lineOp{'-', x - 1, y})
				x--
			}
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// unifiedDiff renders the difference of two file contents as a unified
// diff with three lines of context ("" when they are equal).
func unifiedDiff(aName, bName string, a, b []byte) []byte {
	if bytes.Equal(a, b) {
		return nil
	}
	al, bl := splitLines(a), splitLines(b)
	ops := lineDiff(al, bl)
	var out bytes.Buffer
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for i := 0; i < len(ops); {
		if ops[i].kind == '=' {
			i++
			continue
		}
		// A hunk: from diffContext lines before this change to
		// diffContext lines after the last change closer than
		// 2*diffContext lines to the previous one.
		start := max(0, i-diffContext)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != '=' {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		end = min(len(ops), end+diffContext)
		writeHunk(&out, ops[start:end], al, bl)
		i = end
	}
	return out.Bytes()
}

func writeHunk(out *bytes.Buffer, ops []lineOp, a, b []string) {
	aStart, bStart, aLen, bLen := -1, -1, 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			if aStart < 0 {
				aStart = o.a
			}
			aLen++
		}
		if o.kind != '-' {
			if bStart < 0 {
				bStart = o.b
			}
			bLen++
		}
	}
	// The start of an empty side is the line before it.
	if aStart < 0 {
		aStart = ops[0].a - 1
	}
	if bStart < 0 {
		bStart = ops[0].b - 1
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, o := range ops {
		var line string
		switch o.kind {
		case '=':
			line = " " + a[o.a]
		case '-':
			line = "-" + a[o.a]
		case '+':
			line = "+" + b[o.b]
		}
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
