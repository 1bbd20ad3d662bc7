package main

import (
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGallerySiteInChromium writes the gallery's HTML site from the
// checked-in pages and opens every page in headless Chromium: each must
// load with every image (the page's own count, data-images="n/n") and log
// nothing to the console. Without Chromium it skips, and fails under
// CI=true, where .ci/run installs Debian's chromium.
func TestGallerySiteInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		missingTool(t, "no Chromium (apt-get install chromium): the gallery's site is not opened")
	}
	site := t.TempDir()
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"gallery", "--root", filepath.Join("..", "..", "examples"), "--html", site}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper gallery --html: exit %d: %s", code, stderr.String())
	}
	var pages []string
	filepath.WalkDir(site, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".html") {
			pages = append(pages, path)
		}
		return nil
	})
	if len(pages) < 1+len(galleryPages) {
		t.Fatalf("the site has %d pages, want at least %d", len(pages), 1+len(galleryPages))
	}
	for _, p := range galleryPages { // the slow pages too, checked in and not remade
		if want := filepath.Join(site, sitePath(p.pageFile())); !slices.Contains(pages, want) {
			t.Errorf("the site lacks the page %s (%s)", p.name, want)
		}
	}
	images := regexp.MustCompile(`data-images="(\d+)/(\d+)"`)
	for _, page := range pages {
		rel, _ := filepath.Rel(site, page)
		dom, log, err := openInBrowser(t, browser, page)
		if err != nil {
			t.Errorf("%s: %v\n%s", rel, err, log)
			continue
		}
		m := images.FindStringSubmatch(dom)
		if m == nil || m[1] != m[2] {
			t.Errorf("%s: images loaded %v (want all): the page's script did not run or an image is missing", rel, m)
		}
		if strings.Contains(page, string(filepath.Separator)+"index.html") && m != nil && m[2] == "0" {
			t.Errorf("%s: a gallery page without figures", rel)
		}
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, ":CONSOLE") {
				t.Errorf("%s: the console says %s", rel, line)
			}
		}
	}
}

// openInBrowser loads page in headless Chromium and returns the DOM after
// the load event and the browser's log. A browser that crashes (killed by
// a signal, as Chromium now and then is in a container under load) is
// started again, up to three times: the crash is the browser's, not the
// page's, which a failed load or a console message would show.
func openInBrowser(t *testing.T, browser, page string) (dom, log string, err error) {
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, browser, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage",
			"--enable-logging=stderr", "--v=0", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
		var out, errs strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errs
		err = cmd.Run()
		cancel()
		var exit *exec.ExitError
		crashed := errors.As(err, &exit) && !exit.Exited()
		if !crashed || attempt == 3 {
			return out.String(), errs.String(), err
		}
		t.Logf("%s: the browser crashed (%v); starting it again", filepath.Base(page), err)
	}
}
