package protobuf

// The ParseTombstones cases model tombstones found in real code:
//
//   - gardener/gardener docs/development/changing-the-api.md and
//     pkg/apis/seedmanagement/v1alpha1/types_managedseed.go: the canonical
//     "SeedTemplate is tombstoned to show why 2 is reserved protobuf tag." over
//     "SeedTemplate *gardencorev1beta1.SeedTemplate `json:... protobuf:"bytes,2,opt,..."`".
//   - gardener/gardener pkg/apis/core/v1beta1/types_shoot.go: varint tombstones
//     (AllowPrivilegedContainers 1, EnableStaticTokenKubeconfig 10,
//     EnableBasicAuthentication 5), a qualified pointer type
//     (SigningKeySecret *corev1.LocalObjectReference, whose json name differs
//     from the Go name), *metav1.Duration (ImagePullProgressDeadline 12).
//   - kubernetes/kubernetes staging/src/k8s.io/api/networking/v1/types.go
//     NetworkPolicy: "Status is tombstoned to show why 3 is a reserved protobuf
//     tag." followed by two prose lines, then the declaration (multi-line group,
//     Kubernetes' "is a reserved" spelling).
//   - kubernetes/kubernetes staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
//     ManagedFieldsEntry: "//Fields *Fields `...casttype=Fields"`" with no space
//     after "//".
//   - a vendored copy of k8s.io/api core/v1 EphemeralVolumeSource where the
//     explanatory line survived but the declaration lost its protobuf tag
//     ("ReadOnly bool `json:\"readOnly,omitempty\"`"): not a tombstone.
//   - commented-out protoc-gen-go fields without an explanation
//     ("// SplitExternalLocalOriginErrors bool `protobuf:\"varint,8,opt,...\"`").
//   - invented but realistic mistakes: several tombstones under one
//     explanation, name/number mismatches, free wording ("was removed;
//     protobuf tag 4 is reserved"), trailing "// Deprecated" text, malformed
//     tags, prose that quotes struct tags, map/slice/func/chan/anonymous-struct
//     types.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/apicheck/apicheck/internal/model"
)

