package hermetic

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// childEnv makes TestMain act as a test binary whose test writes to what
// it believes is the user cache directory.
const childEnv = "HERMETIC_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "cache-env":
		// Setup drops apicheck's cache directory setting.
		done := Setup()
		code := 0
		if _, set := os.LookupEnv(cacheEnv); set {
			code = 3
		}
		os.Exit(done(code))
	case "write-cache", "write-telemetry", "clean":
		done := Setup()
		code := 0
		var dir string
		var err error
		switch os.Getenv(childEnv) {
		case "write-cache":
			dir, err = os.UserCacheDir()
			dir = filepath.Join(dir, "apicheck", "ab")
		case "write-telemetry":
			dir, err = os.UserConfigDir()
			dir = filepath.Join(dir, "go", "telemetry", "local")
		}
		if err == nil && dir != "" {
			err = os.MkdirAll(dir, 0o755)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, "entry"), []byte("x"), 0o644)
			}
		}
		if err != nil {
			code = 3
		}
		os.Exit(done(code))
	}
	os.Exit(m.Run())
}

func TestSetupGuard(t *testing.T) {
	t.Parallel()
	realCache, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache directory")
	}
	for _, c := range []struct {
		mode string
		code int
	}{{"clean", 0}, {"write-telemetry", 0}, {"write-cache", 1}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), childEnv+"="+c.mode)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("%s: exit code %d, want %d\n%s", c.mode, code, c.code, out)
		}
		if c.code == 1 && !strings.Contains(string(out), filepath.Join("apicheck", "ab", "entry")) {
			t.Errorf("%s: the failure does not name the file:\n%s", c.mode, out)
		}
	}
	if _, err := os.Stat(filepath.Join(realCache, "apicheck", "ab", "entry")); err == nil {
		t.Errorf("the child wrote to the real user cache directory %s", realCache)
	}
}

func TestUserDirs(t *testing.T) {
	t.Parallel()
	env := UserDirs(t)
	found := false
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "HOME" {
			found = true
			if !strings.HasPrefix(v, os.TempDir()) {
				t.Errorf("HOME=%s is not a temporary directory", v)
			}
		}
	}
	if !found {
		t.Errorf("UserDirs = %q: no HOME", env)
	}
}

func TestSetUserDirs(t *testing.T) {
	before, _ := os.UserCacheDir()
	t.Run("isolated", func(t *testing.T) {
		SetUserDirs(t)
		dir, err := os.UserCacheDir()
		if err != nil || dir == before {
			t.Errorf("UserCacheDir = %q, %v; want a new directory", dir, err)
		}
		home, err := os.UserHomeDir()
		if err != nil || !strings.HasPrefix(dir, home) {
			t.Errorf("cache %s is not under the new home %s (%v)", dir, home, err)
		}
	})
	if after, _ := os.UserCacheDir(); after != before {
		t.Errorf("UserCacheDir after the test = %q, want %q", after, before)
	}
}

func TestSetupDropsCacheEnv(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childEnv+"=cache-env", cacheEnv+"="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("child with %s set: %v\n%s", cacheEnv, err, out)
	}
}
