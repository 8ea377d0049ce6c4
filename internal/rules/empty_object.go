package rules

import (
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// Whether the API server accepts the empty object {} as a struct's value:
// what Go clients send for an unset struct-valued field without omitzero.
// The new-field rules and FIELD_BECAME_REQUIRED ask it.

// emptyObjectAllowed reports constraints that leave {} valid: no
// minProperties above zero and no CEL rule (which may reject it).
func emptyObjectAllowed(cs []model.Constraint) bool {
	for _, k := range cs {
		switch k.Kind {
		case "rule":
			return false
		case "minProperties":
			if k.Value != "0" {
				return false
			}
		}
	}
	return true
}

// membersOptional reports whether struct id of the repository exists and
// has no required member, inlined members' members included, and no
// minProperties or CEL rule of its own.
func membersOptional(refs *typeRefs, id string, depth int) bool {
	rejects, unknown := emptyObjectRejects(refs, id, false, depth)
	return len(rejects) == 0 && len(unknown) == 0
}

// emptyMeansUnset are the well-known structs outside the repository whose
// schema requires no member, and whose empty object means what their
// absence does (no requests or limits, no affinity, the default security
// settings). Not a selector (an empty LabelSelector selects everything),
// a reference, a probe or a claim template, where an empty object says
// something an absent one does not.
var emptyMeansUnset = map[string]bool{
	"k8s.io/api/core/v1.ResourceRequirements": true,
	"k8s.io/api/core/v1.Affinity":             true,
	"k8s.io/api/core/v1.SecurityContext":      true,
	"k8s.io/api/core/v1.PodSecurityContext":   true,
}

// emptyObjectRejects lists what may reject the empty object {} as a value
// of struct id of the repository: its required members (`required "name"`,
// inlined members' included; with defaults, not those the schema
// defaults), and "a minProperties rule" or "a CEL rule" of its own;
// unknown lists the types it could not read (declared outside the
// repository, not a struct, skipped by the scan, or nested too deep).
// None for the well-known types of emptyMeansUnset.
func emptyObjectRejects(refs *typeRefs, id string, defaults bool, depth int) (rejects, unknown []string) {
	if emptyMeansUnset[id] {
		return nil, nil
	}
	t := refs.types[id]
	if t == nil || t.Kind != model.KindStruct || depth > 8 {
		return nil, []string{id}
	}
	for _, m := range t.Markers {
		switch {
		case strings.HasPrefix(m.Key, "kubebuilder:validation:XValidation"):
			rejects = append(rejects, "a CEL rule")
		case m.Key == "kubebuilder:validation:MinProperties" && m.Value != "0":
			rejects = append(rejects, "a minProperties rule")
		}
	}
	for _, m := range t.Fields {
		ct := contractOf(m)
		switch {
		case ct.Name == "-":
		case ct.Inline:
			ip := id[:max(strings.LastIndex(id, "."), 0)] // the struct's package
			r, u := emptyObjectRejects(refs, qualified(ip, strings.TrimPrefix(m.TypeID, "*")), defaults, depth+1)
			rejects, unknown = append(rejects, r...), append(unknown, u...)
		case ct.Presence != model.Optional && !(defaults && ct.Default != nil):
			rejects = append(rejects, "required "+strconv.Quote(ct.Name))
		}
	}
	return rejects, unknown
}