// groupsOf builds comment groups from blocks of lines; blocks are separated
// by an empty string. Line numbers count from 10 across all blocks.
func groupsOf(lines ...string) [][]Line {
	var groups [][]Line
	var cur []Line
	for i, l := range lines {
		if l == "\x00" {
			if len(cur) > 0 {
				groups = append(groups, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, Line{Text: l, Pos: model.Pos{File: "types.go", Line: 10 + i, Col: 2}})
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// sep separates groups in groupsOf.
const sep = "\x00"

type wantTS struct {
	name, typ, json string
	number          int    // 0 = Proto must be nil
	line            int    // Pos.Line
	explanation     string // exact; "" = none
	problem         []string
}

type tombstoneCase struct {
	name   string
	groups [][]Line
	want   []wantTS
}

var tombstoneCases = []tombstoneCase{
	{
		// k8s.io/api batch/v1 JobSpec: a field planned, never live.
		name: "kubernetes TODO declaration reserves nothing",
		groups: groupsOf(
			"TODO enabled it when https://github.com/kubernetes/kubernetes/issues/28486 has been fixed",
			"Optional number of failed pods to retain.",
			"+optional",
			"FailedPodsLimit *int32 `json:\"failedPodsLimit,omitempty\" protobuf:\"varint,9,opt,name=failedPodsLimit\"`",
		),
	},
	{
		name: "a TODO over a tombstone that explains itself",
		groups: groupsOf(
			"TODO: drop this comment in v2.",
			"Old is tombstoned to show why 4 is reserved protobuf tag.",
			"Old *int32 `json:\"old,omitempty\" protobuf:\"varint,4,opt,name=old\"`",
		),
		want: []wantTS{{name: "Old", typ: "*int32", json: "old", number: 4, line: 12,
			explanation: "Old is tombstoned to show why 4 is reserved protobuf tag."}},
	},
	{
		name: "gardener canonical",
		groups: groupsOf(
			"SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.",
			"SeedTemplate *gardencorev1beta1.SeedTemplate `json:\"seedTemplate,omitempty\" protobuf:\"bytes,2,opt,name=seedTemplate\"`",
		),
		want: []wantTS{{name: "SeedTemplate", typ: "*gardencorev1beta1.SeedTemplate", json: "seedTemplate", number: 2, line: 11,
			explanation: "SeedTemplate is tombstoned to show why 2 is reserved protobuf tag."}},
	},
	{
		name: "gardener varint, json name differs from Go name",
		groups: groupsOf(
			"SigningKeySecret is tombstoned to show why 2 is reserved protobuf tag.",
			"SigningKeySecret *corev1.LocalObjectReference `json:\"signingKeySecretName,omitempty\" protobuf:\"bytes,2,opt,name=signingKeySecretName\"`",
			sep,
			"EnableStaticTokenKubeconfig is tombstoned to show why 10 is reserved protobuf tag.",
			"EnableStaticTokenKubeconfig *bool `json:\"enableStaticTokenKubeconfig,omitempty\" protobuf:\"varint,10,opt,name=enableStaticTokenKubeconfig\"`",
		),
		want: []wantTS{
			{name: "SigningKeySecret", typ: "*corev1.LocalObjectReference", json: "signingKeySecretName", number: 2, line: 11,
				explanation: "SigningKeySecret is tombstoned to show why 2 is reserved protobuf tag."},
			{name: "EnableStaticTokenKubeconfig", typ: "*bool", json: "enableStaticTokenKubeconfig", number: 10, line: 14,
				explanation: "EnableStaticTokenKubeconfig is tombstoned to show why 10 is reserved protobuf tag."},
		},
	},
	{
		name: "kubernetes NetworkPolicy: 'a reserved', prose lines in between",
		groups: groupsOf(
			"Status is tombstoned to show why 3 is a reserved protobuf tag.",
			"This commented field should remain, so in the future if we decide to reimplement",
			"NetworkPolicyStatus a different protobuf name and tag SHOULD be used!",
			"Status NetworkPolicyStatus `json:\"status,omitempty\" protobuf:\"bytes,3,opt,name=status\"`",
		),
		want: []wantTS{{name: "Status", typ: "NetworkPolicyStatus", json: "status", number: 3, line: 13,
			explanation: "Status is tombstoned to show why 3 is a reserved protobuf tag."}},
	},
	{
		name: "kubernetes metav1: no space after //, casttype",
		groups: groupsOf(
			"Fields is tombstoned to show why 5 is a reserved protobuf tag.",
			"Fields *Fields `json:\"fields,omitempty\" protobuf:\"bytes,5,opt,name=fields,casttype=Fields\"`",
		),
		want: []wantTS{{name: "Fields", typ: "*Fields", json: "fields", number: 5, line: 11,
			explanation: "Fields is tombstoned to show why 5 is a reserved protobuf tag."}},
	},
	{
		name: "extra spaces, no period, leading zero, tab indentation",
		groups: groupsOf(
			"  Foo   is tombstoned  to show why 05 is reserved   protobuf tag",
			"\tFoo   []string   `json:\"foo\"   protobuf:\"bytes,5,rep,name=foo\"`",
		),
		want: []wantTS{{name: "Foo", typ: "[]string", json: "foo", number: 5, line: 11,
			explanation: "Foo   is tombstoned  to show why 05 is reserved   protobuf tag"}},
	},
	{
		name: "several tombstones in one group, each explained",
		groups: groupsOf(
			"A is tombstoned to show why 1 is reserved protobuf tag.",
			"A *bool `json:\"a,omitempty\" protobuf:\"varint,1,opt,name=a\"`",
			"B is tombstoned to show why 2 is reserved protobuf tag.",
			"B map[string]*foo.Bar `json:\"b,omitempty\" protobuf:\"bytes,2,rep,name=b\"`",
			"",
			"C contains the configuration.",
			"+optional",
		),
		want: []wantTS{
			{name: "A", typ: "*bool", json: "a", number: 1, line: 11,
				explanation: "A is tombstoned to show why 1 is reserved protobuf tag."},
			{name: "B", typ: "map[string]*foo.Bar", json: "b", number: 2, line: 13,
				explanation: "B is tombstoned to show why 2 is reserved protobuf tag."},
		},
	},
	{
		name: "two declarations under one explanation",
		groups: groupsOf(
			"A is tombstoned to show why 1 is reserved protobuf tag.",
			"A *bool `json:\"a,omitempty\" protobuf:\"varint,1,opt,name=a\"`",
			"B *bool `json:\"b,omitempty\" protobuf:\"varint,2,opt,name=b\"`",
		),
		want: []wantTS{
			{name: "A", typ: "*bool", json: "a", number: 1, line: 11,
				explanation: "A is tombstoned to show why 1 is reserved protobuf tag."},
			{name: "B", typ: "*bool", json: "b", number: 2, line: 12,
				problem: []string{"no explanatory line of its own", "explains A", "B is tombstoned to show why 2 is reserved protobuf tag."}},
		},
	},
	{
		name: "shared non-canonical explanation",
		groups: groupsOf(
			"A and B are tombstoned to show why 1 and 2 are reserved protobuf tags.",
			"A *bool `json:\"a,omitempty\" protobuf:\"varint,1,opt,name=a\"`",
			"B *bool `json:\"b,omitempty\" protobuf:\"varint,2,opt,name=b\"`",
		),
		want: []wantTS{
			{name: "A", typ: "*bool", json: "a", number: 1, line: 11,
				explanation: "A and B are tombstoned to show why 1 and 2 are reserved protobuf tags.",
				problem:     []string{"does not follow the form"}},
			{name: "B", typ: "*bool", json: "b", number: 2, line: 12,
				explanation: "A and B are tombstoned to show why 1 and 2 are reserved protobuf tags.",
				problem:     []string{"does not follow the form"}},
		},
	},
	{
		name: "explanatory line missing",
		groups: groupsOf(
			"SplitExternalLocalOriginErrors bool `protobuf:\"varint,8,opt,name=split_external_local_origin_errors,json=splitExternalLocalOriginErrors,proto3\" json:\"split_external_local_origin_errors,omitempty\"`",
		),
		want: []wantTS{{name: "SplitExternalLocalOriginErrors", typ: "bool", json: "split_external_local_origin_errors", number: 8, line: 10,
			problem: []string{"no explanatory line precedes the commented-out field SplitExternalLocalOriginErrors",
				"SplitExternalLocalOriginErrors is tombstoned to show why 8 is reserved protobuf tag."}}},
	},
	{
		name: "explanation in another group does not count",
		groups: groupsOf(
			"Foo is tombstoned to show why 4 is reserved protobuf tag.",
			sep,
			"Foo *string `json:\"foo,omitempty\" protobuf:\"bytes,4,opt,name=foo\"`",
		),
		want: []wantTS{{name: "Foo", typ: "*string", json: "foo", number: 4, line: 12,
			problem: []string{"no explanatory line"}}},
	},
	{
		name: "name mismatch",
		groups: groupsOf(
			"ImagePullDeadline is tombstoned to show why 12 is reserved protobuf tag.",
			"ImagePullProgressDeadline *metav1.Duration `json:\"imagePullProgressDeadline,omitempty\" protobuf:\"bytes,12,opt,name=imagePullProgressDeadline\"`",
		),
		want: []wantTS{{name: "ImagePullProgressDeadline", typ: "*metav1.Duration", json: "imagePullProgressDeadline", number: 12, line: 11,
			explanation: "ImagePullDeadline is tombstoned to show why 12 is reserved protobuf tag.",
			problem:     []string{"explanatory line names ImagePullDeadline but the commented-out field is ImagePullProgressDeadline"}}},
	},
	{
		name: "number mismatch",
		groups: groupsOf(
			"EnableBasicAuthentication is tombstoned to show why 4 is reserved protobuf tag.",
			"EnableBasicAuthentication *bool `json:\"enableBasicAuthentication,omitempty\" protobuf:\"varint,5,opt,name=enableBasicAuthentication\"`",
		),
		want: []wantTS{{name: "EnableBasicAuthentication", typ: "*bool", json: "enableBasicAuthentication", number: 5, line: 11,
			explanation: "EnableBasicAuthentication is tombstoned to show why 4 is reserved protobuf tag.",
			problem:     []string{"explanatory line reserves 4 but the protobuf tag has number 5"}}},
	},
	{
		name: "name and number mismatch (copied explanation)",
		groups: groupsOf(
			"SecretRef is tombstoned to show why 5 is reserved protobuf tag.",
			"Volume *SeedVolume `json:\"volume,omitempty\" protobuf:\"bytes,7,opt,name=volume\"`",
		),
		want: []wantTS{{name: "Volume", typ: "*SeedVolume", json: "volume", number: 7, line: 11,
			explanation: "SecretRef is tombstoned to show why 5 is reserved protobuf tag.",
			problem:     []string{"names SecretRef", "reserves 5 but the protobuf tag has number 7"}}},
	},
	{
		name: "free wording mentioning reserved",
		groups: groupsOf(
			"Field X was removed; protobuf tag 4 is reserved.",
			"X *string `json:\"x,omitempty\" protobuf:\"bytes,4,opt,name=x\"`",
		),
		want: []wantTS{{name: "X", typ: "*string", json: "x", number: 4, line: 11,
			explanation: "Field X was removed; protobuf tag 4 is reserved.",
			problem:     []string{`does not follow the form`, `want "X is tombstoned to show why 4 is reserved protobuf tag."`}}},
	},
	{
		name: "prose line without tombstone words is not an explanation",
		groups: groupsOf(
			"This field was removed in v1.2.",
			"X *string `json:\"x,omitempty\" protobuf:\"bytes,4,opt,name=x\"`",
		),
		want: []wantTS{{name: "X", typ: "*string", json: "x", number: 4, line: 11,
			problem: []string{"no explanatory line"}}},
	},
	{
		name: "prose with back quotes is not a tombstone",
		groups: groupsOf(
			"Use `json:\"foo\"` here.",
			"Use `protobuf:\"bytes,1,opt,name=foo\"` here.",
			"Set `protobuf:\"bytes,2,opt\"` when adding a field.",
			"The tag `protobuf:\"bytes,3,opt,name=x\"` is reserved.",
			"Foo is `protobuf:\"bytes,5,opt,name=foo\"` now.",
			"`Foo string `protobuf:\"bytes,4,opt,name=foo\"`` is how it looked.",
			"ExternalTrafficPolicy controls the `.spec.externalTrafficPolicy` value of the load balancer `Service`",
			"metav1.ObjectMeta `json:\"metadata,omitempty\" protobuf:\"bytes,1,opt,name=metadata\"`",
		),
		want: nil,
	},
	{
		// The sentence reserves 2 for a declaration without protobuf tag;
		// protobuf:"-" alone reserves nothing.
		name: "commented-out field without protobuf tag (k8s EphemeralVolumeSource copy)",
		groups: groupsOf(
			"ReadOnly is tombstoned to show why 2 is a reserved protobuf tag.",
			"ReadOnly bool `json:\"readOnly,omitempty\"`",
			sep,
			"Old string `json:\"old\" protobuf:\"-\"`",
		),
		want: []wantTS{
			{name: "ReadOnly", typ: "bool", json: "readOnly", number: 2, line: 11,
				explanation: "ReadOnly is tombstoned to show why 2 is a reserved protobuf tag."},
		},
	},
	{
		name: "trailing comment and trailing text",
		groups: groupsOf(
			"Foo is tombstoned to show why 4 is reserved protobuf tag.",
			"Foo *string `json:\"foo,omitempty\" protobuf:\"bytes,4,opt,name=foo\"` // Deprecated: use `Bar` instead",
			"Baz is tombstoned to show why 6 is reserved protobuf tag.",
			"Baz int32 `json:\"baz\" protobuf:\"varint,6,opt,name=baz\"` was removed in v1.2 (see `Qux`)",
		),
		want: []wantTS{
			{name: "Foo", typ: "*string", json: "foo", number: 4, line: 11,
				explanation: "Foo is tombstoned to show why 4 is reserved protobuf tag."},
			{name: "Baz", typ: "int32", json: "baz", number: 6, line: 13,
				explanation: "Baz is tombstoned to show why 6 is reserved protobuf tag."},
		},
	},
	{
		name: "malformed protobuf tag inside tombstone",
		groups: groupsOf(
			"Foo is tombstoned to show why 3 is reserved protobuf tag.",
			"Foo *string `json:\"foo,omitempty\" protobuf:\"bytes,0,opt,name=foo\"`",
			"Bar is tombstoned to show why 4 is reserved protobuf tag.",
			"Bar *string `json:\"bar\" protobuf:bytes,4,opt`",
			"Qux is tombstoned to show why 5 is reserved protobuf tag.",
			"Quux []byte `json:\"quux\" protobuf:\"bytes,5,optional,name=quux\"`",
		),
		want: []wantTS{
			// A garbled tag still reserves a number: the tag's when it
			// shows one, else the explanatory line's.
			{name: "Foo", typ: "*string", json: "foo", number: 3, line: 11,
				explanation: "Foo is tombstoned to show why 3 is reserved protobuf tag.",
				problem:     []string{"malformed protobuf tag", "must be positive"}},
			{name: "Bar", typ: "*string", json: "bar", number: 4, line: 13,
				explanation: "Bar is tombstoned to show why 4 is reserved protobuf tag.",
				problem:     []string{"malformed protobuf tag", "malformed struct tag"}},
			{name: "Quux", typ: "[]byte", json: "quux", number: 5, line: 15,
				explanation: "Qux is tombstoned to show why 5 is reserved protobuf tag.",
				problem:     []string{`unknown label "optional"`, "names Qux but the commented-out field is Quux"}},
		},
	},
	{
		name: "type varieties, json name fallbacks",
		groups: groupsOf(
			"Hard is tombstoned to show why 1 is reserved protobuf tag.",
			"Hard map[corev1.ResourceName]resource.Quantity `json:\"hard,omitempty\" protobuf:\"bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName\"`",
			"Hook is tombstoned to show why 2 is reserved protobuf tag.",
			"Hook func() `protobuf:\"bytes,2,opt,name=hook\"`",
			"Events is tombstoned to show why 3 is reserved protobuf tag.",
			"Events chan<- int `json:\",omitempty\" protobuf:\"bytes,3,opt,name=events\"`",
			"Inline is tombstoned to show why 4 is reserved protobuf tag.",
			"Inline struct{ A int `json:\"a\"` } `json:\"inline\" protobuf:\"bytes,4,opt,name=inline\"`",
			"Taints is tombstoned to show why 5 is reserved protobuf tag.",
			"Taints []corev1.Taint `json:\"taints,omitempty\" protobuf:\"bytes,5,rep,name=taints\"`",
		),
		want: []wantTS{
			{name: "Hard", typ: "map[corev1.ResourceName]resource.Quantity", json: "hard", number: 1, line: 11,
				explanation: "Hard is tombstoned to show why 1 is reserved protobuf tag."},
			{name: "Hook", typ: "func()", json: "Hook", number: 2, line: 13,
				explanation: "Hook is tombstoned to show why 2 is reserved protobuf tag."},
			{name: "Events", typ: "chan<- int", json: "Events", number: 3, line: 15,
				explanation: "Events is tombstoned to show why 3 is reserved protobuf tag."},
			{name: "Inline", typ: "struct {\n\tA int `json:\"a\"`\n}", json: "inline", number: 4, line: 17,
				explanation: "Inline is tombstoned to show why 4 is reserved protobuf tag."},
			{name: "Taints", typ: "[]corev1.Taint", json: "taints", number: 5, line: 19,
				explanation: "Taints is tombstoned to show why 5 is reserved protobuf tag."},
		},
	},
	{
		// Kubernetes' core/v1 NodeConfigSource and EventSeries: a marker
		// reserves the number (and the json name); one without protobuf=
		// reserves no number.
		name: "k8s deprecated marker",
		groups: groupsOf(
			"For historical context, regarding the below kind, apiVersion, and configMapRef deprecation tags:",
			sep,
			"+k8s:deprecated=kind",
			"+k8s:deprecated=configMapRef,protobuf=1",
		),
		want: []wantTS{
			{json: "configMapRef", number: 1, line: 13, explanation: "+k8s:deprecated=configMapRef,protobuf=1"},
		},
	},
	{
		// Kubernetes' core/v1 VolumeResourceRequirements: prose names the
		// number, the declaration follows (one tombstone, explained by the
		// prose); prose alone reserves the number too.
		name: "prose reservation",
		groups: groupsOf(
			"Future extensions must not use \"claims\" or field number 3.",
			"Claims []ResourceClaim `json:\"claims,omitempty\" protobuf:\"bytes,3,opt,name=claims\"`",
			sep,
			"Field number 7 must not be reused: it held \"legacy\" until v1.20.",
			sep,
			"The replicas field (number 8) is gone.",
		),
		want: []wantTS{
			{name: "Claims", typ: "[]ResourceClaim", json: "claims", number: 3, line: 11,
				explanation: "Future extensions must not use \"claims\" or field number 3.",
				problem:     []string{"does not follow the form"}},
			{json: "legacy", number: 7, line: 13,
				explanation: "Field number 7 must not be reused: it held \"legacy\" until v1.20.",
				problem:     []string{"reservation in prose"}},
		},
	},
	{
		// A tombstone whose declaration went missing, or does not parse,
		// still reserves its number, reported as malformed.
		name: "header-only and garbled tombstones",
		groups: groupsOf(
			"Foo is tombstoned to show why 4 is reserved protobuf tag.",
			sep,
			"Bar *string `json:\"bar\" protobuf:\"bytes,5,opt,name=bar\"",
			sep,
			"Use `protobuf:\"bytes,6,opt,name=x\"` here.",
			"The tag `protobuf:\"bytes,9,opt,name=x\"` is taken.",
		),
		want: []wantTS{
			{name: "Foo", number: 4, line: 10, explanation: "Foo is tombstoned to show why 4 is reserved protobuf tag.",
				problem: []string{"malformed tombstone", "no commented-out declaration"}},
			{name: "Bar", number: 5, line: 12, problem: []string{"malformed declaration", "does not parse"}},
		},
	},
	{
		name:   "empty input",
		groups: nil,
		want:   nil,
	},
}

// mayReserve keeps the groups with a line MayReserve accepts, as
// scan does before it calls ParseTombstones.
func mayReserve(groups [][]Line) [][]Line {
	var out [][]Line
	for _, g := range groups {
		if slices.ContainsFunc(g, func(l Line) bool { return MayReserve(l.Text) }) {
			out = append(out, g)
		}
	}
	return out
}

func TestParseTombstones(t *testing.T) {
	for _, tc := range tombstoneCases {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseTombstones(tc.groups)
			if kept := ParseTombstones(mayReserve(tc.groups)); !reflect.DeepEqual(got, kept) {
				t.Errorf("without the groups MayReserve drops:\n%s\nwant\n%s", dump(kept), dump(got))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d tombstones, want %d:\n%s", len(got), len(tc.want), dump(got))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.FieldName != w.name || g.Type != w.typ || g.JSONName != w.json {
					t.Errorf("#%d: name/type/json = %q/%q/%q, want %q/%q/%q", i, g.FieldName, g.Type, g.JSONName, w.name, w.typ, w.json)
				}
				if w.number == 0 {
					if g.Proto != nil {
						t.Errorf("#%d: Proto = %+v, want nil", i, g.Proto)
					}
				} else if g.Proto == nil || g.Proto.Number != w.number {
					t.Errorf("#%d: Proto = %+v, want number %d", i, g.Proto, w.number)
				}
				if g.Pos.Line != w.line || g.Pos.File != "types.go" {
					t.Errorf("#%d: Pos = %v, want line %d", i, g.Pos, w.line)
				}
				if g.Explanation != w.explanation {
					t.Errorf("#%d: Explanation = %q, want %q", i, g.Explanation, w.explanation)
				}
				if len(w.problem) == 0 && g.Problem != "" {
					t.Errorf("#%d: unexpected Problem %q", i, g.Problem)
				}
				if len(w.problem) > 0 && g.Problem == "" {
					t.Errorf("#%d: Problem is empty, want %q", i, w.problem)
				}
				for _, p := range w.problem {
					if !strings.Contains(g.Problem, p) {
						t.Errorf("#%d: Problem %q does not contain %q", i, g.Problem, p)
					}
				}
			}
		})
	}
}

func dump(ts []*model.Tombstone) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.FieldName + " " + t.Type + " problem=" + t.Problem + "\n")
	}
	return b.String()
}

