// Package hermetic keeps tests away from the user's home directory and
// caches. apicheck's protobuf history cache defaults to the user cache
// directory (os.UserCacheDir()/apicheck), and the git and go commands the
// code under test runs read the user's configuration; a test must neither
// write the one nor depend on the other.
//
// A package whose tests run the pipeline (in process or the binary) calls
// Main, or Setup in its own TestMain:
//
//	func TestMain(m *testing.M) { hermetic.Main(m) }
//
// The test binary then runs with HOME, the XDG base directories (and their
// Windows counterparts) pointing into a fresh temporary directory, and
// fails if anything was written there (but for the go command's telemetry
// counters): every pipeline run is expected to
// have a cache directory of its own (check.Options.Lifecycle.CacheDir =
// t.TempDir() in process; UserDirs or SetUserDirs for the binary and the
// CLI, which use the default location). The go command's own locations
// (GOENV, GOCACHE, GOMODCACHE, GOPATH) are pinned to what they were, so
// that type loading through go/packages stays offline and warm and honours
// `go env -w` settings; that is the toolchain's cache, which `go test`
// itself writes to, not apicheck's.
package hermetic

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// userDirVars are the environment variables os.UserHomeDir,
// os.UserCacheDir and os.UserConfigDir read, relative to a home.
func userDirVars(home string) map[string]string {
	vars := map[string]string{
		"HOME":            home,
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
	}
	if runtime.GOOS == "windows" {
		vars["USERPROFILE"] = home
		vars["LocalAppData"] = filepath.Join(home, "AppData", "Local")
		vars["AppData"] = filepath.Join(home, "AppData", "Roaming")
	}
	if runtime.GOOS == "plan9" {
		vars["home"] = home
	}
	return vars
}

// cacheEnv is lifecycle.CacheEnv, which Setup removes from the
// environment.
const cacheEnv = "APICHECK_CACHE_DIR"

// goVars are pinned before HOME moves.
var goVars = []string{"GOENV", "GOCACHE", "GOMODCACHE", "GOPATH"}

// Main runs the tests under Setup and exits.
func Main(m *testing.M) {
	done := Setup()
	os.Exit(done(m.Run()))
}

// Setup moves the user directories of this process into a temporary
// directory and pins the go command's locations. The returned function
// checks that nothing was written to the temporary home, removes it, and
// returns the exit code: code, or 1 if something was written.
func Setup() (done func(code int) int) {
	if err := pinGoEnv(); err != nil {
		fmt.Fprintf(os.Stderr, "hermetic: %v\n", err)
		os.Exit(2)
	}
	root, err := os.MkdirTemp("", "apicheck-test-home-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "hermetic: %v\n", err)
		os.Exit(2)
	}
	home := filepath.Join(root, "home")
	for k, v := range userDirVars(home) {
		if err := os.MkdirAll(v, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "hermetic: %v\n", err)
			os.Exit(2)
		}
		os.Setenv(k, v)
	}
	// apicheck's cache directory setting (lifecycle.CacheEnv) would send
	// the struct-history cache of every run without its own CacheDir, and
	// of every apicheck child process, past the stand-in home.
	os.Unsetenv(cacheEnv)
	// The go command that go/packages runs counts its use in
	// <config dir>/go/telemetry: the toolchain's business, and now in
	// the stand-in directory.
	var telemetry string
	if cfg, err := os.UserConfigDir(); err == nil {
		telemetry = filepath.Join(cfg, "go", "telemetry")
	}
	return func(code int) int {
		defer os.RemoveAll(root)
		written, err := filesUnder(home, telemetry)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hermetic: %v\n", err)
			return 1
		}
		if len(written) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: tests wrote to the user's home or cache directory (%s), "+
				"which stands in for the real one; give every run its own directory "+
				"(lifecycle CacheDir, hermetic.UserDirs, hermetic.SetUserDirs):\n", home)
			for _, p := range written {
				fmt.Fprintf(os.Stderr, "\t%s\n", p)
			}
			return 1
		}
		return code
	}
}

// pinGoEnv sets GOENV, GOCACHE, GOMODCACHE and GOPATH to the values the go
// command reports now, while HOME is still the user's.
func pinGoEnv() error {
	// go test puts its own go command first on PATH.
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil // no go command: nothing will run it
	}
	out, err := exec.Command(goCmd, append([]string{"env", "-json"}, goVars...)...).Output()
	if err != nil {
		return fmt.Errorf("go env: %v", err)
	}
	var vals map[string]string
	if err := json.Unmarshal(out, &vals); err != nil {
		return fmt.Errorf("go env: %v", err)
	}
	for _, k := range goVars {
		if v := vals[k]; v != "" {
			os.Setenv(k, v)
		}
	}
	return nil
}

// filesUnder lists the files (not directories) below dir, relative to it,
// except those below skip.
func filesUnder(dir, skip string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == skip {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// UserDirs returns environment entries that give a child process (the
// apicheck binary, a script) a fresh home and user directories of its
// own, under t.TempDir(): append them to its environment.
func UserDirs(t testing.TB) []string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	var env []string
	for k, v := range userDirVars(home) {
		if err := os.MkdirAll(v, 0o755); err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// SetUserDirs gives the rest of the test (this process) a fresh home and
// user directories under t.TempDir(), e.g. for the CLI run in process,
// whose protobuf history cache is os.UserCacheDir()/apicheck. Like
// t.Setenv, it cannot be used in parallel tests.
func SetUserDirs(t *testing.T) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	for k, v := range userDirVars(home) {
		if err := os.MkdirAll(v, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(k, v)
	}
}
