package rules

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// What the values of Go's integer types are, and when a field whose
// integer type changed keeps the values on the wire: FIELD_TYPE_CHANGED
// asks these of a field whose Go type changed (platformInt, beside the
// wire shapes, sizes int and uint).

// intSize is the size of Go's integer types by name, signed and unsigned
// alike ("int" and "uint" are the platform's).
var intSize = map[string]string{
	"int8": "8", "uint8": "8", "int16": "16", "uint16": "16", "int32": "32", "uint32": "32",
	"int64": "64", "uint64": "64", "int": "int", "uint": "int",
}

// signednessOnly reports a field whose type changed only between the
// signed and the unsigned integer of one size (*uint64 to *int64, []uint32
// to []int32) while its validation has a minimum of at least 0 at head,
// and at base too unless the change is uint64 to int64: the OpenAPI
// schema (type integer, the same format for both) and the values the API
// server holds are the same, and every value fits both Go types
// (prometheus-operator v0.93.0 added the minimums and changed the types).
func signednessOnly(fd *model.FieldDiff) bool {
	b, h := elemTypes(fd.Base.Type, fd.Head.Type)
	if b == h || intSize[b] == "" || intSize[b] != intSize[h] {
		return false
	}
	nonNegative := func(f *model.Field) bool {
		for _, k := range contractOf(f).Validation {
			if k.Kind == "minimum" {
				v, err := strconv.ParseFloat(k.Value, 64)
				return err == nil && v >= 0
			}
		}
		return false
	}
	if !nonNegative(fd.Head) {
		return false
	}
	// From a 64-bit unsigned to the signed type, base's values fit too:
	// the API server keeps integers as int64 (a JSON number beyond that
	// is no integer to its validation), so no stored value exceeds the
	// new type. Anything else needs base's values ruled non-negative too.
	return nonNegative(fd.Base) || intSize[b] == "64" && strings.HasPrefix(b, "u")
}

// decodesBase says how every JSON value of the field's base type decodes
// into its head type (behind the same pointers and slices; a type of the
// field's package declared as a number counts as that number): an
// integer type within a wider one's range, an integer as a float, a
// float32 as a float64. "" when some value would not decode, or the
// types are no such numbers.
func decodesBase(fd *model.FieldDiff) string {
	b, h := elemTypes(fd.Base.Type, fd.Head.Type)
	bn, hn := numberType(fd.Type.Pkg.Base, b), numberType(fd.Type.Pkg.Head, h)
	switch {
	case bn == "" || hn == "" || bn == hn:
		return ""
	case intSize[bn] != "" && intSize[hn] != "":
		blo, bhi := integerRange(bn)
		hlo, hhi := integerRange(hn)
		if blo.Cmp(hlo) >= 0 && bhi.Cmp(hhi) <= 0 {
			return fmt.Sprintf("%s holds every %s value", hn, bn)
		}
	case intSize[bn] != "" && hn == "float64":
		return fmt.Sprintf("Go decodes every %s value into a float64 (rounded beyond 2^53)", bn)
	case intSize[bn] != "" && hn == "float32":
		return fmt.Sprintf("Go decodes every %s value into a float32 (rounded beyond 2^24)", bn)
	case bn == "float32" && hn == "float64":
		return "float64 holds every float32 value"
	}
	return ""
}

// numberType is integerType for integers and floats alike.
func numberType(p *model.Package, t string) string {
	if t == "float32" || t == "float64" {
		return t
	}
	if n := integerType(p, t); n != "" {
		return n
	}
	if p != nil {
		if nt := p.Type(t); nt != nil && nt.Kind == model.KindOther && (nt.Underlying == "float32" || nt.Underlying == "float64") {
			return nt.Underlying
		}
	}
	return ""
}

