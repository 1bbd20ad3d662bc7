package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"

	"github.com/temper-ppl/temper"
)

// Prompts: the first line of an input, and the lines that continue it.
const (
	Prompt             = "temper> "
	ContinuationPrompt = "   ...> "
)

// Config sets up Run. The zero value uses the process's standard streams
// and the default history file.
type Config struct {
	Stdin          *os.File  // default os.Stdin
	Stdout, Stderr io.Writer // default os.Stdout, os.Stderr
	// HistoryFile keeps the lines entered, across sessions; empty means
	// DefaultHistoryFile. NoHistory keeps none.
	HistoryFile string
	NoHistory   bool
	// Inputs are evaluated first, as if typed (":load model.ppl").
	Inputs []string
}

// DefaultHistoryFile is temper/repl_history in the user's configuration
// folder (~/.config on Linux, $XDG_CONFIG_HOME if set), or .temper_history
// in the home folder when there is none.
func DefaultHistoryFile() string {
	if dir, err := os.UserConfigDir(); err == nil {
		return filepath.Join(dir, "temper", "repl_history")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".temper_history")
	}
	return ""
}

// Run runs a session until :quit or the end of the input (Ctrl-D). When
// standard input is a terminal it edits lines with readline: history,
// tab completion, the continuation prompt while braces are open, Ctrl-C
// clearing the line at the prompt and stopping a :run while one is going
// on. Otherwise it reads inputs from the stream without prompts (a
// script), and Ctrl-C stops a run or, between inputs, the session.
func Run(cfg Config) error {
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	s := NewSession(cfg.Stdout)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	for _, in := range cfg.Inputs {
		if evalInterruptible(s, in, sigs) {
			return nil
		}
	}
	if !readline.IsTerminal(int(cfg.Stdin.Fd())) {
		return runScript(s, cfg.Stdin, sigs)
	}
	return runTerminal(s, cfg, sigs)
}

// evalInterruptible evaluates one input under a context that an interrupt
// cancels.
func evalInterruptible(s *Session, input string, sigs <-chan os.Signal) (quit bool) {
	drain(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	quit = s.Eval(ctx, input)
	close(done)
	cancel()
	return quit
}

// drain drops interrupts that arrived while no input was being evaluated.
func drain(sigs <-chan os.Signal) {
	for {
		select {
		case <-sigs:
		default:
			return
		}
	}
}

func runScript(s *Session, in io.Reader, sigs <-chan os.Signal) error {
	lines := make(chan string)
	errc := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		errc <- sc.Err()
		close(lines)
	}()
	var pending strings.Builder
	for {
		select {
		case <-sigs:
			return scriptFailures(s)
		case line, ok := <-lines:
			if !ok {
				if pending.Len() > 0 {
					s.Eval(context.Background(), pending.String())
				}
				if err := <-errc; err != nil {
					return err
				}
				return scriptFailures(s)
			}
			pending.WriteString(line + "\n")
			if NeedsMore(pending.String()) {
				continue
			}
			input := pending.String()
			pending.Reset()
			if evalInterruptible(s, input, sigs) {
				return scriptFailures(s)
			}
		}
	}
}

// ErrScriptFailed is wrapped by the error of a script (standard input that
// is not a terminal) of which some input failed, so that a shell or CI sees
// a non-zero exit status; the messages were printed where they happened.
var ErrScriptFailed = errors.New("the script had errors")

func scriptFailures(s *Session) error {
	if n := s.Failures(); n > 0 {
		return fmt.Errorf("%w: %d of its inputs failed (the messages are above)", ErrScriptFailed, n)
	}
	return nil
}

// completer adapts Session.Complete to readline.
type completer struct{ s *Session }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	cands, n := c.s.Complete(string(line[:pos]))
	wordRunes := len([]rune(string(line[:pos])[len(string(line[:pos]))-n:]))
	out := make([][]rune, len(cands))
	for i, cand := range cands {
		out[i] = []rune(cand[n:])
	}
	return out, wordRunes
}

