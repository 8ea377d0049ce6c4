package lifecycle

import "github.com/apicheck/apicheck/internal/config"

// Options configure the lifecycle analysis. They are plain data; the
// configuration file maps onto them. A nil list takes its default, an
// empty non-nil list means "none".
type Options struct {
	// TagPattern says which tags are releases. A pattern starting with
	// "^" is a regular expression, anything else a glob (path.Match) that
	// must match the whole tag name (config.CompileTagPattern). Empty
	// means config.DefaultTagPattern.
	TagPattern string
	// Shoot locates the Shoot deprecation stages; unset locations take
	// their defaults (config.StageFiles.WithDefaults).
	Shoot config.StageFiles
	// TypeInfo controls the usage search: TypeInfoAuto (the default)
	// resolves receivers by type-checking the candidate packages in-process
	// from the revision's sources; TypeInfoOff matches every reference by
	// its field path only.
	TypeInfo string
	// UsageExclude lists the globs of files that hold no usages
	// (config.Usages.Exclude); nil means config.DefaultUsageExclude.
	UsageExclude []string
	// CacheDir is the root of the on-disk cache of the struct history
	// (see cache.go); empty means $APICHECK_CACHE_DIR, else
	// os.UserCacheDir()/apicheck, else no cache (never a shared directory
	// such as /tmp). "-" disables the cache. A directory inside the
	// repository, or one that others can write, is never used.
	CacheDir string
}

// TypeInfo modes.
const (
	TypeInfoAuto = "auto"
	TypeInfoOff  = "off"
)

// withDefaults fills unset options.
func (o Options) withDefaults() Options {
	if o.TagPattern == "" {
		o.TagPattern = config.DefaultTagPattern
	}
	if o.TypeInfo == "" {
		o.TypeInfo = TypeInfoAuto
	}
	o.Shoot = o.Shoot.WithDefaults()
	return o
}
