package usage

import (
	"bytes"
	"go/build/constraint"
	"path"
	"strings"
)

// The usage search type-checks the files a linux/amd64 build without cgo
// would compile: that is where Kubernetes components run. Build
// constraints are evaluated here, from the file name and its //go:build
// line; nothing is asked of the go command.

const (
	buildOS   = "linux"
	buildArch = "amd64"
)

// The GOOS and GOARCH values the go command knows (go/build's syslist),
// which make a file name suffix a constraint.
var (
	knownOS = set("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js", "linux",
		"nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")
	knownArch = set("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips", "mipsle",
		"mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390",
		"s390x", "sparc", "sparc64", "wasm")
	unixOS = set("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux", "netbsd",
		"openbsd", "solaris")
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// buildTag reports whether a build tag is satisfied on linux/amd64 with
// cgo disabled and the gc toolchain of any Go 1 release.
func buildTag(tag string) bool {
	switch {
	case tag == buildOS, tag == buildArch, tag == "gc":
		return true
	case tag == "unix":
		return unixOS[buildOS]
	case strings.HasPrefix(tag, "go1."):
		return true
	}
	return false
}

// goodOSArchFile reports whether the file name's _GOOS, _GOARCH or
// _GOOS_GOARCH suffix (if any) matches linux/amd64.
func goodOSArchFile(name string) bool {
	name = strings.TrimSuffix(path.Base(name), ".go")
	name = strings.TrimSuffix(name, "_test")
	i := strings.Index(name, "_")
	if i < 0 {
		return true
	}
	l := strings.Split(name[i:], "_")
	n := len(l)
	if n >= 2 && knownOS[l[n-2]] && knownArch[l[n-1]] {
		return l[n-2] == buildOS && l[n-1] == buildArch
	}
	if n >= 1 && knownOS[l[n-1]] {
		return l[n-1] == buildOS
	}
	if n >= 1 && knownArch[l[n-1]] {
		return l[n-1] == buildArch
	}
	return true
}

// buildOK reports whether a Go file is compiled on linux/amd64 without cgo:
// its name suffix and the //go:build (or, without one, // +build) lines of
// its header.
func buildOK(name string, src []byte) bool {
	if !goodOSArchFile(name) {
		return false
	}
	var goBuild constraint.Expr
	var plusBuild []constraint.Expr
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !bytes.HasPrefix(line, []byte("//")) {
			break // the header ends at the first non-comment line
		}
		s := string(line)
		switch {
		case constraint.IsGoBuild(s):
			if x, err := constraint.Parse(s); err == nil && goBuild == nil {
				goBuild = x
			} else if err != nil {
				return false // the go command rejects the file
			}
		case constraint.IsPlusBuild(s):
			if x, err := constraint.Parse(s); err == nil {
				plusBuild = append(plusBuild, x)
			}
		}
	}
	if goBuild != nil {
		return goBuild.Eval(buildTag)
	}
	for _, x := range plusBuild {
		if !x.Eval(buildTag) {
			return false
		}
	}
	return true
}
