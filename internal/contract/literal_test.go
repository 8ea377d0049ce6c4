package contract

import "testing"

func TestCanonicalJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"30m"`, `"30m"`},
		{`manual`, `"manual"`},
		{`90`, `90`},
		{`true`, `true`},
		{`{"b": 1, "a": [1, 2]}`, `{"a":[1,2],"b":1}`},
		{`{application: spilo}`, `{"application":"spilo"}`},
		{`{"admin", "cron_admin"}`, `["admin","cron_admin"]`},
		{`{log_statement: all, nested: {x: 1, y: {a, b}}}`, `{"log_statement":"all","nested":{"x":1,"y":["a","b"]}}`},
		{`{}`, `{}`},
		{`{a: 1, b}`, ``},
		{`{a, b: 1}`, ``},
		{`{a: 1`, ``},
		{`{"a\"b": "c\\d"}`, `{"a\"b":"c\\d"}`},
	} {
		if got := canonicalJSON(c.in); got != c.want {
			t.Errorf("canonicalJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
