package shoot

import (
	"strconv"
	"strings"

	"github.com/apicheck/apicheck/internal/lazyre"
)

var (
	// k8sVersionText is a Kubernetes version in prose: "Kubernetes 1.35",
	// "kubernetes v1.32", "K8s >= 1.33", "Kubernetes version >= 1.35".
	k8sVersionText = lazyre.New(`(?i)\b(?:kubernetes|k8s)(?:\s+versions?)?\s*(>=|>)?\s*v?(\d+)\.(\d+)\b`)
	// dropSupportText says the field goes when support for a version goes:
	// "after support for Kubernetes 1.30 is dropped", "once gardener drops
	// support for kubernetes v1.32".
	dropSupportText = lazyre.New(`(?i)\bsupport\s+for\s+(?:kubernetes|k8s)(?:\s+versions?)?\s*(<=|<)?\s*v?(\d+)\.(\d+)\b`)
	// forbidWords say a field stops being allowed.
	forbidWords = lazyre.New(`(?i)\b(forbid|forbidden|disallow|disallowed|must\s+not|no\s+longer|not\s+(?:be\s+)?(?:allowed|supported|provided|permitted)|remove|removed|drop|dropped)\b`)
)

// ForbiddenFrom reads, from the doc comment of a deprecated Shoot field, the
// Kubernetes version from which the field is forbidden: "will be forbidden
// starting from Kubernetes 1.35" (1.35), "is forbidden for clusters with
// Kubernetes version >= 1.35" (1.35), "will be removed once gardener drops
// support for Kubernetes v1.32" (1.33), "Drop this field after support for
// Kubernetes 1.30 is dropped" (1.31). ok is false when no sentence ties the
// field's end to a Kubernetes version: a version mentioned for another
// reason ("deprecated as of K8S 1.29 and treated as startup taints") does
// not count, nor does a Gardener release ("removed in gardener v1.120").
// When several sentences name a version, the lowest wins.
func ForbiddenFrom(doc string) (Version, bool) {
	var best Version
	found := false
	consider := func(v Version) {
		if !found || v.Less(best) {
			best, found = v, true
		}
	}
	for _, s := range sentences(doc) {
		if !forbidWords.MatchString(s) {
			continue
		}
		if m := dropSupportText.FindStringSubmatch(s); m != nil {
			if v, ok := textVersion(m[2], m[3]); ok {
				if m[1] == "<" {
					consider(v)
				} else {
					consider(Version{v.Major, v.Minor + 1})
				}
			}
			continue
		}
		if m := k8sVersionText.FindStringSubmatch(s); m != nil {
			if v, ok := textVersion(m[2], m[3]); ok {
				if m[1] == ">" {
					v.Minor++
				}
				consider(v)
			}
		}
	}
	return best, found
}

// sentences splits prose into sentences: at ". ", "! " and "? ", and at
// blank lines; lines of one paragraph are joined.
func sentences(doc string) []string {
	var out []string
	for _, para := range strings.Split(doc, "\n\n") {
		p := strings.Join(strings.Fields(para), " ") + " "
		start := 0
		for i := 0; i+1 < len(p); i++ {
			if (p[i] == '.' || p[i] == '!' || p[i] == '?') && p[i+1] == ' ' {
				out = append(out, p[start:i])
				start = i + 2
			}
		}
		if rest := strings.TrimSpace(p[start:]); rest != "" {
			out = append(out, rest)
		}
	}
	return out
}

func textVersion(major, minor string) (Version, bool) {
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil || ma != 1 {
		return Version{}, false
	}
	return Version{ma, mi}, true
}
