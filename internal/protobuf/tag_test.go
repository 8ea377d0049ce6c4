package protobuf

// The ParseTag / FromStructTag cases model tags found in real code:
//
//   - gardener/gardener pkg/apis/core/v1beta1/types_shoot.go:
//     "bytes,N,opt,name=x" everywhere; "varint,1,opt,..." (*bool);
//     "fixed64,5,opt,..." (*float64 ClusterAutoscaler thresholds);
//     "casttype=k8s.io/apimachinery/pkg/types.UID" (ShootStatus.UID);
//     "rep" with casttype+castkey (ControlPlaneAutoscaling.MinAllowed);
//     tags WITHOUT a label: "bytes,1,name=machineDrainTimeout",
//     "bytes,1,name=highAvailability", "bytes,1,name=allow" on a bool.
//   - kubernetes/kubernetes staging/src/k8s.io/api/networking/v1/types.go:
//     "bytes,1,name=cidr" (IPBlock, no label), "bytes,4,rep,...,casttype=PolicyType",
//     "bytes,1,opt,name=protocol,casttype=k8s.io/api/core/v1.Protocol".
//   - k8s.io/api node/v1 Overhead.PodFixed: casttype+castkey+castvalue with "opt" on a map.
//   - kubernetes/kubernetes staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go:
//     ManagedFieldsEntry tombstone "bytes,5,opt,name=fields,casttype=Fields".
//   - protoc-gen-go / gogo output: "json=", "proto3", "enum=pkg.Type", "packed",
//     "def=" defaults, zigzag32/zigzag64, fixed32, tags without label or name.
//   - mgechev/revive lint testdata: "fixed64,014,..." (leading zero, still 14),
//     "fixed6,17,..." (bad wire type).
//   - old k8s pkg/api/unversioned/time.go: "Timestamp,1,req,name=time", a proto
//     type name in the wire-type slot that go-to-protobuf accepted; and
//     "google.protobuf.Timestamp,7,..." / "1,optional" from other projects.
//   - k8s metav1.Time and many projects: `protobuf:"-"`.

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/model"
)

type tagCase struct {
	name string
	in   string
	want *model.ProtoTag // Raw is filled from in
	err  string          // substring of the error; "" = no error
}