func runTerminal(s *Session, cfg Config, sigs <-chan os.Signal) error {
	history := cfg.HistoryFile
	if history == "" {
		history = DefaultHistoryFile()
	}
	if cfg.NoHistory {
		history = ""
	}
	if history != "" {
		if err := os.MkdirAll(filepath.Dir(history), 0o755); err != nil {
			history = "" // a session without history rather than none
		}
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 Prompt,
		HistoryFile:            history,
		DisableAutoSaveHistory: true, // whole inputs, a block as one entry (historyEntry)
		HistorySearchFold:      true,
		AutoComplete:           completer{s},
		InterruptPrompt:        "^C",
		Stdin:                  cfg.Stdin,
		Stdout:                 cfg.Stdout,
		Stderr:                 cfg.Stderr,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	fmt.Fprintln(cfg.Stdout, "temper repl: enter blocks, expressions or commands; :help lists them, Ctrl-D ends")
	s.Progress = newProgressLine(cfg.Stderr)
	var pending strings.Builder
	for {
		if pending.Len() == 0 {
			rl.SetPrompt(Prompt)
		} else {
			rl.SetPrompt(ContinuationPrompt)
		}
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			pending.Reset() // Ctrl-C at the prompt drops the line and any open block
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(cfg.Stdout)
			return nil
		case err != nil:
			return err
		}
		pending.WriteString(fromHistory(line) + "\n")
		if NeedsMore(pending.String()) {
			continue
		}
		input := pending.String()
		pending.Reset()
		if strings.TrimSpace(input) != "" {
			if err := rl.SaveHistory(historyEntry(input)); err != nil {
				fmt.Fprintf(cfg.Stderr, "the history could not be saved: %v\n", err)
			}
		}
		if evalInterruptible(s, input, sigs) {
			return nil
		}
	}
}

// lineMark stands for a line break in a history entry: a block typed over
// several lines is recalled as one entry, shown on one line with the
// marks, and runs as typed when entered; the history file keeps an entry
// a line.
const lineMark = "⏎"

// historyEntry is an input as the history keeps it.
func historyEntry(input string) string {
	return strings.ReplaceAll(strings.TrimRight(input, "\n"), "\n", lineMark)
}

// fromHistory turns a recalled entry's marks back into line breaks.
func fromHistory(line string) string { return strings.ReplaceAll(line, lineMark, "\n") }

// newProgressLine shows a run's progress on one line of the terminal,
// redrawn at most ten times a second and erased at the end; a long step
// after the sampling (the judgement of many draws, also after Ctrl-C)
// replaces it until then.
func newProgressLine(w io.Writer) func(temper.Progress) {
	var mu sync.Mutex
	var start, last time.Time
	return func(p temper.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Stage != "" { // a long step after sampling: shown until the run's end erases it
			fmt.Fprintf(w, "\r\033[K%s …", p.Stage)
			return
		}
		if p.Done == p.Total {
			fmt.Fprint(w, "\r\033[K")
			start = time.Time{} // the next run starts its own clock
			return
		}
		now := time.Now()
		if start.IsZero() {
			start = now
		}
		if now.Sub(last) >= 100*time.Millisecond {
			last = now
			fmt.Fprintf(w, "\r\033[K%s", progressLine(p, now.Sub(start)))
		}
	}
}

// progressLine is the progress of a run elapsed into it: the count, the
// rate and the time left as temper run shows them, then what
// Progress.Describe adds.
func progressLine(p temper.Progress, elapsed time.Duration) string {
	line := fmt.Sprintf("sampling: %d of %d iterations", p.Done, p.Total)
	if s := elapsed.Seconds(); s > 0 && p.Done > 0 {
		rate := float64(p.Done) / s
		left := time.Duration(float64(p.Total-p.Done) / rate * float64(time.Second))
		line += fmt.Sprintf(", %.0f it/s, %s left", rate, left.Round(time.Second))
	}
	if note := p.Describe(); note != "" {
		line += "; " + note
	}
	return line
}
