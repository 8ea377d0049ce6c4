package rules

import (
	"strings"
	"testing"

	"github.com/apicheck/apicheck/internal/finding"
	"github.com/apicheck/apicheck/internal/lifecycle"
	"github.com/apicheck/apicheck/internal/model"
)

// Relax caps the severity in a profile and leaves others alone.
func TestSeverityIn(t *testing.T) {
	if got := FieldRenamed.SeverityIn(model.ProfileComponentConfig, finding.Error); got != finding.Info {
		t.Errorf("componentconfig: %v, want info", got)
	}
	if got := JSONNameChanged.SeverityIn(model.ProfileComponentConfig, finding.Error); got != finding.Warning {
		t.Errorf("componentconfig: %v, want warning", got)
	}
	if got := NewFieldNotPointer.SeverityIn(model.ProfileGardener, finding.Error); got != finding.Error {
		t.Errorf("api: %v, want error", got)
	}
	if got := FieldRenamed.SeverityIn(model.ProfileComponentConfig, finding.Info); got != finding.Info {
		t.Errorf("a cap never raises: %v", got)
	}
}

// groupsDiff is a diff of one group per profile, each with a version v1
// (maturity as given) whose struct Spec kept its field A.
func groupsDiff(maturity model.Maturity, profiles ...model.Profile) *model.Diff {
	mk := func() *model.Model {
		m := &model.Model{}
		for _, p := range profiles {
			dir := "apis/" + string(p)
			f := &model.Field{Name: "A", Type: "*string", Nillable: model.Nillable,
				JSON: model.JSONTag{Present: true, Name: "a", OmitEmpty: true}, Pos: model.Pos{File: dir + "/v1/types.go", Line: 5, Col: 2}}
			t := &model.Type{Name: "Spec", Kind: model.KindStruct, Fields: []*model.Field{f}, Pos: model.Pos{File: dir + "/v1/types.go", Line: 4, Col: 6}}
			pkg := &model.Package{Dir: dir + "/v1", ImportPath: "example.com/" + dir + "/v1", Name: "v1", Version: "v1", Maturity: maturity,
				Types: []*model.Type{t}, Files: []string{dir + "/v1/types.go"}}
			m.Groups = append(m.Groups, &model.Group{Dir: dir, Profile: p, Versions: []*model.Package{pkg}})
		}
		return m
	}
	return model.Compare(mk(), mk())
}

// reportsEveryField is a rule that reports every paired field at error.
func reportsEveryField(r *Rule) *Rule {
	r.ID, r.Severity = "REPORTS_FIELDS", finding.Error
	r.Check = func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			c.Field(fd, Report{Message: "field " + fd.Name()})
		}
	}
	return r
}

// The severity policy judges what a rule reported once every rule ran: a
// profile caps it (and turns it off where it says Off), the configuration
// overrides it last, and each step that changed the severity is the
// finding's SeverityReason.
func TestSeverityPolicy(t *testing.T) {
	r := reportsEveryField(&Rule{Relax: map[model.Profile]finding.Severity{
		model.ProfileComponentConfig: finding.Info, model.ProfileCRD: Off}})
	d := groupsDiff(model.GA, model.ProfileCRD, model.ProfileComponentConfig, model.ProfileGardener)
	res, err := Run(d, []*Rule{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Group+" "+f.Severity.String()+" "+f.Message+" ["+f.SeverityReason+"]")
	}
	want := "apis/componentconfig info field A [the componentconfig profile caps the rule at info]\n" +
		"apis/gardener error field A []"
	if strings.Join(got, "\n") != want {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}

	res, err = Run(d, []*Rule{r}, Options{Severity: map[string]finding.Severity{r.ID: finding.Warning}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 2 {
		t.Fatalf("%d findings, want 2", len(res.Findings))
	}
	for i, wantOrig := range []finding.Severity{finding.Info, finding.Error} {
		f := res.Findings[i]
		if f.Severity != finding.Warning || res.Original[i] != wantOrig || !strings.HasSuffix(f.SeverityReason, "the configuration sets the rule's severity to warning") {
			t.Errorf("finding %d: %v (%q), original %v; want warning set by the configuration, original %v", i, f.Severity, f.SeverityReason, res.Original[i], wantOrig)
		}
	}
}

// Where the profile lets alpha APIs break, a finding about an alpha
// version has at most the rule's Alpha severity, and its message says why;
// elsewhere it keeps its severity.
func TestSeverityPolicyAlpha(t *testing.T) {
	r := reportsEveryField(&Rule{Alpha: finding.Info})
	res, err := Run(groupsDiff(model.Alpha, model.ProfileKubernetes, model.ProfileGardener), []*Rule{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Group+" "+f.Severity.String()+" "+f.Message+" ["+f.SeverityReason+"]")
	}
	want := "apis/gardener error field A []\n" +
		"apis/kubernetes info field A (alpha API: may change) [alpha API: may change]"
	if strings.Join(got, "\n") != want {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// A question a rule asks of the release history is the severity
// policy's to ask, after the rules ran; without release history the
// finding keeps the severity its rule gave it.
func TestReleaseQuestionWithoutHistory(t *testing.T) {
	asked := false
	r := &Rule{ID: "ASKS_RELEASE", Severity: finding.Error, Check: func(c *Context) {
		for fd := range c.Diff.PairedFields() {
			c.Field(fd, Report{Message: "asks"}.ifReleaseSays(func(*lifecycle.History) (bool, error) {
				asked = true
				return true, nil
			}, func(lifecycle.Release) string { return "no release had it" }))
		}
	}}
	res, err := Run(groupsDiff(model.GA, model.ProfileGardener), []*Rule{r}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if asked || len(res.Findings) != 1 || res.Findings[0].Severity != finding.Error || res.Findings[0].Message != "asks" {
		t.Errorf("asked %v, findings %v; want the question not asked and the finding an error as reported", asked, res.Findings)
	}
}