var tagCases = []tagCase{
	// --- valid ---
	{name: "gardener bytes opt", in: "bytes,2,opt,name=seedTemplate",
		want: &model.ProtoTag{Wire: "bytes", Number: 2, Label: "opt", Name: "seedTemplate"}},
	{name: "gardener varint tombstone", in: "varint,1,opt,name=allowPrivilegedContainers",
		want: &model.ProtoTag{Wire: "varint", Number: 1, Label: "opt", Name: "allowPrivilegedContainers"}},
	{name: "gardener fixed64 float", in: "fixed64,5,opt,name=scaleDownUtilizationThreshold",
		want: &model.ProtoTag{Wire: "fixed64", Number: 5, Label: "opt", Name: "scaleDownUtilizationThreshold"}},
	{name: "gardener qualified casttype", in: "bytes,11,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID",
		want: &model.ProtoTag{Wire: "bytes", Number: 11, Label: "opt", Name: "uid",
			Options: []string{"casttype=k8s.io/apimachinery/pkg/types.UID"}}},
	{name: "gardener rep casttype castkey",
		in: "bytes,1,rep,name=minAllowed,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName",
		want: &model.ProtoTag{Wire: "bytes", Number: 1, Label: "rep", Name: "minAllowed",
			Options: []string{"casttype=k8s.io/api/core/v1.ResourceList", "castkey=k8s.io/api/core/v1.ResourceName"}}},
	{name: "k8s node/v1 castvalue",
		in: "bytes,1,opt,name=podFixed,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName,castvalue=k8s.io/apimachinery/pkg/api/resource.Quantity",
		want: &model.ProtoTag{Wire: "bytes", Number: 1, Label: "opt", Name: "podFixed", Options: []string{
			"casttype=k8s.io/api/core/v1.ResourceList",
			"castkey=k8s.io/api/core/v1.ResourceName",
			"castvalue=k8s.io/apimachinery/pkg/api/resource.Quantity"}}},
	{name: "k8s rep local casttype", in: "bytes,4,rep,name=policyTypes,casttype=PolicyType",
		want: &model.ProtoTag{Wire: "bytes", Number: 4, Label: "rep", Name: "policyTypes", Options: []string{"casttype=PolicyType"}}},
	{name: "k8s metav1 tombstone casttype", in: "bytes,5,opt,name=fields,casttype=Fields",
		want: &model.ProtoTag{Wire: "bytes", Number: 5, Label: "opt", Name: "fields", Options: []string{"casttype=Fields"}}},
	{name: "k8s no label", in: "bytes,1,name=cidr",
		want: &model.ProtoTag{Wire: "bytes", Number: 1, Name: "cidr"}},
	{name: "gardener no label", in: "bytes,4,name=maxEvictRetries",
		want: &model.ProtoTag{Wire: "bytes", Number: 4, Name: "maxEvictRetries"}},
	{name: "req label", in: "bytes,1,req,name=time",
		want: &model.ProtoTag{Wire: "bytes", Number: 1, Label: "req", Name: "time"}},
	{name: "protoc enum json proto3", in: "varint,5,opt,name=content_type,json=contentType,proto3,enum=aic_api.ContentType",
		want: &model.ProtoTag{Wire: "varint", Number: 5, Label: "opt", Name: "content_type",
			Options: []string{"json=contentType", "proto3", "enum=aic_api.ContentType"}}},
	{name: "packed before name", in: "fixed32,4,rep,packed,name=vector,proto3",
		want: &model.ProtoTag{Wire: "fixed32", Number: 4, Label: "rep", Name: "vector", Options: []string{"packed", "proto3"}}},
	{name: "zigzag32", in: "zigzag32,6,opt,name=scale,proto3",
		want: &model.ProtoTag{Wire: "zigzag32", Number: 6, Label: "opt", Name: "scale", Options: []string{"proto3"}}},
	{name: "zigzag64 bare", in: "zigzag64,2",
		want: &model.ProtoTag{Wire: "zigzag64", Number: 2}},
	{name: "flag in label slot", in: "varint,25,packed",
		want: &model.ProtoTag{Wire: "varint", Number: 25, Options: []string{"packed"}}},
	{name: "group", in: "group,3,opt,name=g",
		want: &model.ProtoTag{Wire: "group", Number: 3, Label: "opt", Name: "g"}},
	{name: "leading zero", in: "fixed64,014,opt,name=o_double,json=oDouble",
		want: &model.ProtoTag{Wire: "fixed64", Number: 14, Label: "opt", Name: "o_double", Options: []string{"json=oDouble"}}},
	{name: "def negative", in: "varint,2,opt,name=opt_int32,def=-12345",
		want: &model.ProtoTag{Wire: "varint", Number: 2, Label: "opt", Name: "opt_int32", Options: []string{"def=-12345"}}},
	{name: "def with comma is last", in: "bytes,1,opt,name=s,def=a,b",
		want: &model.ProtoTag{Wire: "bytes", Number: 1, Label: "opt", Name: "s", Options: []string{"def=a,b"}}},
	{name: "max number", in: "bytes,536870911,opt,name=m",
		want: &model.ProtoTag{Wire: "bytes", Number: 536870911, Label: "opt", Name: "m"}},
	{name: "just below protobuf range", in: "bytes,18999,opt",
		want: &model.ProtoTag{Wire: "bytes", Number: 18999, Label: "opt"}},
	{name: "just above protobuf range", in: "bytes,20000,opt",
		want: &model.ProtoTag{Wire: "bytes", Number: 20000, Label: "opt"}},
	{name: "dash means none", in: "-", want: nil},

	// --- errors ---
	{name: "empty", in: "", err: "empty protobuf tag"},
	{name: "proto type name as wire", in: "Timestamp,1,req,name=time", err: `unknown wire type "Timestamp"`},
	{name: "qualified type as wire", in: "google.protobuf.Timestamp,7,opt,name=created_at", err: `unknown wire type "google.protobuf.Timestamp"`},
	{name: "typo wire", in: "fixed6,17,opt,name=o_double_str", err: `unknown wire type "fixed6"`},
	{name: "number as wire", in: "1,optional", err: `unknown wire type "1"`},
	{name: "upper-case wire", in: "Bytes,1,opt", err: `unknown wire type "Bytes"`},
	{name: "missing wire", in: ",1,opt", err: "missing wire type"},
	{name: "missing number", in: "bytes", err: "missing field number"},
	{name: "empty number", in: "bytes,,opt", err: "missing field number"},
	{name: "non-numeric", in: "bytes,abc,opt,name=x", err: `field number "abc" is not a decimal number`},
	{name: "plus sign", in: "bytes,+1,opt", err: "is not a decimal number"},
	{name: "hex", in: "bytes,0x1,opt", err: "is not a decimal number"},
	{name: "zero", in: "bytes,0,opt,name=x", err: "must be positive"},
	{name: "zeros", in: "bytes,000,opt", err: "must be positive"},
	{name: "negative", in: "bytes,-3,opt", err: "must be positive"},
	{name: "too large", in: "bytes,536870912,opt", err: "exceeds the maximum 536870911"},
	{name: "far too large", in: "bytes,99999999999999999999999,opt", err: "exceeds the maximum"},
	{name: "protobuf range start", in: "bytes,19000,opt", err: "reserved by protobuf"},
	{name: "protobuf range end", in: "varint,19999,opt", err: "reserved by protobuf"},
	{name: "unknown label", in: "bytes,1,optional,name=x", err: `unknown label "optional"`},
	{name: "empty label", in: "bytes,1,,name=x", err: "empty label"},
	{name: "two labels", in: "bytes,1,opt,rep,name=x", err: "more than one label"},
	{name: "late label", in: "bytes,1,name=x,opt", err: "must come right after the number"},
	{name: "whitespace", in: "bytes, 1,opt", err: "contains whitespace"},
	{name: "tab", in: "bytes,1,opt,name=x\t", err: "contains whitespace"},
	{name: "two names", in: "bytes,1,opt,name=a,name=b", err: "name given more than once"},
	{name: "empty name", in: "bytes,1,opt,name=", err: "empty name="},
	{name: "trailing comma", in: "bytes,1,opt,name=a,", err: "empty option"},
}