// elemTypes strips the pointers and slices two type expressions share
// from their front (*[]uint32 and *[]int32 are uint32 and int32).
func elemTypes(b, h string) (string, string) {
	for {
		switch {
		case strings.HasPrefix(b, "*") && strings.HasPrefix(h, "*"):
			b, h = b[1:], h[1:]
			continue
		case strings.HasPrefix(b, "[]") && strings.HasPrefix(h, "[]"):
			b, h = b[2:], h[2:]
			continue
		}
		break
	}
	return b, h
}

// boundedInteger describes the values validation lets a field hold when
// its type changed from one integer type to another (behind the same
// pointers and slices; a type of the field's package declared as an
// integer counts as that integer) and they fit both types: base's
// values, which stored objects hold, the new type; head's values, which
// new clients send, the old type old clients decode into. Each side's
// validation is an enum of integers, or a minimum and a maximum (Contour's
// redirect StatusCode, *int with enum 301 and 302, became
// *RedirectResponseCode, a uint32 with enum 301 to 308). "" when the
// types are not both integers, or either side's values may not fit.
func boundedInteger(fd *model.FieldDiff) string {
	b, h := elemTypes(fd.Base.Type, fd.Head.Type)
	bi, hi := integerType(fd.Type.Pkg.Base, b), integerType(fd.Type.Pkg.Head, h)
	if bi == "" || hi == "" || bi == hi {
		return ""
	}
	bv, bdesc := acceptedIntegers(contractOf(fd.Base))
	hv, hdesc := acceptedIntegers(contractOf(fd.Head))
	if bv == nil || hv == nil || !fitIn(bv, hi) || !fitIn(hv, bi) {
		return ""
	}
	return "base: " + bdesc + "; head: " + hdesc
}

// acceptedIntegers are the bounds of the values c's validation accepts
// (an enum's values, or a minimum and a maximum) and their description;
// nil when it does not bound them.
func acceptedIntegers(c *model.Contract) ([]*big.Int, string) {
	var minV, maxV *big.Int
	for _, k := range c.Validation {
		switch k.Kind {
		case "enum":
			var vals []*big.Int
			for _, v := range strings.Split(k.Value, ";") {
				n, ok := new(big.Int).SetString(strings.TrimSpace(v), 10)
				if !ok {
					return nil, ""
				}
				vals = append(vals, n)
			}
			return vals, "enum " + strings.ReplaceAll(k.Value, ";", ", ")
		case "minimum", "maximum":
			r, ok := new(big.Rat).SetString(k.Value)
			if !ok || !r.IsInt() {
				return nil, ""
			}
			if k.Kind == "minimum" {
				minV = r.Num()
			} else {
				maxV = r.Num()
			}
		}
	}
	if minV == nil || maxV == nil {
		return nil, ""
	}
	return []*big.Int{minV, maxV}, fmt.Sprintf("minimum %s, maximum %s", minV, maxV)
}

// fitIn reports whether every value lies in integer type t's range.
func fitIn(vals []*big.Int, t string) bool {
	lo, hi := integerRange(t)
	for _, v := range vals {
		if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
			return false
		}
	}
	return true
}

// integerType is the integer type name t denotes in package p: itself
// for a basic integer type, the underlying integer of a type p declares;
// "" otherwise.
func integerType(p *model.Package, t string) string {
	if intSize[t] != "" {
		return t
	}
	if p == nil {
		return ""
	}
	if nt := p.Type(t); nt != nil && nt.Kind == model.KindOther && intSize[nt.Underlying] != "" {
		return nt.Underlying
	}
	return ""
}

// integerRange is the range of a basic integer type (int and uint as
// platformInt sizes them).
func integerRange(t string) (lo, hi *big.Int) {
	if sized, ok := platformInt[t]; ok {
		t = sized
	}
	bits := map[string]uint{"8": 8, "16": 16, "32": 32, "64": 64}[intSize[t]]
	one := big.NewInt(1)
	if strings.HasPrefix(t, "u") {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
	}
	top := new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
	return new(big.Int).Neg(new(big.Int).Add(top, one)), top
}
