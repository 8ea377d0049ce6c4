package check

import (
	"fmt"

	"github.com/apicheck/apicheck/internal/catalog"
	"github.com/apicheck/apicheck/internal/git"
	"github.com/apicheck/apicheck/internal/model"
	"github.com/apicheck/apicheck/internal/rules"
	"github.com/apicheck/apicheck/internal/scan"
)

// AuditRuleIDs are the single-revision invariants that `apicheck audit`
// runs over every struct of one revision (rules.md "Ratchet"), for
// projects adopting apicheck on an existing API.
// PROTO_NUMBER_PREVIOUSLY_USED needs a change to judge and is left out.
var AuditRuleIDs = []string{
	"PROTO_NUMBER_DUPLICATE",
	"PROTO_NUMBER_REUSED",
	"PROTO_TAG_MALFORMED",
	"TOMBSTONE_MALFORMED",
}

// Audit scans the revision opts.Head (default: the working tree) and
// judges it against an empty base, so every existing violation of the
// single-revision invariants is reported, not only new ones.
func Audit(opts Options) (*Result, error) {
	repo, err := git.Open(opts.Dir)
	if err != nil {
		return nil, &UsageError{err}
	}
	ref := opts.Head
	if ref == "" {
		ref = git.WorktreeRef
	}
	res := &Result{Repo: repo, BaseLabel: "(none: audit of one revision)"}
	if res.Head, err = repo.Snapshot(ref); err != nil {
		return nil, refError(err)
	}
	if opts.Configure != nil {
		if err := opts.Configure(res, &opts); err != nil {
			res.Close()
			return nil, err
		}
	}
	if res.HeadModel, err = scan.Scan(res.Head, opts.Scan); err != nil {
		res.Close()
		return nil, fmt.Errorf("scanning %s: %w", describe(res.Head), err)
	}
	res.BaseModel = &model.Model{}
	res.Diff = model.Compare(res.BaseModel, res.HeadModel)
	opts.Rules = nil
	for _, id := range AuditRuleIDs {
		if r := rules.Lookup(catalog.All(), id); r != nil {
			opts.Rules = append(opts.Rules, r)
		}
	}
	if err := res.judge(opts, false); err != nil {
		res.Close()
		return nil, err
	}
	return res, nil
}