func TestParseTag(t *testing.T) {
	for _, tc := range tagCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTag(tc.in)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("ParseTag(%q) = %+v, want error containing %q", tc.in, got, tc.err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseTag(%q) error = %q, want it to contain %q", tc.in, err, tc.err)
				}
				if tc.in != "" && !strings.Contains(err.Error(), `"`+tc.in+`"`) && !strings.Contains(err.Error(), "whitespace") {
					t.Errorf("error %q does not quote the tag %q", err, tc.in)
				}
				if got != nil {
					t.Errorf("ParseTag(%q) returned %+v together with an error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTag(%q) error: %v", tc.in, err)
			}
			var want *model.ProtoTag
			if tc.want != nil {
				w := *tc.want
				w.Raw = tc.in
				want = &w
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseTag(%q)\n got %+v\nwant %+v", tc.in, got, want)
			}
		})
	}
}

func TestFromStructTag(t *testing.T) {
	cases := []struct {
		name   string
		tag    string
		wantOK bool
		number int    // 0 = expect nil tag
		err    string // substring
	}{
		{name: "gardener json then protobuf", tag: `json:"seedTemplate,omitempty" protobuf:"bytes,2,opt,name=seedTemplate"`,
			wantOK: true, number: 2},
		{name: "patch tags before protobuf",
			tag:    `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`,
			wantOK: true, number: 1},
		{name: "protoc order", tag: `protobuf:"varint,1,opt,name=note_id,json=noteId,proto3" json:"note_id,omitempty"`,
			wantOK: true, number: 1},
		{name: "no protobuf key", tag: `json:"foo,omitempty"`, wantOK: false},
		{name: "empty tag", tag: ``, wantOK: false},
		{name: "dash", tag: `json:"-" protobuf:"-"`, wantOK: true},
		{name: "bad protobuf value", tag: `json:"x" protobuf:"bogus,1,opt"`, wantOK: true, err: `unknown wire type "bogus"`},
		{name: "unquoted value", tag: `json:"x" protobuf:bytes,1,opt`, wantOK: true, err: "malformed struct tag"},
		{name: "space after colon", tag: `json:"x" protobuf: "bytes,1,opt"`, wantOK: true, err: "malformed struct tag"},
		{name: "unterminated", tag: `json:"x" protobuf:"bytes,1,opt`, wantOK: true, err: "unterminated"},
		{name: "broken tag without protobuf", tag: `json:"x" bogus`, wantOK: false},
		{name: "key only in a value", tag: `json:"protobuf"`, wantOK: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pt, ok, err := FromStructTag(tc.tag)
			if ok != tc.wantOK {
				t.Fatalf("FromStructTag(%q) ok = %v, want %v (pt=%+v err=%v)", tc.tag, ok, tc.wantOK, pt, err)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("FromStructTag(%q) error = %v, want it to contain %q", tc.tag, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromStructTag(%q) error: %v", tc.tag, err)
			}
			if tc.number == 0 {
				if pt != nil {
					t.Fatalf("FromStructTag(%q) = %+v, want nil", tc.tag, pt)
				}
				return
			}
			if pt == nil || pt.Number != tc.number {
				t.Fatalf("FromStructTag(%q) = %+v, want number %d", tc.tag, pt, tc.number)
			}
			// agree with the standard library on well-formed tags
			if v, _ := reflect.StructTag(tc.tag).Lookup("protobuf"); v != pt.Raw {
				t.Errorf("Raw = %q, reflect.StructTag.Lookup = %q", pt.Raw, v)
			}
		})
	}
}

func TestIsValidNumber(t *testing.T) {
	for n, want := range map[int]bool{
		-1: false, 0: false, 1: true, 18999: true, 19000: false, 19500: false, 19999: false,
		20000: true, MaxNumber: true, MaxNumber + 1: false,
	} {
		if got := IsValidNumber(n); got != want {
			t.Errorf("IsValidNumber(%d) = %v, want %v", n, got, want)
		}
	}
}
