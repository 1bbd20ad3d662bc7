package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/lang/stan"
)

const translateHelp = `usage: temper translate MODEL.stan [-o MODEL.ppl]

Translates a Stan program into a .ppl model (docs/translate.md): the
blocks, declarations (old and new array syntax, vectors, matrices, the
constrained types, bounds, offset and multiplier), ~ statements, target +=,
loops, ifs, local variables, assignments, user functions, _lpdf calls and
Stan's expressions. A loop over the observations whose body scores the
data, for (n in 1:N) y[n] ~ ..., becomes a plate, for n in plate(N).

The .ppl program goes to standard output, or to the file -o names. Each
construct without a counterpart in the .ppl (an ODE solver, a while loop,
truncation, reject, ...) is listed on standard error as
MODEL.stan:line:col: what, and marked in the program by a
// TODO(translate): comment; the exit status is then 1. A translation
without gaps is checked as temper check would; a program that does not
parse, or a translation that does not check, exits with status 2.
`

func translateCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("translate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, translateHelp) }
	out := fs.String("o", "", "write the .ppl program to this file (default: standard output)")
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return badf("temper translate: %v", err)
	}
	if len(pos) != 1 {
		return badf("usage: temper translate MODEL.stan [-o MODEL.ppl]")
	}
	path := pos[0]
	src, err := os.ReadFile(path)
	if err != nil {
		return badf("temper translate: %v", err)
	}
	res, err := stan.TranslateSource(string(src), stan.Options{Env: compile.Env(), Name: filepath.Base(path)})
	if err != nil {
		return badf("%s:%v", path, err)
	}
	if *out != "" {
		if err := os.WriteFile(*out, []byte(res.PPL), 0o644); err != nil {
			return fmt.Errorf("writing the translation: %v", err)
		}
	} else {
		fmt.Fprint(stdout, res.PPL)
	}
	if len(res.Gaps) > 0 {
		for _, g := range res.Gaps {
			fmt.Fprintf(stderr, "%s:%s\n", path, g)
		}
		return fmt.Errorf("%s without a counterpart in the .ppl, marked // TODO(translate) in the translation", plural(len(res.Gaps), "construct"))
	}
	name := *out
	if name == "" {
		name = path + ".ppl"
	}
	f, err := lang.Parse(name, []byte(res.PPL))
	if err == nil {
		_, err = lang.Check(f, compile.Env())
	}
	if err != nil {
		msg := "temper translate: the translation does not check:\n" + lang.Format(err, []byte(res.PPL))
		var list lang.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				if l := e.Pos.Line; l >= 1 && l <= len(res.Origins) && res.Origins[l-1].Line > 0 {
					msg += fmt.Sprintf("%s: from %s:%s\n", e.Pos, path, res.Origins[l-1])
				}
			}
		}
		return badInput{msg}
	}
	if *out != "" {
		fmt.Fprintf(stdout, "%s: translated to %s\n", path, *out)
	}
	return nil
}
