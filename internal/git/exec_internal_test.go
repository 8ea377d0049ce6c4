package git

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestGitEnv(t *testing.T) {
	t.Parallel()
	in := []string{
		"PATH=/usr/bin", "TMPDIR=/tmp/x", "FOO=bar",
		"GIT_DIR=/elsewhere", "GIT_WORK_TREE=/", "GIT_OBJECT_DIRECTORY=/objects", "GIT_INDEX_FILE=/index",
		"GIT_CONFIG_PARAMETERS='core.fsmonitor'='evil'", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager",
		"GIT_EXEC_PATH=/bin/evil", "GIT_SSH_COMMAND=evil", "GIT_TRACE=/tmp/trace", "git_dir=/windows-style",
		"HOME=/home/u", "XDG_CONFIG_HOME=/home/u/.config", "PAGER=evil", "EDITOR=evil", "VISUAL=evil",
		"LANG=de_DE.UTF-8", "LC_MESSAGES=de_DE", "LANGUAGE=de", "SSH_ASKPASS=evil",
	}
	got := gitEnv(in)
	kept := got[:len(got)-len(fixedEnv)]
	if want := []string{"PATH=/usr/bin", "TMPDIR=/tmp/x", "FOO=bar"}; !reflect.DeepEqual(kept, want) {
		t.Errorf("inherited variables kept = %q, want %q", kept, want)
	}
	for _, want := range []string{
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1",
		"GIT_OPTIONAL_LOCKS=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_ALLOW_PROTOCOL=", "LC_ALL=C",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("fixed environment lacks %s", want)
		}
	}
	for _, want := range []string{"core.fsmonitor=false", "core.hooksPath=" + os.DevNull, "core.untrackedCache=false",
		"protocol.allow=never", "credential.helper=", "core.sshCommand=false"} {
		if i := slices.Index(globalArgs, want); i < 1 || globalArgs[i-1] != "-c" {
			t.Errorf("global arguments lack -c %s", want)
		}
	}
}

func TestHardenArgsAndFilterOverrides(t *testing.T) {
	t.Parallel()
	if got := hardenArgs([]string{"diff", "--name-only", "HEAD"}); strings.Join(got, " ") != "diff --no-ext-diff --no-textconv --name-only HEAD" {
		t.Errorf("hardenArgs(diff) = %q", got)
	}
	if got := hardenArgs([]string{"ls-files", "-z"}); strings.Join(got, " ") != "ls-files -z" {
		t.Errorf("hardenArgs(ls-files) = %q", got)
	}
	list := "core.bare\x00filter.lfs.clean\x00filter.lfs.smudge\x00filter.Evil.Name.with.dots.process\x00diff.evil.textconv\x00filters.x.clean\x00"
	got := filterOverrides([]byte(list))
	want := []string{"GIT_CONFIG_COUNT=8",
		"GIT_CONFIG_KEY_0=filter.lfs.clean", "GIT_CONFIG_VALUE_0=",
		"GIT_CONFIG_KEY_1=filter.lfs.smudge", "GIT_CONFIG_VALUE_1=",
		"GIT_CONFIG_KEY_2=filter.lfs.process", "GIT_CONFIG_VALUE_2=",
		"GIT_CONFIG_KEY_3=filter.lfs.required", "GIT_CONFIG_VALUE_3=false",
		"GIT_CONFIG_KEY_4=filter.Evil.Name.with.dots.clean", "GIT_CONFIG_VALUE_4=",
		"GIT_CONFIG_KEY_5=filter.Evil.Name.with.dots.smudge", "GIT_CONFIG_VALUE_5=",
		"GIT_CONFIG_KEY_6=filter.Evil.Name.with.dots.process", "GIT_CONFIG_VALUE_6=",
		"GIT_CONFIG_KEY_7=filter.Evil.Name.with.dots.required", "GIT_CONFIG_VALUE_7=false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("filterOverrides =\n%q\nwant\n%q", got, want)
	}
	if got := filterOverrides([]byte("core.bare\x00")); got != nil {
		t.Errorf("filterOverrides without filters = %q", got)
	}
}
