package deprecations

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/lifecycle/shoot"
	"github.com/apicheck/apicheck/internal/quote"
)

// Formats are the output formats, by name.
var Formats = map[string]func(w io.Writer, p *Plan) error{
	"text":     Text,
	"json":     JSON,
	"markdown": Markdown,
}

// FormatNames lists the formats, sorted.
func FormatNames() []string {
	names := make([]string, 0, len(Formats))
	for n := range Formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// JSON writes the plan as indented JSON.
func JSON(w io.Writer, p *Plan) error {
	out := *p
	if out.Deprecations == nil {
		out.Deprecations = []Deprecation{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(&out)
}

// label names a deprecation in the text and Markdown tables:
// "core.gardener.cloud/v1beta1 Shoot.spec.addons".
func label(d Deprecation) string {
	gv := d.Group + "/" + d.Version
	switch {
	case d.Kind == KindVersion:
		return gv
	case d.Kind == KindField && d.APIPath != "":
		return gv + " " + d.APIPath
	}
	return gv + " " + d.Type
}

// revName is how the revision is named in headings and summaries.
func revName(p *Plan) string {
	if p.Rev == git.WorktreeRef {
		return "the working tree"
	}
	return p.Rev
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func usagesCell(d Deprecation) string {
	if d.Usages == nil {
		return "-"
	}
	return strconv.Itoa(*d.Usages)
}

func removableCell(d Deprecation) string {
	switch {
	case d.Removable:
		return "now"
	case strings.HasPrefix(d.RemovableFrom, "when "):
		return d.RemovableFrom
	case d.RemovableFrom != "":
		return "from " + d.RemovableFrom
	}
	return "no"
}

func sinceCell(d Deprecation) string {
	if d.DeprecatedSince == "" {
		return "unreleased"
	}
	return d.DeprecatedSince
}

// summaryLine is the one-line summary of a plan.
func summaryLine(p *Plan) string {
	s := p.Summary()
	var b strings.Builder
	switch s.Total {
	case 0:
		fmt.Fprintf(&b, "no deprecations at %s", revName(p))
	case 1:
		fmt.Fprintf(&b, "1 deprecation at %s", revName(p))
	default:
		fmt.Fprintf(&b, "%d deprecations at %s", s.Total, revName(p))
	}
	if s.Total > 0 {
		fmt.Fprintf(&b, ": %d removable now, %d later", s.Removable, s.Later)
		if s.NextAPIVersion > 0 {
			fmt.Fprintf(&b, ", %d in the next API version", s.NextAPIVersion)
		}
	}
	switch {
	case p.NewestRelease != "" && p.NextRelease != "":
		fmt.Fprintf(&b, " (newest release %s, next %s)", p.NewestRelease, p.NextRelease)
	case p.NewestRelease != "":
		fmt.Fprintf(&b, " (newest release %s)", p.NewestRelease)
	}
	return b.String()
}

// Text writes one aligned line per deprecation under a header, a summary
// line, and the notes.
func Text(w io.Writer, p *Plan) error {
	var b strings.Builder
	if len(p.Deprecations) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DEPRECATED\tKIND\tSINCE\tK8S\tUSAGES\tSTAGE\tREMOVABLE\tNEXT")
		for _, d := range p.Deprecations {
			cells := []string{label(d), d.Kind, sinceCell(d), orDash(d.ForbiddenFrom), usagesCell(d), d.Stage, removableCell(d), d.Next}
			for i, c := range cells {
				cells[i] = strings.ReplaceAll(quote.Text(c), "\t", " ")
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	b.WriteString(quote.Text(summaryLine(p)) + "\n")
	for _, n := range p.Notes {
		b.WriteString("note: " + quote.Text(n) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdText escapes text for a Markdown table cell.
func mdText(s string) string {
	s = quote.Text(s)
	r := strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "`", "'")
	return r.Replace(s)
}

// mdCode is a code span for a table cell.
func mdCode(s string) string {
	s = strings.NewReplacer("|", `\|`, "`", "'").Replace(quote.Text(s))
	return "`" + s + "`"
}

// stagesCell renders the Shoot stages of a field.
func stagesCell(d Deprecation) string {
	if len(d.Stages) == 0 {
		return "—"
	}
	var parts []string
	for _, s := range d.Stages {
		mark := "✗"
		if s.Present {
			mark = "✓"
		}
		part := mark + " " + s.Stage
		if s.Present && s.Since != "" {
			part += " (" + s.Since + ")"
		}
		parts = append(parts, mdText(part))
	}
	return strings.Join(parts, "<br>")
}

// Markdown writes a heading, a table of the deprecations, a summary,
// a Mermaid timeline of each deprecation's stages by release, and the
// notes.
func Markdown(w io.Writer, p *Plan) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Deprecations at %s\n\n", mdText(revName(p)))
	var facts []string
	if p.NewestRelease != "" {
		facts = append(facts, "Newest release: "+mdCode(p.NewestRelease))
	}
	if p.NextRelease != "" {
		facts = append(facts, "next: "+mdCode(p.NextRelease))
	}
	if len(p.SupportedKubernetesVersions) > 0 {
		facts = append(facts, "supported Kubernetes versions: "+mdText(strings.Join(p.SupportedKubernetesVersions, ", ")))
	}
	if len(facts) > 0 {
		b.WriteString(strings.Join(facts, "; ") + ".\n\n")
	}
	if len(p.Deprecations) > 0 {
		b.WriteString("| Deprecated | Kind | Since | Forbidden from | Usages | Stage | Shoot stages | Removable | Next |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
		for _, d := range p.Deprecations {
			what := mdCode(d.Group+"/"+d.Version) + " " + mdCode(strings.TrimPrefix(label(d), d.Group+"/"+d.Version+" "))
			if d.Kind == KindVersion {
				what = mdCode(label(d))
			}
			forbidden := "—"
			if d.ForbiddenFrom != "" {
				forbidden = "Kubernetes " + mdText(d.ForbiddenFrom)
			}
			usages := usagesCell(d)
			if usages == "-" {
				usages = "—"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				what, d.Kind, mdText(sinceCell(d)), forbidden, usages, mdText(d.Stage), stagesCell(d), mdText(removableCell(d)), mdText(d.Next))
		}
		b.WriteString("\n")
	}
	b.WriteString(mdText(summaryLine(p)) + ".\n")
	if tl := timeline(p); tl != "" {
		b.WriteString("\n" + tl)
	}
	if len(p.Notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range p.Notes {
			b.WriteString("- " + mdText(n) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// period is one period of the timeline: a release (its version orders
// it), the next releases, or the end of support of a Kubernetes version.
type period struct {
	name   string
	order  [3]int // class (0 release, 1 Kubernetes version), then numbers
	events []string
}

// timeline renders the Mermaid timeline of the deprecations by release:
// the release that shipped each deprecation and each Shoot stage, what
// the revision has that no release shipped yet (in the next release),
// and from when each may be removed. "" when there is nothing to show.
func timeline(p *Plan) string {
	periods := map[string]*period{}
	add := func(name string, order [3]int, event string) {
		pr := periods[name]
		if pr == nil {
			pr = &period{name: name, order: order}
			periods[name] = pr
		}
		pr.events = append(pr.events, event)
	}
	release := func(tag string) [3]int {
		loc := versionText.FindStringSubmatch(tag)
		if loc == nil {
			return [3]int{0, 1 << 30, 0}
		}
		ma, _ := strconv.Atoi(loc[1])
		mi, _ := strconv.Atoi(loc[2])
		return [3]int{0, ma, mi}
	}
	next := "the next release"
	if p.NextRelease != "" {
		next = p.NextRelease + " (next)"
	}
	nextOrder := [3]int{0, 1 << 30, 0}
	if p.NextRelease != "" {
		nextOrder = release(p.NextRelease)
	}
	at := func(tag string) (string, [3]int) {
		switch tag {
		case "":
			return next, nextOrder
		case p.NextRelease:
			return next, nextOrder
		}
		return tag, release(tag)
	}
	names := timelineNames(p.Deprecations)
	for i, d := range p.Deprecations {
		name := names[i]
		pn, po := at(d.DeprecatedSince)
		add(pn, po, name+" deprecated")
		for _, s := range d.Stages {
			if s.Present {
				pn, po := at(s.Since)
				add(pn, po, name+" "+s.Stage)
			}
		}
		switch {
		case d.RemovableFrom == "" || d.Removable:
		case strings.HasPrefix(d.RemovableFrom, "when Kubernetes "):
			v, ok := shoot.ParseVersion(strings.TrimSuffix(strings.TrimPrefix(d.RemovableFrom, "when Kubernetes "), " is unsupported"))
			if ok {
				add("Kubernetes "+v.String()+" unsupported", [3]int{1, v.Major, v.Minor}, name+" removable")
			}
		default:
			pn, po := at(d.RemovableFrom)
			add(pn, po, name+" removable")
		}
	}
	if len(periods) == 0 {
		return ""
	}
	list := make([]*period, 0, len(periods))
	for _, pr := range periods {
		list = append(list, pr)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].order != list[j].order {
			a, b := list[i].order, list[j].order
			for k := range a {
				if a[k] != b[k] {
					return a[k] < b[k]
				}
			}
		}
		return list[i].name < list[j].name
	})
	var b strings.Builder
	b.WriteString("```mermaid\ntimeline\n    title Deprecations by release\n")
	for _, pr := range list {
		pad := strings.Repeat(" ", len(mermaidText(pr.name)))
		for k, e := range pr.events {
			if k == 0 {
				fmt.Fprintf(&b, "    %s : %s\n", mermaidText(pr.name), mermaidText(e))
				continue
			}
			fmt.Fprintf(&b, "    %s : %s\n", pad, mermaidText(e))
		}
	}
	b.WriteString("```\n")
	return b.String()
}

// timelineNames names the deprecations in the timeline: their API path
// (type, or group/version), with the version in front where two versions
// share the name.
func timelineNames(ds []Deprecation) []string {
	short := func(d Deprecation) string {
		switch {
		case d.Kind == KindVersion:
			return d.Group + "/" + d.Version
		case d.Kind == KindField && d.APIPath != "":
			return d.APIPath
		}
		return d.Type
	}
	count := map[string]int{}
	for _, d := range ds {
		count[short(d)]++
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = short(d)
		if count[out[i]] > 1 && d.Kind != KindVersion {
			out[i] = d.Version + " " + out[i]
		}
	}
	return out
}

// mermaidText keeps a timeline entry on its line and out of the syntax:
// no colon (the event separator), semicolon, hash or angle bracket.
func mermaidText(s string) string {
	return strings.NewReplacer(":", " ", ";", ",", "#", "", "<", "", ">", "", "`", "", "\n", " ", "\r", " ").Replace(quote.Text(s))
}