func TestReserved(t *testing.T) {
	ts := []*model.Tombstone{
		{FieldName: "C", Proto: &model.ProtoTag{Number: 12}},
		{FieldName: "A", Proto: &model.ProtoTag{Number: 1}, Problem: "explanatory line names B"},
		{FieldName: "M", Problem: "malformed protobuf tag"},
		{FieldName: "D", Proto: &model.ProtoTag{Number: 12}},
		nil,
	}
	if got, want := Reserved(ts), []int{1, 12}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Reserved = %v, want %v", got, want)
	}
	if got := Reserved(nil); len(got) != 0 {
		t.Fatalf("Reserved(nil) = %v, want empty", got)
	}
}

func TestNextSafe(t *testing.T) {
	cases := []struct {
		name           string
		used, reserved []int
		want           int
	}{
		{name: "empty", want: 1},
		{name: "live only", used: []int{1, 2, 3, 4}, want: 5},
		// k8s NetworkPolicy: live 1,2; Status(3) tombstoned. go-to-protobuf's
		// highest-live+1 would hand out 3 again.
		{name: "tombstone is highest", used: []int{1, 2}, reserved: []int{3}, want: 4},
		// gardener Kubernetes: tombstones 1 and 10, live up to 11.
		{name: "tombstones below max", used: []int{2, 3, 4, 5, 6, 7, 8, 9, 11}, reserved: []int{1, 10}, want: 12},
		{name: "gaps are not reused", used: []int{1, 3, 7}, reserved: []int{2}, want: 8},
		{name: "unsorted", used: []int{9, 2, 5}, reserved: []int{4, 11, 6}, want: 12},
		{name: "reserved only", reserved: []int{5}, want: 6},
		{name: "skip protobuf range", used: []int{18999}, want: 20000},
		{name: "skip protobuf range via reserved", used: []int{5}, reserved: []int{18999}, want: 20000},
		{name: "inside protobuf range (invalid input)", used: []int{19500}, want: 20000},
		{name: "after protobuf range", used: []int{19999}, want: 20000},
		{name: "exhausted", used: []int{MaxNumber}, want: 0},
		{name: "non-positive ignored", used: []int{-5, 0}, reserved: []int{-1}, want: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextSafe(tc.used, tc.reserved); got != tc.want {
				t.Fatalf("NextSafe(%v, %v) = %d, want %d", tc.used, tc.reserved, got, tc.want)
			}
		})
	}
}

