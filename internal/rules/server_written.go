package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apicheck/apicheck/internal/model"
)

// The kinds whose objects no client sends, and the struct types only they
// reach: a kind whose generated client is read-only (the markers
// client-gen reads: +genclient:readonly, +genclient:onlyVerbs,
// +genclient:skipVerbs, +genclient:method), whose whole object the
// server writes, as an aggregated API server's computed results; and the
// request of a webhook review (an AdmissionReview-shaped kind), which the
// API server sends and webhooks only read. The new-field rules judge
// their fields as they judge status (context_writers.go).

// serverWrittenSummary is what the new-field rules' Summary says of the
// fields no client sends.
const serverWrittenSummary = " In every profile at most a warning for a field no client sends, which only the server writes: a field of a kind " +
	"whose generated client is read-only (+genclient:readonly, or +genclient:onlyVerbs or skipVerbs leaving it no verb that sends an " +
	"object: create, update, patch, apply and their status forms; no +genclient:method that sends one; not +genclient:noVerbs: without " +
	"a client, what sends the kind is unknown), as an aggregated API's computed results; a field of the request of a webhook review (a kind without a " +
	"generated client or object metadata that holds only a pointer request and a pointer response, as AdmissionReview: the API " +
	"server sends the request, webhooks write the response); and a field of a struct only such kinds and requests reach. A " +
	"create-only review kind (+genclient:onlyVerbs=create, as TokenReview) is sent by its clients: its spec keeps the errors."

// clientVerbs are the verbs client-gen generates for a +genclient kind
// (its SupportedVerbs); writeVerbs are those that send an object.
var (
	clientVerbs = []string{"create", "update", "updateStatus", "delete", "deleteCollection", "get", "list", "watch", "patch", "apply", "applyStatus"}
	writeVerbs  = []string{"create", "update", "updateStatus", "patch", "apply", "applyStatus"}
	// readOnlyVerbs are +genclient:readonly's.
	readOnlyVerbs = []string{"get", "list", "watch"}
)

// readOnlyClient returns the markers that make the generated client of
// root kind t read-only, as written ("+genclient:onlyVerbs=get,list"), or
// "" when a client may send its objects or what it may send is unclear.
// The client is client-gen's (+genclient, without +genclient:noVerbs:
// without a client, other code may send the kind); its verbs are
// +genclient:readonly's and +genclient:onlyVerbs' together, or, without
// either, all but +genclient:skipVerbs'; the status verbs only count for
// a kind with a status field and without +genclient:noStatus. It is
// read-only when none of its verbs sends an object (create, update,
// patch, apply and their status forms) and no +genclient:method adds one
// that does. A verb list that is empty or names a verb client-gen does
// not know, or a method whose verb cannot be read, leaves it unclear.
func readOnlyClient(t *model.Type) string {
	if t == nil || !t.RootKind {
		return ""
	}
	ms := t.Markers
	if !ms.Has("genclient") || ms.Has("genclient:noVerbs") {
		return ""
	}
	var verbs, why []string
	if ms.Has("genclient:readonly") {
		verbs, why = slices.Clone(readOnlyVerbs), append(why, "+genclient:readonly")
	}
	for _, v := range ms.All("genclient:onlyVerbs") {
		only, ok := verbList(v)
		if !ok {
			return ""
		}
		verbs, why = append(verbs, only...), append(why, "+genclient:onlyVerbs="+v)
	}
	if why == nil {
		skips := ms.All("genclient:skipVerbs")
		if len(skips) == 0 {
			return "" // every verb
		}
		var skipped []string
		for _, v := range skips {
			s, ok := verbList(v)
			if !ok {
				return ""
			}
			skipped, why = append(skipped, s...), append(why, "+genclient:skipVerbs="+v)
		}
		verbs = slices.DeleteFunc(slices.Clone(clientVerbs), func(v string) bool { return slices.Contains(skipped, v) })
	}
	status := slices.ContainsFunc(t.Fields, func(f *model.Field) bool { return f.WireName() == "status" })
	for _, v := range verbs {
		if !slices.Contains(writeVerbs, v) {
			continue
		}
		if !strings.HasSuffix(v, "Status") || status && !ms.Has("genclient:noStatus") {
			return ""
		}
		if status && !slices.Contains(why, "+genclient:noStatus") {
			why = append(why, "+genclient:noStatus") // it drops the status verbs
		}
	}
	for _, m := range ms.All("genclient:method") {
		if v := methodVerb(m); v == "" || slices.Contains(writeVerbs, v) {
			return ""
		}
	}
	return strings.Join(why, " ")
}

