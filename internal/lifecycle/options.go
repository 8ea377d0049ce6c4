package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// DefaultTagPattern matches release tags v<major>.<minor>.0.
const DefaultTagPattern = `^v(\d+)\.(\d+)\.0$`

// Default locations of the Shoot deprecation stages (Gardener's layout).
var (
	DefaultShootWarnings          = []string{"pkg/api/core/shoot/warnings.go"}
	DefaultShootValidation        = []string{"pkg/apis/core/validation/shoot.go"}
	DefaultShootStrategy          = []string{"pkg/apiserver/registry/core/shoot/strategy.go"}
	DefaultShootMaintenance       = []string{"pkg/controllermanager/controller/shoot/maintenance/"}
	DefaultShootSupportedVersions = "supported-kubernetes-versions.yaml"
)

// Options configure the lifecycle analysis. They are plain data; the
// configuration file maps onto them. A nil list takes its default, an
// empty non-nil list means "none".
type Options struct {
	// TagPattern says which tags are releases. A pattern starting with
	// "^" is a regular expression, anything else a glob (path.Match) that
	// must match the whole tag name. Empty means DefaultTagPattern.
	TagPattern string
	// Shoot locates the Shoot deprecation stages.
	Shoot ShootFiles
	// TypeInfo controls the exact usage search: TypeInfoAuto confirms
	// syntactic candidates with go/packages when the module's
	// dependencies load offline; TypeInfoOff (the default) never tries.
	// Empty means TypeInfoAuto if the environment variable
	// APICHECK_TYPE_INFO is "auto", else TypeInfoOff. Auto runs the go
	// command on the repository: not for untrusted code (see goEnv).
	TypeInfo string
	// CacheDir holds the protobuf-number history cache; empty means
	// os.UserCacheDir()/apicheck (or os.TempDir() when there is none).
	// "-" disables the cache. A directory inside the repository is never
	// used.
	CacheDir string
}

// ShootFiles are repository-relative slash paths; an entry ending in "/"
// names a directory (the non-test, non-generated Go files in it and below
// it), and an entry with "*" is a path.Match pattern. A strategy entry
// stands for every Go file of its package (Canonicalize may call helpers
// defined next to it).
type ShootFiles struct {
	Warnings    []string
	Validation  []string
	Strategy    []string
	Maintenance []string
	// Defaults hold the defaulting functions; nil means the defaults*.go
	// files of the field's version package.
	Defaults []string
	// SupportedVersions is the YAML file listing the supported
	// Kubernetes versions, read at head.
	SupportedVersions string
}

// TypeInfo modes.
const (
	TypeInfoAuto = "auto"
	TypeInfoOff  = "off"
)

// withDefaults fills unset options.
func (o Options) withDefaults() Options {
	if o.TagPattern == "" {
		o.TagPattern = DefaultTagPattern
	}
	if o.TypeInfo == "" {
		o.TypeInfo = TypeInfoOff
		if os.Getenv("APICHECK_TYPE_INFO") == TypeInfoAuto {
			o.TypeInfo = TypeInfoAuto
		}
	}
	s := &o.Shoot
	if s.Warnings == nil {
		s.Warnings = DefaultShootWarnings
	}
	if s.Validation == nil {
		s.Validation = DefaultShootValidation
	}
	if s.Strategy == nil {
		s.Strategy = DefaultShootStrategy
	}
	if s.Maintenance == nil {
		s.Maintenance = DefaultShootMaintenance
	}
	if s.SupportedVersions == "" {
		s.SupportedVersions = DefaultShootSupportedVersions
	}
	return o
}

// CompileTagPattern compiles a release tag pattern: a regular expression
// when it starts with "^", otherwise a glob that must match the whole tag
// name (see Releases.TagPattern).
func CompileTagPattern(s string) (*regexp.Regexp, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty tag pattern")
	}
	if strings.HasPrefix(s, "^") {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("invalid regular expression %q: %v", s, err)
		}
		return re, nil
	}
	if _, err := path.Match(s, ""); err != nil {
		return nil, fmt.Errorf("invalid glob %q: %v (a pattern starting with ^ is a regular expression)", s, err)
	}
	return regexp.Compile(globToRegexp(s))
}

// globToRegexp translates a valid path.Match pattern into an anchored
// regular expression.
func globToRegexp(g string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(`[^/]*`)
		case '?':
			b.WriteString(`[^/]`)
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			}
		case '[':
			j := i + 1
			b.WriteString("[")
			if j < len(g) && g[j] == '^' {
				b.WriteString("^")
				j++
			}
			for ; j < len(g) && g[j] != ']'; j++ {
				switch g[j] {
				case '\\':
					j++
					b.WriteString(regexp.QuoteMeta(g[j : j+1]))
				case '-':
					b.WriteByte('-')
				default:
					b.WriteString(regexp.QuoteMeta(g[j : j+1]))
				}
			}
			b.WriteString("]")
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	b.WriteString("$")
	return b.String()
}
