package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGalleryCheck makes one page into a copy of its example and checks
// it: current at once, stale after a change, with the file named. (CI
// runs the check on the checked-in pages with the portable kernels.)
func TestGalleryCheck(t *testing.T) {
	root := t.TempDir()
	dst := filepath.Join(root, "eight-schools")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.ppl", "schools.json"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "eight-schools", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gallery := func(args ...string) (int, string) {
		var stdout, stderr strings.Builder
		code := run(context.Background(), append([]string{"gallery", "--root", root, "--only", "eight-schools"}, args...), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	if code, out := gallery(); code != 0 {
		t.Fatalf("temper gallery: exit %d: %s", code, out)
	}
	page, err := os.ReadFile(filepath.Join(dst, "gallery.md"))
	if err != nil || !strings.Contains(string(page), "## The posterior") || !strings.Contains(string(page), "![pair](figures/pair.svg)") {
		t.Fatalf("the page: %v\n%s", err, page)
	}
	if code, out := gallery("--check"); code != 0 || !strings.Contains(out, "the gallery is current: 4 files") {
		t.Fatalf("temper gallery --check of a fresh page: exit %d: %s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dst, "gallery.md"), append(page, "edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := gallery("--check"); code == 0 || !strings.Contains(out, "1 of 4 files are stale (eight-schools/gallery.md)") {
		t.Errorf("temper gallery --check of an edited page: exit %d: %s", code, out)
	}
}
