package main

import (
	"flag"
	"io"
	"os"

	"github.com/temper-ppl/temper/repl"
)

// replInput is what temper repl reads: standard input, or a script in
// tests.
var replInput = os.Stdin

// replCommand starts an interactive session (package repl), after loading
// a model and data files if given. At a terminal the REPL handles Ctrl-C
// itself: it stops a run, not the session.
func replCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var data repeated
	fs.Var(&data, "data", "a data file (.json, .csv, .parquet, .npy or .npz) to read after the model; repeatable")
	history := fs.String("history", "", "the history file (default: temper/repl_history in the user's config folder)")
	noHistory := fs.Bool("no-history", false, "keep no history")
	flags, pos := reorderFlags(args, "no-history")
	if err := fs.Parse(flags); err != nil {
		return badf("temper repl: %v", err)
	}
	if len(pos) > 1 {
		return badf("usage: temper repl [MODEL.ppl] [--data FILE]...")
	}
	var inputs []string
	if len(pos) == 1 {
		inputs = append(inputs, ":load "+pos[0])
	}
	for _, d := range data {
		inputs = append(inputs, ":data "+d)
	}
	return repl.Run(repl.Config{Stdin: replInput, Stdout: stdout, Stderr: stderr, HistoryFile: *history, NoHistory: *noHistory, Inputs: inputs})
}
