package repl

import (
	"strings"
	"testing"
)

// A command line's trailing # comment is not an argument: the docs'
// examples annotate their :run and :data lines so, and a line pasted from
// them must run as it would without the comment.
func TestCommandTrailingComment(t *testing.T) {
	s := newTestSession(t)
	if got, want := s.eval(":help run   # what :run takes"), s.eval(":help run"); got != want || strings.Contains(got, "error") {
		t.Errorf(":help run with a comment printed\n%s\nwant\n%s", got, want)
	}
	path := writeFile(t, t.TempDir(), "y.json", `{"N": 3, "y": [1.5, 2.5, 2]}`)
	s.eval("param { mu: real }")
	s.eval("data { N: int  y: real[N] }")
	s.eval("model {\n  mu ~ normal(0, 10)\n  for n in plate(N) { y[n] ~ normal(mu, 1) }\n}")
	s.expect(":data "+path+"   # 3 rows #2", "data from "+path, "compiled")
	s.expect(":run nuts iters=200 chains=2 # the comment: sampler=sgld lr=1", "mu")
	if s.result == nil {
		t.Fatal("no run")
	}
	if got := s.result.Result.Sampler; got != "nuts" {
		t.Errorf("ran %s; the comment's sampler=sgld must not count", got)
	}
	if out := s.eval(":run iters=#200"); !strings.Contains(out, "error") {
		t.Errorf("a # inside a word is not a comment: want an error for iters=#200, got\n%s", out)
	}
	if out := s.eval(":  # only a comment"); !strings.Contains(out, "a command follows the colon") {
		t.Errorf("a comment alone after the colon: got\n%s", out)
	}
}
