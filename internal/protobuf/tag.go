// Package protobuf parses the protobuf side of Kubernetes-style Go API
// types: `protobuf:"..."` struct tags as written by go-to-protobuf and
// gogo/protobuf, and tombstones (commented-out protobuf-tagged field
// declarations that reserve their number, see rules.md "tombstone").
//
// The package is a leaf: it depends on the model package and the standard
// library only, and works on strings and comment lines, not on files.
package protobuf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/apicheck/apicheck/internal/model"
)

// Field number limits of the protobuf language.
const (
	// MinNumber is the smallest valid field number.
	MinNumber = 1
	// MaxNumber is the largest valid field number (2^29 - 1).
	MaxNumber = 536870911
	// FirstReservedNumber and LastReservedNumber bound the range that
	// protobuf reserves for its own implementation.
	FirstReservedNumber = 19000
	LastReservedNumber  = 19999
)

// Labels of a protobuf tag.
const (
	LabelOptional = "opt"
	LabelRequired = "req"
	LabelRepeated = "rep"
)

// wireTypes are the wire-type words gogo/protobuf's Properties.Parse
// accepts. go-to-protobuf emits bytes, varint and fixed64 (fixed32 for
// float32); zigzag32/64 come from sint32/sint64 fields and group from
// proto2 groups.
var wireTypes = map[string]bool{
	"varint":   true,
	"zigzag32": true,
	"zigzag64": true,
	"fixed32":  true,
	"fixed64":  true,
	"bytes":    true,
	"group":    true,
}

const wireTypeList = "varint, zigzag32, zigzag64, fixed32, fixed64, bytes or group"

// flagOptions are option words without "=value" that gogo/protobuf accepts
// in the place of a label (e.g. `protobuf:"varint,25,packed"`).
var flagOptions = map[string]bool{
	"packed":      true,
	"proto3":      true,
	"oneof":       true,
	"stdtime":     true,
	"stdduration": true,
	"wktptr":      true,
}

// IsValidNumber reports whether n may be used as a protobuf field number:
// 1..MaxNumber outside the range protobuf reserves for itself.
func IsValidNumber(n int) bool {
	return n >= MinNumber && n <= MaxNumber && !inReservedRange(n)
}

func inReservedRange(n int) bool {
	return n >= FirstReservedNumber && n <= LastReservedNumber
}

// ParseTag parses the value of a `protobuf:"..."` struct tag (without the
// key and quotes), e.g. "bytes,2,opt,name=seedTemplate",
// "varint,3,opt,name=replicas,casttype=int32" or
// "bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName".
//
// The fields are: wire type, number, label (opt|req|rep), then options.
// name=... goes to Name; every other option is kept verbatim, in order, in
// Options. A gogo "def=" default value may contain commas, so it consumes
// the rest of the tag.
//
// The label may be missing: real API types carry tags such as
// "bytes,1,name=cidr" (k8s.io/api networking/v1 IPBlock) or
// "bytes,1,name=machineDrainTimeout" (Gardener core/v1beta1); then Label
// is "". The special value "-" means "no protobuf" and yields (nil, nil).
//
// Errors quote the tag and say what is wrong: empty tag, whitespace, unknown
// wire type, missing/non-numeric/non-positive number, number above
// MaxNumber, number in 19000-19999, unknown or repeated label, empty
// option, empty or repeated name.
func ParseTag(s string) (*model.ProtoTag, error) {
	if s == "-" {
		return nil, nil
	}
	if s == "" {
		return nil, errors.New(`empty protobuf tag ""`)
	}
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return nil, fmt.Errorf("protobuf tag %q: contains whitespace at offset %d (struct tag values must not contain spaces)", s, i)
	}
	var buf [8]string // most tags have four or five parts
	fields := splitComma(buf[:0], s)

	wire := fields[0]
	if wire == "" {
		return nil, fmt.Errorf("protobuf tag %q: missing wire type (want %s)", s, wireTypeList)
	}
	if !wireTypes[wire] {
		return nil, fmt.Errorf("protobuf tag %q: unknown wire type %q (want %s)", s, wire, wireTypeList)
	}

	if len(fields) < 2 || fields[1] == "" {
		return nil, fmt.Errorf("protobuf tag %q: missing field number after wire type %q", s, wire)
	}
	num, err := parseNumber(fields[1])
	if err != nil {
		return nil, fmt.Errorf("protobuf tag %q: %v", s, err)
	}

	pt := &model.ProtoTag{Wire: wire, Number: num, Raw: s}
	rest := fields[2:]
	if len(rest) > 0 && isLabel(rest[0]) {
		pt.Label = rest[0]
		rest = rest[1:]
	} else if len(rest) > 0 && !strings.Contains(rest[0], "=") && !flagOptions[rest[0]] {
		if rest[0] == "" {
			return nil, fmt.Errorf("protobuf tag %q: empty label after the number (stray comma?)", s)
		}
		return nil, fmt.Errorf("protobuf tag %q: unknown label %q (want opt, req or rep)", s, rest[0])
	}

	nameSeen := false
	for i := 0; i < len(rest); i++ {
		opt := rest[i]
		switch {
		case opt == "":
			return nil, fmt.Errorf("protobuf tag %q: empty option (stray comma)", s)
		case isLabel(opt):
			if pt.Label != "" {
				return nil, fmt.Errorf("protobuf tag %q: more than one label (%q and %q)", s, pt.Label, opt)
			}
			return nil, fmt.Errorf("protobuf tag %q: label %q must come right after the number", s, opt)
		case strings.HasPrefix(opt, "name="):
			if nameSeen {
				return nil, fmt.Errorf("protobuf tag %q: name given more than once", s)
			}
			nameSeen = true
			pt.Name = strings.TrimPrefix(opt, "name=")
			if pt.Name == "" {
				return nil, fmt.Errorf("protobuf tag %q: empty name=", s)
			}
		case strings.HasPrefix(opt, "def="):
			// gogo: a default value may contain commas and is always last.
			pt.Options = append(pt.Options, strings.Join(rest[i:], ","))
			i = len(rest)
		default:
			pt.Options = append(pt.Options, opt)
		}
	}
	return pt, nil
}