// TestStructGroups runs CommentLines/StructGroups/ParseTombstones over real
// source: Gardener's Kubernetes struct, Kubernetes' ManagedFieldsEntry
// ("//Fields" without a space), a /* */ block and a nested anonymous struct.
func TestStructGroups(t *testing.T) {
	src := `package v1beta1

// Kubernetes contains the version and configuration variables for the Shoot control plane.
type Kubernetes struct {
	// AllowPrivilegedContainers is tombstoned to show why 1 is reserved protobuf tag.
	// AllowPrivilegedContainers *bool ` + "`" + `json:"allowPrivilegedContainers,omitempty" protobuf:"varint,1,opt,name=allowPrivilegedContainers"` + "`" + `

	// ClusterAutoscaler contains the configuration flags for the Kubernetes cluster autoscaler.
	// +optional
	ClusterAutoscaler *ClusterAutoscaler ` + "`" + `json:"clusterAutoscaler,omitempty" protobuf:"bytes,2,opt,name=clusterAutoscaler"` + "`" + ` // trailing

	// Fields is tombstoned to show why 5 is a reserved protobuf tag.
	//Fields *Fields ` + "`" + `json:"fields,omitempty" protobuf:"bytes,5,opt,name=fields,casttype=Fields"` + "`" + `

	/*
	 * Old is tombstoned to show why 6 is reserved protobuf tag.
	 * Old string ` + "`" + `json:"old" protobuf:"bytes,6,opt,name=old"` + "`" + `
	 */

	Nested struct {
		// Inner is tombstoned to show why 1 is reserved protobuf tag.
		// Inner *bool ` + "`" + `json:"inner" protobuf:"varint,1,opt,name=inner"` + "`" + `
	} ` + "`" + `json:"nested" protobuf:"bytes,7,opt,name=nested"` + "`" + `
}

// After the struct.
// Outside *bool ` + "`" + `json:"outside" protobuf:"varint,9,opt,name=outside"` + "`" + `
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "types_shoot.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	st := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.TypeSpec).Type.(*ast.StructType)
	groups := StructGroups(fset, "pkg/apis/core/v1beta1/types_shoot.go", f, st)
	got := ParseTombstones(groups)

	want := []struct {
		name   string
		number int
		line   int
		col    int
	}{
		{"AllowPrivilegedContainers", 1, 6, 2},
		{"Fields", 5, 13, 2},
		{"Old", 6, 17, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d tombstones, want %d:\n%s", len(got), len(want), dump(got))
	}
	for i, w := range want {
		g := got[i]
		if g.FieldName != w.name || g.Proto == nil || g.Proto.Number != w.number || g.Problem != "" {
			t.Errorf("#%d = %s %+v problem=%q, want %s %d without problem", i, g.FieldName, g.Proto, g.Problem, w.name, w.number)
		}
		if g.Pos != (model.Pos{File: "pkg/apis/core/v1beta1/types_shoot.go", Line: w.line, Col: w.col}) {
			t.Errorf("#%d Pos = %v, want line %d col %d", i, g.Pos, w.line, w.col)
		}
	}
	// the trailing line comment is its own group with text "trailing"
	found := false
	for _, g := range groups {
		if len(g) == 1 && g[0].Text == "trailing" {
			found = true
		}
	}
	if !found {
		t.Errorf("trailing comment group not found in %v", groups)
	}
}

func TestParseExplanation(t *testing.T) {
	cases := []struct {
		in   string
		name string
		num  int
		ok   bool
	}{
		{"SeedTemplate is tombstoned to show why 2 is reserved protobuf tag.", "SeedTemplate", 2, true},
		{"Status is tombstoned to show why 3 is a reserved protobuf tag.", "Status", 3, true},
		{"Foo is tombstoned to show why 7 is reserved protobuf tag", "Foo", 7, true},
		{"Foo  is\ttombstoned to show why 7 is reserved protobuf tag .", "Foo", 7, true},
		{"Foo is tombstoned to show why 007 is reserved protobuf tag.", "Foo", 7, true},
		{"Foo is tombstoned to show why 7 is reserved protobuf tag..", "", 0, false},
		{"Foo is tombstoned to show why seven is reserved protobuf tag.", "", 0, false},
		{"Foo is tombstoned to show why -7 is reserved protobuf tag.", "", 0, false},
		{"Foo is tombstoned to show why 99999999999999999999999 is reserved protobuf tag.", "", 0, false},
		{"Foo is tombstoned to show why 7 is the reserved protobuf tag.", "", 0, false},
		{"Foo is tombstoned to show why 7 is reserved protobuf tags.", "", 0, false},
		{"Foo is tombstoned to show why 7 is reserved protobuf tag. See #123.", "", 0, false},
		{"Foo.Bar is tombstoned to show why 7 is reserved protobuf tag.", "", 0, false},
		{"Field Foo was removed; protobuf tag 7 is reserved.", "", 0, false},
		{"", "", 0, false},
	}
	for _, tc := range cases {
		name, num, ok := parseExplanation(tc.in)
		if name != tc.name || num != tc.num || ok != tc.ok {
			t.Errorf("parseExplanation(%q) = %q, %d, %v; want %q, %d, %v", tc.in, name, num, ok, tc.name, tc.num, tc.ok)
		}
	}
}

// The prefilters of otherReservations rest on this: the case folds of
// the letters of "tag" and "number" (and "alpha", see internal/scan) are
// ASCII, so a (?i) match of those words is an ASCII-case match.
func TestPrefilterFolds(t *testing.T) {
	for _, c := range "tagnumber" {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f > unicode.MaxASCII {
				t.Errorf("%q folds to %q: ContainsFold would miss a match", c, f)
			}
		}
	}
	for _, c := range []struct {
		s, word string
		want    bool
	}{
		{"Field NUMBER 3", "number", true},
		{"protobuf Tag 3", "tag", true},
		{"nuMBer", "number", true},
		{"numbe", "number", false},
		{"", "tag", false},
		{"t a g", "tag", false},
	} {
		if got := ContainsFold(c.s, c.word); got != c.want {
			t.Errorf("ContainsFold(%q, %q) = %v, want %v", c.s, c.word, got, c.want)
		}
	}
	// Reservations in prose, in any case, still reserve.
	for _, text := range []string{"DO NOT USE FIELD NUMBER 7.", "Protobuf Tag 8 is reserved", "must never reuse field tag 9"} {
		ts := ParseTombstones([][]Line{{{Text: text}}})
		if len(ts) != 1 || ts[0].Proto == nil {
			t.Errorf("%q reserves nothing: %+v", text, ts)
		}
	}
}

// proseLines are comment lines of API types with a back quote, and
// declarations prose must let through.
var proseLines = []struct {
	text  string
	prose bool
}{
	{"KubeconfigSecret is the reference to a secret object. If `kubeconfig` is given", true},
	{"in `Shoot` resources as `Unknown` in case the gardenlet did", true},
	{"Deprecated: This field will be removed. Use `CloudProfile` instead.", true},
	{"Until removed, this field is synced with the `CredentialsRef` field.", true},
	{"If set, its value must be prefixed with `garden-`.", true},
	{"SingleProcessOOMKill, if true, will prevent the `memory.oom.group` flag", true},
	{"Shoot's `.status.lastOperation` field.", true},
	{"role. The only way to change the owner is `owner`.", true},
	{"Defaults to `foo`.", true},
	{"Foo bar(`x`)", true},
	{"Foo bar 3 `x`", true},
	{"syntax (e.g. `{{ .resources.<name>.data.<key> }}`).", false},
	{"SecretRef corev1.SecretReference `json:\"secretRef\" protobuf:\"bytes,3,opt,name=secretRef\"`", false},
	{"GloballyEnabled *bool `json:\"globallyEnabled,omitempty\" protobuf:\"varint,3,opt,name=globallyEnabled\"`", false},
	{"Name string `json:\"name\" protobuf:\"bytes,1,opt,name=name\"`", false},
	{"Kind Kind `protobuf:\"bytes,1,opt\"`", false},
	{"C chan int `protobuf:\"bytes,1,opt\"`", false},
	{"M map[string]int `protobuf:\"bytes,1,opt\"`", false},
	{"G T[int] `protobuf:\"bytes,1,opt\"`", false},
	{"Größe int `protobuf:\"bytes,1,opt\"`", false},
	{"F int/* c */`protobuf:\"bytes,1,opt\"`", false},
}