// verbList reads a +genclient:onlyVerbs or skipVerbs value ("get,list",
// "get, list"); ok is false when it names no verb or one client-gen does
// not know.
func verbList(v string) (verbs []string, ok bool) {
	for s := range strings.SplitSeq(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(clientVerbs, s) {
			return nil, false
		}
		verbs = append(verbs, s)
	}
	return verbs, len(verbs) > 0
}

// methodVerb is the verb of a +genclient:method value
// ("UpdateScale,verb=update,subresource=scale"), "" when it has none.
func methodVerb(v string) string {
	parts := strings.Split(v, ",")
	for _, p := range parts[1:] {
		if k, val, ok := strings.Cut(p, "="); ok && strings.TrimSpace(k) == "verb" {
			return strings.TrimSpace(val)
		}
	}
	return ""
}

// reviewRequest returns the request member of root kind t when t has the
// shape of a webhook review (AdmissionReview, ConversionReview): no
// generated client and no object metadata, and on the wire nothing but
// its type meta, a pointer member "request" and a pointer member
// "response". The API server sends the request and the webhook answers
// in the response: the request is the server's to write. nil for any
// other kind.
func reviewRequest(t *model.Type) *model.Field {
	if t == nil || !t.RootKind || t.Kind != model.KindStruct || slices.ContainsFunc(t.Markers, func(m model.Marker) bool {
		return m.Key == "genclient" || strings.HasPrefix(m.Key, "genclient:")
	}) {
		return nil
	}
	var req, resp *model.Field
	for _, f := range t.Fields {
		c := contractOf(f)
		switch {
		case c.Name == "-":
		case f.Embedded && strings.HasSuffix(f.Name, "TypeMeta"):
		case c.Name == "request" && !c.Inline && req == nil && strings.HasPrefix(f.TypeID, "*"):
			req = f
		case c.Name == "response" && !c.Inline && resp == nil && strings.HasPrefix(f.TypeID, "*"):
			resp = f
		default:
			return nil
		}
	}
	if resp == nil {
		return nil
	}
	return req
}

// serverWritten returns the struct types, by identity, that only the
// server writes: some field of another type refers to each, and every
// such field belongs to a root kind whose generated client is read-only
// (readOnlyClient), is the request of a webhook review (reviewRequest),
// or belongs to such a type. Root kinds never are. Fields of every
// package count, so a type that a kind clients write also uses is not
// server-written.
func (r *typeRefs) serverWritten() map[string]bool {
	readOnly, requests := map[string]bool{}, map[*model.Field]bool{}
	for id, t := range r.types {
		if !t.RootKind {
			continue
		}
		if readOnlyClient(t) != "" {
			readOnly[id] = true
		} else if f := reviewRequest(t); f != nil {
			requests[f] = true
		}
	}
	if len(readOnly) == 0 && len(requests) == 0 {
		return map[string]bool{}
	}
	return r.onlyThrough(func(u fieldUse) bool { return readOnly[u.owner] || requests[u.field] })
}

// writtenBy returns the root kinds, by identity and sorted, through
// which type id of only (serverWritten's answer) is reached.
func (r *typeRefs) writtenBy(id string, only map[string]bool) []string {
	seen, kinds := map[string]bool{}, map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		for _, u := range r.users[id] {
			switch {
			case u.owner == id:
			case r.types[u.owner] != nil && r.types[u.owner].RootKind:
				kinds[u.owner] = true
			case only[u.owner]:
				walk(u.owner)
			}
		}
	}
	walk(id)
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// serverWrittenWhy says why only the server writes what root kinds
// (by identity) hold: their generated clients are read-only, or it is a
// webhook review's request. "" when neither holds for any of them.
func (r *typeRefs) serverWrittenWhy(kinds []string) string {
	var readOnly, reviews []string
	single := "" // the one read-only kind's sentence
	for _, id := range kinds {
		t := r.types[id]
		if m := readOnlyClient(t); m != "" {
			readOnly = append(readOnly, fmt.Sprintf("%s (%s)", t.Name, m))
			single = fmt.Sprintf("the generated client of %s is read-only (%s)", t.Name, m)
		} else if reviewRequest(t) != nil {
			reviews = append(reviews, t.Name)
		}
	}
	var why []string
	switch len(readOnly) {
	case 0:
	case 1:
		why = append(why, single)
	default:
		why = append(why, "the generated clients of "+listed(readOnly)+" are read-only")
	}
	switch len(reviews) {
	case 0:
	case 1:
		why = append(why, "it is the request of the webhook review "+reviews[0]+", which the API server sends and webhooks answer in its response")
	default:
		why = append(why, "it is the request of the webhook reviews "+listed(reviews)+", which the API server sends and webhooks answer in their responses")
	}
	if why == nil {
		return ""
	}
	return "only the server writes it: " + strings.Join(why, "; ")
}
