package readme

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(path, []byte("intro\n<!-- t -->\nold\n<!-- /t -->\nrest\n"), 0o644)
	if err := Replace(path, "t", "new 1\nnew 2\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "intro\n<!-- t -->\nnew 1\nnew 2\n<!-- /t -->\nrest\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := Replace(path, "missing", "x"); err == nil {
		t.Error("missing markers accepted")
	}
}
