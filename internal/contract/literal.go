package contract

import (
	"encoding/json"
	"strconv"
	"strings"
)

// canonicalJSON is a default marker's value as compact JSON with sorted
// keys, the value the API server applies: JSON as it is, else
// controller-gen's literal syntax ({key: value} a
// map, {a, b} a list, a bare word a string: +kubebuilder:default=manual
// is "manual"). "" when it is neither.
func canonicalJSON(v string) string {
	var x any
	if json.Unmarshal([]byte(v), &x) != nil {
		lit, rest, ok := markerLiteral(strings.TrimSpace(v))
		if !ok || strings.TrimSpace(rest) != "" {
			return ""
		}
		x = lit
	}
	b, err := json.Marshal(x)
	if err != nil {
		return ""
	}
	return string(b)
}

// markerLiteral reads one value of controller-gen's marker syntax from
// the front of s: {k: v, ...} (a map), {v, ...} (a list), a quoted
// string, a number, true or false, or a bare word (a string, up to the
// next ',', ':' or '}'). It returns the value and what follows it.
func markerLiteral(s string) (v any, rest string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	switch {
	case s == "":
		return nil, s, false
	case s[0] == '{':
		s = strings.TrimLeft(s[1:], " \t")
		var keys []string
		var vals []any
		isMap := false
		for len(s) > 0 && s[0] != '}' {
			item, r, ok := markerLiteral(s)
			if !ok {
				return nil, s, false
			}
			s = strings.TrimLeft(r, " \t")
			if strings.HasPrefix(s, ":") {
				key, isString := item.(string)
				if !isString || len(vals) > len(keys) {
					return nil, s, false
				}
				isMap = true
				keys = append(keys, key)
				if item, r, ok = markerLiteral(s[1:]); !ok {
					return nil, s, false
				}
				s = strings.TrimLeft(r, " \t")
			} else if isMap {
				return nil, s, false
			}
			vals = append(vals, item)
			if strings.HasPrefix(s, ",") {
				s = strings.TrimLeft(s[1:], " \t")
			} else if !strings.HasPrefix(s, "}") {
				return nil, s, false
			}
		}
		if s == "" {
			return nil, s, false
		}
		if !isMap {
			return append([]any{}, vals...), s[1:], true
		}
		m := map[string]any{}
		for i, k := range keys {
			m[k] = vals[i]
		}
		return m, s[1:], true
	case s[0] == '"':
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				str, err := strconv.Unquote(s[:i+1])
				return str, s[i+1:], err == nil
			}
		}
		return nil, s, false
	}
	end := strings.IndexAny(s, ",:}")
	if end < 0 {
		end = len(s)
	}
	word := strings.TrimSpace(s[:end])
	if word == "" {
		return nil, s, false
	}
	switch word {
	case "true":
		return true, s[end:], true
	case "false":
		return false, s[end:], true
	}
	if f, err := strconv.ParseFloat(word, 64); err == nil {
		return f, s[end:], true
	}
	return word, s[end:], true
}
