package rules

import (
	"strings"
)

// Whether a type expression mentions a type of its package: TYPE_REMOVED
// and TYPE_UNDERLYING_CHANGED find the users of a type with it.

// mentionsType reports whether a type expression refers to the
// package-local type name (as a whole identifier, not qualified).
func mentionsType(expr, name string) bool {
	for i := 0; i+len(name) <= len(expr); {
		j := strings.Index(expr[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		before := j == 0 || !isIdentByte(expr[j-1]) && expr[j-1] != '.'
		after := end == len(expr) || !isIdentByte(expr[end])
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

// isIdentByte reports a byte that may be part of a Go identifier.
func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
