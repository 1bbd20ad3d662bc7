// Package readme rewrites the generated tables of the gallery's READMEs:
// an example's test, run with -update, puts the figures it measured
// between a pair of HTML comment markers.
package readme

import (
	"fmt"
	"os"
	"strings"
)

// Replace puts text between the lines <!-- name --> and <!-- /name --> of
// the file at path, replacing what was there.
func Replace(path, name, text string) error {
	begin, end := "<!-- "+name+" -->\n", "<!-- /"+name+" -->\n"
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(raw)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s lacks the markers %q and %q", path, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	return os.WriteFile(path, []byte(s[:i+len(begin)]+text+s[j:]), 0o644)
}
