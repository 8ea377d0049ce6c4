package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeEntryRef is decodeEntry as a split of the entry into lines and
// of each field line into its parts.
func decodeEntryRef(oid string, data []byte) (map[string]decl, error) {
	body, err := entryBody(oid, data)
	if err != nil {
		return nil, err
	}
	out := map[string]decl{}
	if len(body) == 0 {
		return out, nil
	}
	lines := strings.Split(string(body), "\n")
	if lines[len(lines)-1] != "" {
		return nil, errors.New("unterminated content")
	}
	lines = lines[:len(lines)-1]
	cur := ""
	for _, l := range lines {
		if !strings.HasPrefix(l, "\t") {
			state, name, ok := strings.Cut(l, "\t")
			if !ok || (state != "struct" && state != "absent") || !validTypeName(name) {
				return nil, fmt.Errorf("bad struct line %q", l)
			}
			if _, dup := out[name]; dup {
				return nil, fmt.Errorf("struct %s twice", name)
			}
			cur = ""
			if state == "absent" {
				out[name] = decl{}
				continue
			}
			out[name] = decl{Found: true, Fields: []relField{}}
			cur = name
			continue
		}
		if cur == "" {
			return nil, fmt.Errorf("field line %q outside a struct", l)
		}
		rf, err := decodeFieldRef(l[1:])
		if err != nil {
			return nil, err
		}
		d := out[cur]
		d.Fields = append(d.Fields, rf)
		out[cur] = d
	}
	return out, nil
}

// decodeFieldRef is decodeField with strings.Split.
func decodeFieldRef(l string) (relField, error) {
	bad := func() (relField, error) { return relField{}, fmt.Errorf("bad field line %q", l) } // only when it is
	f := strings.Split(l, "\t")
	if len(f) != 7 {
		return bad()
	}
	rf, ok := fieldOf([7]string(f))
	if !ok {
		return bad()
	}
	return rf, nil
}

// FuzzDecodeEntry: decodeEntry reads any content as decodeEntryRef does.
func FuzzDecodeEntry(f *testing.F) {
	good, err := encodeEntry(testOID, testEntry)
	if err != nil {
		f.Fatal(err)
	}
	body := bytes.SplitN(good, []byte("\n"), 4)[3]
	for _, b := range []string{string(body), "", "\n", "\t\n", "absent\tA\n", "struct\tA\n", "struct\tA\nstruct\tA\n",
		"struct\tA\n\t\"a\"\t\"b\"\t1\t0\t3\t4\t\"bytes,opt\"\n", "struct\tA\n\t\"a\"\t\"b\"\t1\t0\t3\t4\t\"x\"\t\n",
		"struct\tA\n\n", "struct\tA", "absent\tA\n\t\"a\"\n"} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// An entry with a good header and checksum, so that the content
		// is read.
		key := entryKey(testOID)
		data := []byte(cacheFormat + "\n" + key + "\n" + entrySum(key, body) + "\n" + string(body))
		got, err := decodeEntry(testOID, data)
		want, wantErr := decodeEntryRef(testOID, data)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("decodeEntry(%q): error %v, want %v", body, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeEntry(%q) = %+v, want %+v", body, got, want)
		}
	})
}
