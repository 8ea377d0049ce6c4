package shoot

import (
	"errors"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/apicheck/apicheck/internal/lazyre"
)

// Version is a Kubernetes minor version.
type Version struct {
	Major, Minor int
}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Less orders versions.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	return v.Minor < w.Minor
}

var versionText = lazyre.New(`^\s*v?(\d+)\.(\d+)(\.\d+)?\s*$`)

// ParseVersion reads "1.33", "v1.33" or "1.33.2".
func ParseVersion(s string) (Version, bool) {
	m := versionText.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	ma, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	return Version{ma, mi}, true
}

// SupportedVersions parses supported-kubernetes-versions.yaml. Gardener's
// file is a mapping with a "versions" list whose entries carry a
// "version" key ("1.33", with addedIn/startDate/endDate beside it); a
// top-level list of such entries, or of plain version strings, is
// accepted too. Versions are read as written (an unquoted 1.30 stays 1.30).
func SupportedVersions(data []byte) ([]Version, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errors.New("the file is empty")
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		list = mapValue(list, "versions")
		if list == nil {
			return nil, errors.New(`no "versions" list`)
		}
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: expected a list of versions", list.Line)
	}
	var out []Version
	for _, en := range list.Content {
		node := en
		if en.Kind == yaml.MappingNode {
			node = mapValue(en, "version")
			if node == nil {
				return nil, fmt.Errorf(`line %d: entry has no "version" key`, en.Line)
			}
		}
		if node.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: version is not a scalar", node.Line)
		}
		v, ok := ParseVersion(node.Value)
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not a Kubernetes version (major.minor)", node.Line, node.Value)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("the versions list is empty")
	}
	return out, nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
