// Package goenv answers the few questions about the Go environment that
// apicheck has (where the module cache is) the way the go command would,
// without running it: running `go env` inside an analysed repository could
// download the toolchain its go.mod asks for.
package goenv

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// ModCache returns the module cache directory as `go env GOMODCACHE`
// would: $GOMODCACHE, else GOMODCACHE set with `go env -w`, else
// <first GOPATH entry>/pkg/mod with GOPATH from the environment, from
// `go env -w`, or $HOME/go. It returns "" when none can be determined.
func ModCache() string { return modCache(os.Getenv, readEnvFile()) }

func modCache(getenv func(string) string, file map[string]string) string {
	get := func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return file[k]
	}
	if v := get("GOMODCACHE"); v != "" && filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	gopath := get("GOPATH")
	if gopath == "" {
		home := getenv("HOME")
		if home == "" {
			if h, err := os.UserHomeDir(); err == nil {
				home = h
			}
		}
		if home == "" {
			return ""
		}
		gopath = filepath.Join(home, "go")
	}
	first := filepath.SplitList(gopath)[0]
	if !filepath.IsAbs(first) {
		return "" // the go command rejects a relative GOPATH too
	}
	return filepath.Join(first, "pkg", "mod")
}

// envFile is where `go env -w` writes: $GOENV, else
// os.UserConfigDir()/go/env; "off" disables it.
func envFile() string {
	if v := os.Getenv("GOENV"); v != "" {
		if v == "off" {
			return ""
		}
		return v
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "go", "env")
}

// maxEnvFile bounds what is read of the go env file.
const maxEnvFile = 1 << 20

func readEnvFile() map[string]string {
	p := envFile()
	if p == "" {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil || len(data) > maxEnvFile {
		return nil
	}
	return parseEnvFile(data)
}

// parseEnvFile reads KEY=VALUE lines as the go command does (no quoting;
// the last setting of a key wins).
func parseEnvFile(data []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out[strings.TrimSpace(k)] = v
	}
	return out
}