// splitComma appends strings.Split(s, ",") to dst.
func splitComma(dst []string, s string) []string {
	for {
		part, rest, found := strings.Cut(s, ",")
		dst = append(dst, part)
		if !found {
			return dst
		}
		s = rest
	}
}

func isLabel(s string) bool {
	return s == LabelOptional || s == LabelRequired || s == LabelRepeated
}

// parseNumber parses a field number written in decimal digits only
// (leading zeros allowed: "01" is 1) and checks its range.
func parseNumber(f string) (int, error) {
	digits := f
	negative := false
	if strings.HasPrefix(digits, "-") {
		negative = true
		digits = digits[1:]
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, fmt.Errorf("field number %q is not a decimal number", f)
	}
	trimmed := strings.TrimLeft(digits, "0")
	if negative && trimmed != "" {
		return 0, fmt.Errorf("field number %s must be positive", f)
	}
	if trimmed == "" {
		return 0, fmt.Errorf("field number %s must be positive (smallest is %d)", f, MinNumber)
	}
	if len(trimmed) > len(strconv.Itoa(MaxNumber)) {
		return 0, fmt.Errorf("field number %s exceeds the maximum %d", f, MaxNumber)
	}
	n, err := strconv.Atoi(trimmed)
	if err != nil { // cannot happen after the checks above
		return 0, fmt.Errorf("field number %q: %v", f, err)
	}
	if n > MaxNumber {
		return 0, fmt.Errorf("field number %d exceeds the maximum %d", n, MaxNumber)
	}
	if inReservedRange(n) {
		return 0, fmt.Errorf("field number %d is in the range %d-%d reserved by protobuf", n, FirstReservedNumber, LastReservedNumber)
	}
	return n, nil
}

// FromStructTag extracts the protobuf value from a raw struct tag string
// (the text between the back quotes, as reflect.StructTag.Lookup sees it)
// and parses it with ParseTag.
//
// ok is false when the tag has no protobuf key. A struct tag whose syntax is
// broken where Lookup would silently give up (e.g. `protobuf:bytes,1` or an
// unterminated quote) is not dropped: when it mentions "protobuf:", ok is
// true and err says the struct tag is malformed. `protobuf:"-"` yields
// (nil, true, nil).
func FromStructTag(tag string) (pt *model.ProtoTag, ok bool, err error) {
	v, ok, err := lookupTag(tag, "protobuf")
	if err != nil || !ok {
		return nil, ok, err
	}
	pt, err = ParseTag(v)
	return pt, true, err
}

// lookupTag finds key in a struct tag, following the grammar
// reflect.StructTag.Lookup implements, but reports syntax errors instead of
// giving up silently. A syntax error is returned (with ok=true) only when
// the tag mentions key+":"; otherwise the key is simply absent.
func lookupTag(tag, key string) (value string, ok bool, err error) {
	all := tag
	fail := func(what string) (string, bool, error) {
		if strings.Contains(all, key+":") {
			return "", true, fmt.Errorf("malformed struct tag %q: %s", all, what)
		}
		return "", false, nil
	}
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return fail(fmt.Sprintf("expected key:\"value\" at %q", tag))
		}
		name := tag[:i]
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			return fail(fmt.Sprintf("unterminated value of key %q", name))
		}
		qvalue := tag[:i+1]
		tag = tag[i+1:]
		if name == key {
			v, uerr := strconv.Unquote(qvalue)
			if uerr != nil {
				return fail(fmt.Sprintf("bad quoted value of key %q", name))
			}
			return v, true, nil
		}
	}
	return "", false, nil
}
