//go:build linux || darwin || freebsd

package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The end-to-end tests run the REPL in a child process on a
// pseudo-terminal, as a person would: the test binary runs itself with
// childEnv set, and TestMain then runs the REPL instead of the tests.
const (
	childEnv   = "TEMPER_REPL_TEST_CHILD"
	historyEnv = "TEMPER_REPL_TEST_HISTORY"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := Run(Config{HistoryFile: os.Getenv(historyEnv)}); err != nil {
			fmt.Fprintln(os.Stderr, "repl:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// expectTimeout bounds each wait for output: far above what the REPL
// needs, for a loaded machine.
const expectTimeout = 60 * time.Second

// terminal is a REPL running on a pseudo-terminal.
type terminal struct {
	t    *testing.T
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	raw  []byte        // everything the REPL wrote
	seen int           // how much of the cleaned output expect has consumed
	more chan struct{} // a signal after each read
	eof  chan struct{} // closed when the REPL's side closes
}

func startREPL(t *testing.T, history string) *terminal {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", historyEnv+"="+history, "TERM=xterm")
	cmd.Dir = t.TempDir()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 60, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	tm := &terminal{t: t, pty: f, cmd: cmd, more: make(chan struct{}, 1), eof: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.raw = append(tm.raw, buf[:n]...)
			tm.mu.Unlock()
			select {
			case tm.more <- struct{}{}:
			default:
			}
			if err != nil {
				close(tm.eof)
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	return tm
}

// escapes are the terminal control sequences readline writes.
var escapes = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\r`)

func (tm *terminal) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return escapes.ReplaceAllString(string(tm.raw), "")
}

// expect waits until the output after what earlier calls consumed holds
// want, and consumes it.
func (tm *terminal) expect(want string) {
	tm.t.Helper()
	deadline := time.After(expectTimeout)
	for {
		out := tm.output()
		if i := strings.Index(out[tm.seen:], want); i >= 0 {
			tm.seen += i + len(want)
			return
		}
		select {
		case <-tm.more:
		case <-tm.eof:
			if !strings.Contains(tm.output()[tm.seen:], want) {
				tm.t.Fatalf("the REPL ended without printing %q; its output:\n%s", want, tm.output())
			}
		case <-deadline:
			tm.t.Fatalf("no %q after %v; the REPL printed:\n%s", want, expectTimeout, tm.output())
		}
	}
}

func (tm *terminal) send(s string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

// TestTerminal types a session: a block over several lines, a mistake and
// its correction, a completion, a run with its summary, Ctrl-C during a run
// and at the prompt, and Ctrl-D.
func TestTerminal(t *testing.T) {
	history := filepath.Join(t.TempDir(), "config", "temper", "history")
	tm := startREPL(t, history)
	tm.expect("temper repl:")
	tm.expect(Prompt)

	// A block over three lines: the continuation prompt until the brace closes.
	tm.send("param {\r")
	tm.expect(ContinuationPrompt)
	tm.send("  mu: real\r")
	tm.expect(ContinuationPrompt)
	tm.send("}\r")
	tm.expect("param: mu")
	tm.expect(Prompt)

	// The history recalls the block as one entry, which runs as typed.
	tm.send("\x1b[A")
	tm.expect("param {⏎  mu: real⏎}")
	tm.send("\r")
	tm.expect("param: mu")
	tm.expect(Prompt)

	// A mistake: the diagnostic with a caret, then the session goes on.
	tm.send("model { mu ~ nromal(3, 1) }\r")
	tm.expect(`<input 3>:1:14: unknown distribution "nromal"`)
	tm.expect("model { mu ~ nromal(3, 1) }\n             ^")
	tm.expect(Prompt)
	tm.send("model { mu ~ normal(3, 1) }\r")
	tm.expect("model: 1 statement")
	tm.expect("compiled: 1 unconstrained parameters")
	tm.expect(Prompt)

	// Tab completes a function name.
	tm.send("log_sum_\t")
	tm.expect("log_sum_exp")
	tm.send("([1, 2, 3])\r")
	tm.expect("3.40761")
	tm.expect(Prompt)

	// A run and its summary.
	tm.send(":run sgld lr=0.05 iters=400 chains=2\r")
	tm.expect("sgld, 2 chains × 400 draws")
	tm.expect("ess_bulk")
	tm.expect("mu")
	tm.expect(Prompt)

	// Ctrl-C during a run stops it; the draws so far are summarised. The
	// progress line says the run is under way before the interrupt.
	tm.send(":run iters=100000000 thin=1000 chains=2\r")
	tm.expect("Ctrl-C stops")
	tm.expect("of 100000000 iterations")
	tm.send("\x03")
	tm.expect("interrupted after")
	tm.expect("ess_bulk")
	tm.expect(Prompt)
	tm.send(":diag\r")
	tm.expect("stopped early: context canceled")
	tm.expect(Prompt)

	// Ctrl-C at the prompt drops the line, and an open block.
	tm.send("log(2")
	tm.send("\x03")
	tm.expect("^C")
	tm.send("model {\r")
	tm.expect(ContinuationPrompt)
	tm.send("\x03")
	tm.expect("^C")
	tm.send("exp(0) + 1\r")
	tm.expect("\n2\n")
	tm.expect(Prompt)

	// Ctrl-D ends the session.
	tm.send("\x04")
	select {
	case <-tm.eof:
	case <-time.After(expectTimeout):
		t.Fatalf("Ctrl-D did not end the session:\n%s", tm.output())
	}
	if err := tm.cmd.Wait(); err != nil {
		t.Errorf("the REPL exited with %v", err)
	}
	raw, err := os.ReadFile(history)
	if err != nil || !strings.Contains(string(raw), "log_sum_exp([1, 2, 3])") || !strings.Contains(string(raw), ":run sgld lr=0.05 iters=400 chains=2") ||
		!strings.Contains(string(raw), "param {⏎  mu: real⏎}\n") || strings.Contains(string(raw), "log(2") {
		t.Errorf("history file: %v\n%s", err, raw)
	}
}
