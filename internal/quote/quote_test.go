package quote

import (
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"pkg/apis/core/v1/types.go", "pkg/apis/core/v1/types.go"},
		{"rules.PROTO_TAG_MISSING.severity", "rules.PROTO_TAG_MISSING.severity"},
		{"with space and ünïcödé", "with space and ünïcödé"},
		{`back\slash "quotes" | ` + "`tick`" + ` 100%`, `back\slash "quotes" | ` + "`tick`" + ` 100%`},
		{"mid::line", "mid::line"},
		{"", ""},
		{"x\n::error file=README.md::y.go", `"x\n::error file=README.md::y.go"`},
		{"a\rb", `"a\rb"`},
		{"a\tb", `"a\tb"`},
		{"\x1b[31mred", `"\x1b[31mred"`},
		{"del\x7f", `"del\x7f"`},
		{"c1\u009b", `"c1\u009b"`},
		{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`},
		{"bidi\u202e", `"bidi\u202e"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{"::error::x", `"::error::x"`},
		{"  ::stop-commands::tok", `"  ::stop-commands::tok"`},
		{"\u00a0::add-mask::x", `"\u00a0::add-mask::x"`},
		{"see ##[error]x", `"see ##\x5berror]x"`},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %s, want %s", c.in, got, c.want)
		}
		if Plain(c.in) != (c.in == c.want) {
			t.Errorf("Plain(%q) = %v", c.in, Plain(c.in))
		}
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"field Spec.A is new", "field Spec.A is new"},
		{"a\nb\rc\td", `a\nb\rc\td`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"x\u2028y\x7f\u0085", `x\u2028y\x7f\u0085`},
		{"bad\xfe", `bad\xfe`},
		{"::error::x", `\x3a:error::x`},
		{"   ::warning::x", `   \x3a:warning::x`},
		{"\n::error::x", `\n::error::x`},
		{"a ##[error]b ##[warning]c", `a ##\x5berror]b ##\x5bwarning]c`},
		{"#[x] ## [y]", "#[x] ## [y]"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"unknown revision \"x\": no such ref\nhint: fetch it", "unknown revision \"x\": no such ref\nhint: fetch it"},
		{"scanning: pkg/x\n::error file=README.md::y\n.go:3:6: cannot parse", `scanning: pkg/x\n::error file=README.md::y` + "\n.go:3:6: cannot parse"},
		{"a\n  ::stop-commands::t\nb", `a\n  ::stop-commands::t` + "\nb"},
		{"::error::first", `\x3a:error::first`},
		{"a\r::error::x", `a\r::error::x`},
		{"a\n##[error]x", "a\n" + `##\x5berror]x`},
		{"a\x1b[2Jb\n", `a\x1b[2Jb` + "\n"},
		{"unknown command\n\nDid you mean this?\n\tcheck\n\t::error::x", "unknown command\n\nDid you mean this?\n\tcheck" + `\n` + "\t::error::x"},
	} {
		got := Lines(c.in)
		if got != c.want {
			t.Errorf("Lines(%q) =\n%s\nwant\n%s", c.in, got, c.want)
		}
		for _, l := range strings.Split(got, "\n") {
			if Command(l) {
				t.Errorf("Lines(%q) has the workflow command line %q", c.in, l)
			}
		}
	}
}

func TestEscapeKeeps(t *testing.T) {
	if got, want := Escape("a\r\nb\x1b::c", "\r\n"), "a\r\nb\\x1b::c"; got != want {
		t.Errorf("Escape = %q, want %q", got, want)
	}
}

func TestCommand(t *testing.T) {
	for line, want := range map[string]bool{
		"::error::x":               true,
		" \t::notice::x":           true,
		"text ##[error]x":          true,
		"apicheck: ::error::x":     false,
		"3 errors, 0 warnings":     false,
		`"::error::x"`:             false,
		`##\x5berror]x`:            false,
		"\u3000::warning file=a::": true,
	} {
		if got := Command(line); got != want {
			t.Errorf("Command(%q) = %v, want %v", line, got, want)
		}
	}
}

// FuzzText checks that no input gives output with a workflow command or
// a character that is not graphic.
func FuzzText(f *testing.F) {
	for _, s := range []string{"x\n::error::y", "##[error]", "\x1b[31m", "a\r\nb", "\xff", "  ::a::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Name": Name(s), "Text": Text(s)} {
			if Command(out) || strings.ContainsFunc(out, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0xfffd && !strings.ContainsRune(s, 0xfffd) }) {
				t.Errorf("%s(%q) = %q", name, s, out)
			}
		}
		for _, l := range strings.Split(Lines(s), "\n") {
			if Command(l) || strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
				t.Errorf("Lines(%q) has line %q", s, l)
			}
		}
	})
}
