package main

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// writeSite writes the gallery as a static HTML site into dir, one folder
// to read offline: index.html and, per page, NAME/index.html with its
// figures, from the Markdown pages under root (GitHub-flavoured, through
// goldmark). Each page reports, on its body's data-images attribute, how
// many of its images loaded, which the browser test reads.
func writeSite(root, dir string, stdout io.Writer) error {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	convert := func(src, dst, title, up string) error {
		raw, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		var body bytes.Buffer
		if err := md.Convert(siteLinks(raw), &body); err != nil {
			return fmt.Errorf("%s: %v", src, err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(fmt.Sprintf(sitePage, html.EscapeString(title), up, body.String())), 0o644)
	}
	if err := convert(filepath.Join(root, "index.md"), filepath.Join(dir, "index.html"), "The temper gallery", ""); err != nil {
		return err
	}
	readmes := map[string]bool{}
	for _, p := range galleryPages {
		src := filepath.Join(root, p.pageDir())
		if err := convert(filepath.Join(root, p.pageFile()), filepath.Join(dir, sitePath(p.pageFile())), p.title, `<p><a href="../index.html">the gallery</a></p>`); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(src, "README.md")); err == nil && !readmes[src] {
			readmes[src] = true
			if err := convert(filepath.Join(src, "README.md"), filepath.Join(dir, p.pageDir(), "README.html"), p.title+": README", `<p><a href="index.html">the page</a></p>`); err != nil {
				return err
			}
		}
		for _, f := range p.figures {
			raw, err := os.ReadFile(filepath.Join(src, "figures", f.file))
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(dir, p.pageDir(), "figures"), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, p.pageDir(), "figures", f.file), raw, 0o644); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintf(stdout, "the gallery's site in %s\n", dir)
	return err
}

// sitePath is where the site puts the page of a Markdown file:
// DIR/gallery.md (a folder's own page) at DIR/index.html, any other
// NAME.md at NAME.html.
func sitePath(md string) string {
	if filepath.Base(md) == "gallery.md" {
		return filepath.Join(filepath.Dir(md), "index.html")
	}
	return strings.TrimSuffix(md, ".md") + ".html"
}

// siteLinks points a page's relative links to Markdown files at their
// HTML pages in the site.
func siteLinks(md []byte) []byte {
	return mdLink.ReplaceAllFunc(md, func(m []byte) []byte {
		sub := mdLink.FindSubmatch(m)
		return []byte(string(sub[1]) + filepath.ToSlash(sitePath(string(sub[2]))) + string(sub[3]))
	})
}

// mdLink is a relative link to a Markdown file, in Markdown or in HTML.
var mdLink = regexp.MustCompile(`(\]\(|href=")([^():"\s]+\.md)([)"#])`)

// sitePage is the HTML around a page: its title, a link up, its body, and
// the count of images loaded.
const sitePage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%s</title>
<style>
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
img { max-width: 100%%; }
pre { background: #f5f5f5; padding: 0.8em; overflow-x: auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 0.2em 0.5em; }
</style>
</head>
<body>
%s
%s
<script>
window.addEventListener("load", () => {
  const imgs = Array.from(document.images);
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  document.body.setAttribute("data-images", ok + "/" + imgs.length);
});
</script>
</body>
</html>
`
