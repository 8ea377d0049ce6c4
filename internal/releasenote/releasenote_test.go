package releasenote_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apicheck/apicheck/internal/notes"
	"github.com/apicheck/apicheck/internal/releasenote"
)

// gardenerTemplate is Gardener's pull request template around a block,
// with its instructions in an HTML comment.
const gardenerTemplate = `**How to categorize this PR?**
<!--
Please select area, kind, and priority for this pull request.
-->
/area usability
/kind enhancement

**What this PR does / why we need it**:
Adds ` + "`spec.region`" + `.

**Release note**:
<!--  Write your release note:
1. Enter your extended release note in the below block. If the PR requires additional action from users switching to the new release, include the string "action required".
2. If no release note is required, just write "NONE" within the block.

Format of block header: <category> <target_group>
Possible values:
- category:       breaking|noteworthy|feature|bugfix|doc|other
- target_group:   user|operator|developer|dependency
-->
%s
`

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []releasenote.Block
		unknown    []string
	}{
		{
			name: "template with one block",
			text: strings.Replace(gardenerTemplate, "%s", "```feature user\nShoots have a region.\n```", 1),
			want: []releasenote.Block{{Category: "feature", Audience: "user", Text: "Shoots have a region.", Line: 21}},
		},
		{
			name: "template left as it is: an empty block says nothing",
			text: strings.Replace(gardenerTemplate, "%s", "```other operator\n\n```", 1),
		},
		{
			name: "NONE, CRLF line ends",
			text: strings.ReplaceAll(strings.Replace(gardenerTemplate, "%s", "```other operator\nNONE\n```", 1), "\n", "\r\n"),
			want: []releasenote.Block{{Category: "other", Audience: "operator", Text: "NONE", None: true, Line: 21}},
		},
		{
			name: "none in lower case with punctuation, CR line ends",
			text: "```other operator\r\"none.\"\r```\r",
			want: []releasenote.Block{{Category: "other", Audience: "operator", Text: `"none."`, None: true, Line: 1}},
		},
		{
			name: "several blocks, indented in a list, with other text and code around them",
			text: "Notes:\n\n- user facing:\n\n    ```breaking user\n    The field `.spec.seedName` was removed.\n    Use `.spec.seedSelector`.\n    ```\n- and\n\n  ~~~~feature operator\n  Seeds report their capacity.\n  ~~~~\n\n```yaml\n```breaking developer\nnot a block: inside yaml\n```\n\n```` bugfix   DEVELOPER  \nfixed\n````\n",
			want: []releasenote.Block{
				{Category: "breaking", Audience: "user", Text: "The field `.spec.seedName` was removed.\nUse `.spec.seedSelector`.", Line: 5},
				{Category: "feature", Audience: "operator", Text: "Seeds report their capacity.", Line: 11},
				{Category: "bugfix", Audience: "developer", Text: "fixed", Line: 20},
			},
		},
		{
			name: "a block in an HTML comment is not read",
			text: "<!--\n```breaking user\nexample\n```\n-->\n```feature user\nreal\n```\n",
			want: []releasenote.Block{{Category: "feature", Audience: "user", Text: "real", Line: 6}},
		},
		{
			name:    "headers not in the template's format",
			text:    "```breaking users\nx\n```\n```operator\ny\n```\n```go\nfunc f() {}\n```\n```feature user more words\nz\n```\n",
			want:    []releasenote.Block{{Category: "feature", Audience: "user", Text: "z", Line: 10}},
			unknown: []string{"breaking users"},
		},
		{
			name: "an unclosed block runs to the end; a shorter fence does not close it",
			text: "````breaking operator\nthe `x` flag is gone\n```\nstill the note",
			want: []releasenote.Block{{Category: "breaking", Audience: "operator", Text: "the `x` flag is gone\n```\nstill the note", Line: 1}},
		},
		{
			name: "two backticks are no fence",
			text: "``feature user\nx\n``\n",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := releasenote.Parse(c.text)
			if diff := cmp.Diff(c.want, n.Blocks); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.unknown, n.Unknown); diff != "" {
				t.Errorf("unknown headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNoteQuestions(t *testing.T) {
	var none *releasenote.Note
	if none.Has("breaking", "") || none.Noted() || none.None() || none.Headers() != nil {
		t.Errorf("a nil note answers as if it had blocks")
	}
	n := releasenote.Parse("```breaking operator\nx\n```\n```other operator\nNONE\n```\n")
	for _, c := range []struct {
		cat, aud string
		want     bool
	}{{"breaking", "", true}, {"breaking", "operator", true}, {"breaking", "user", false}, {"other", "", false}, {"feature", "", false}} {
		if got := n.Has(c.cat, c.aud); got != c.want {
			t.Errorf("Has(%q, %q) = %v, want %v", c.cat, c.aud, got, c.want)
		}
	}
	if !n.Noted() || n.None() {
		t.Errorf("Noted %v, None %v: want a note with content", n.Noted(), n.None())
	}
	if got, want := n.Headers(), []string{"breaking operator", "other operator NONE"}; !cmp.Equal(got, want) {
		t.Errorf("Headers = %q, want %q", got, want)
	}
	if n := releasenote.Parse("```other operator\nNONE\n```\n"); !n.None() || n.Noted() {
		t.Errorf("a NONE block: None %v, Noted %v", n.None(), n.Noted())
	}
	if n := releasenote.Parse("no blocks"); n.None() || n.Noted() {
		t.Errorf("no block: None %v, Noted %v", n.None(), n.Noted())
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "body.md")
	if err := os.WriteFile(p, []byte("```feature user\nx\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := releasenote.Read(p, nil)
	if err != nil || !n.Has("feature", "user") {
		t.Fatalf("Read(file) = %+v, %v", n, err)
	}
	n, err = releasenote.Read("-", strings.NewReader("```breaking user\ny\n```"))
	if err != nil || !n.Has("breaking", "user") {
		t.Fatalf("Read(-) = %+v, %v", n, err)
	}
	if _, err := releasenote.Read(filepath.Join(dir, "missing.md"), nil); err == nil {
		t.Errorf("Read of a missing file: no error")
	}
	if _, err := releasenote.Read("-", strings.NewReader(strings.Repeat("x", releasenote.MaxSize+1))); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Read of a huge description: %v, want an error", err)
	}
}

// The vocabulary is the one the stubs are drafted in.
func TestVocabulary(t *testing.T) {
	if !cmp.Equal(releasenote.Categories, notes.Categories) || !cmp.Equal(releasenote.Audiences, notes.Audiences) {
		t.Errorf("categories %v and audiences %v differ from the stubs' %v, %v",
			releasenote.Categories, releasenote.Audiences, notes.Categories, notes.Audiences)
	}
}