func TestProse(t *testing.T) {
	for _, c := range proseLines {
		if got := prose(c.text); got != c.prose {
			t.Errorf("prose(%q) = %v, want %v", c.text, got, c.prose)
		}
	}
}

// FuzzProse checks that parseDecl's shortcut only drops lines that are no
// declaration: parseField takes none of their candidates.
func FuzzProse(f *testing.F) {
	for _, c := range proseLines {
		f.Add(c.text)
	}
	for _, s := range []string{"A b `x`", "A B `x`", "A int `x`", "A, B int `x`", "A:`x`", "A 'b' `x`", "A b{`x`}",
		"A b=`x`", "A b c `x`", "A b.C `x`", "A b[c] `x`", "A `x`", "A \"x\" `y`", "A.B `x`", "type A `x`", "A chan `x`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := strings.TrimSpace(text)
		if !prose(s) {
			return
		}
		for _, c := range declCandidates(s) {
			if d, ok := parseField(c); ok {
				t.Fatalf("prose(%q), but %q declares %+v", s, c, d)
			}
		}
	})
}

// containsFoldRef is ContainsFold by its definition, one start at a time.
func containsFoldRef(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for ; j < len(word) && (s[i+j] == word[j] || s[i+j] == word[j]-'a'+'A'); j++ {
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

func FuzzContainsFold(f *testing.F) {
	for _, s := range []string{"", "t", "TAG", "tTaG", "a tag", "Number 3", "nnumber", "NuMbEr", "tatag", "xxxxTaxTAg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, word := range []string{"tag", "number", "alpha", "ver", "deprecated", "t"} {
			if got, want := ContainsFold(s, word), containsFoldRef(s, word); got != want {
				t.Fatalf("ContainsFold(%q, %q) = %v, want %v", s, word, got, want)
			}
		}
	})
}

// mayReserveRef is MayReserve as its doc comment writes it.
func mayReserveRef(text string) bool {
	return strings.Contains(text, "`") || strings.Contains(text, "+k8s:deprecated=") ||
		strings.Contains(text, "tombstoned") || strings.Contains(text, "protobuf:") ||
		strings.ContainsAny(text, "0123456789") && (containsFoldRef(text, "tag") || containsFoldRef(text, "number"))
}

func FuzzMayReserve(f *testing.F) {
	for _, s := range []string{"", "`", "+k8s:deprecated=x", "+k8s:deprecated", "k8s:deprecated=", "tombstoned", "Tombstoned",
		"tombstone", "protobuf:", "protobuf", ":protobuf:", "tag 3", "3 TAG", "ag 3", "Number 3", "nUMBER", "3 numbe", "umber 3",
		"ta", "t", "tombstone 3 number", "b", "g", ":", "3 bbb tAg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := MayReserve(s), mayReserveRef(s); got != want {
			t.Fatalf("MayReserve(%q) = %v, want %v", s, got, want)
		}
	})
}
