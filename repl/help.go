package repl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/internal/settings"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

const intro = `Enter a program block by block, as a .ppl file has them; a '{' continues
on the next lines until the braces balance. A block replaces the one of its
kind. An expression is evaluated: at once if it uses only numbers and data,
over the draws of the last run if it uses parameters.

  data { N: int  y: real[N] }
  param { mu: real  sigma: real<lower=0> }
  model { mu ~ normal(0, 10)  for n in plate(N) { y[n] ~ normal(mu, sigma) } }
  :data y.json
  :run iters=4000
  exp(mu)

Commands (a unique prefix will do: :su for :summary; a word starting with #
begins a comment to the end of the line):
`

// helpTopics are the topics besides the commands, samplers, settings,
// functions and distributions.
var helpTopics = []string{"blocks", "statements", "samplers", "settings", "functions", "distributions", "keys"}

// statementHelp says what each statement of a block does, for :help
// statements and :help for (while, break, if, truncation).
var statementHelp = []struct{ name, doc string }{
	{"for", "for t in 2:T { ... } repeats its body for each integer of the range, unrolled when the model is compiled, or one scan op from 100 iterations on; for n in plate(N) { ... } is the minibatched loop over observations"},
	{"while", "while cond { ... } repeats its body while cond (data, loop indices, locals known when the model is compiled) is nonzero, unrolled; a counter: i: int = 1; while i <= N { ...; i += 1 }"},
	{"break", "break leaves the innermost for or while loop (not a plate)"},
	{"if", "if cond { ... } else { ... } on data or known locals; a condition on a parameter is if_else(c, a, b) instead"},
	{"truncation", "y ~ normal(mu, sigma) T[L, U] (or T[L, ], T[, U]): the density renormalised to the bounds by its log CDFs, per plate row or for a whole vector"},
}

// blockHelp says what each block of a program holds, for :help blocks and
// :help BLOCK.
var blockHelp = map[lang.BlockKind]string{
	lang.FunctionsBlock:        "user-defined functions, inlined where they are called: name(x: real, v: real[], n: int): real { ...; return e }",
	lang.DataBlock:             "declarations of the observed values, read from the data files",
	lang.TransformedDataBlock:  "definitions computed once from every row of the data, before any minibatch: mean(x), sd(x), centred columns (a plate's definitions are columns)",
	lang.ParamBlock:            "declarations of what the sampler draws (real, bounded or constrained types: simplex[K], cholesky_factor_corr[K], ...)",
	lang.TransformedParamBlock: "definitions from the parameters, seen by later blocks and written to the draws after the parameters",
	lang.ModelBlock:            "the log density: ~ statements, target +=, definitions, local variables (s: real[T]) with loops (for t in 2:T { ... }) and ifs on data, and plates (minibatched)",
	lang.GeneratedBlock:        "definitions computed for each kept draw on every row, with the _rng functions (y_rep = normal_rng(mu, sigma)), written to the draws last",
	lang.PredictBlock:          "statements scored on held-out data by temper predict",
	lang.InferBlock:            "settings: the defaults of temper run",
}

func (s *Session) help(args []string) {
	if len(args) == 0 {
		s.printf("%s", intro)
		for _, c := range commands {
			s.printf("  %-32s %s\n", c.usage, c.doc)
		}
		s.printf("\n:help TOPIC for more: a command, %s, a sampler, a setting, a function or a distribution.\n", strings.Join(helpTopics, ", "))
		s.printf("Tab completes; Ctrl-C clears the line or stops a run; Ctrl-D ends the session.\n")
		return
	}
	topic := strings.TrimPrefix(args[0], ":")
	for _, c := range commands {
		if c.name == topic {
			s.printf("%s\n  %s\n", c.usage, c.doc)
			if c.help != "" {
				s.printf("\n%s\n", c.help)
			}
			return
		}
	}
	switch topic {
	case "samplers":
		for _, name := range settings.SamplerNames() {
			s.printf("  %-18s %s\n", name, settings.SamplerDoc(name))
		}
		s.printf("\n:help NAME lists a sampler's settings; :run NAME key=value ... runs it.\n")
		return
	case "settings":
		for _, name := range infer.SettingNames() {
			s.printf("  %-20s %s\n", name, infer.SettingDoc(name))
		}
		return
	case "keys":
		s.printf("keys of :run (temper run's flags, with _ for -); any other key is a sampler setting:\n")
		for _, k := range settings.Keys() {
			if k.Allowed(settings.InREPL) == nil {
				s.printf("  %-22s %s\n", k.Name+"="+k.Arg, k.Doc)
			}
		}
		return
	case "functions":
		s.printf("%s\n", strings.Join(sortedKeys(s.env.Functions), ", "))
		return
	case "distributions":
		s.printf("%s\n", strings.Join(stdlib.Names(), ", "))
		return
	case "statements":
		for _, st := range statementHelp {
			s.printf("  %-11s %s\n", st.name, st.doc)
		}
		return
	case "blocks":
		for _, k := range lang.BlockKinds {
			s.printf("  %-18s %s\n", k, blockHelp[k])
		}
		return
	case "transformed": // :help transformed data reads one word
		for _, k := range []lang.BlockKind{lang.TransformedDataBlock, lang.TransformedParamBlock} {
			s.printf("%s: %s\n", k, blockHelp[k])
		}
		return
	}
	if slices.Contains(settings.SamplerNames(), topic) {
		o, _ := infer.SamplerOptions(topic, nil)
		s.printf("%s: %s\n", topic, settings.SamplerDoc(topic))
		for _, k := range sortedKeys(o) {
			s.printf("  %-20s %-10s %s\n", k, o[k], infer.SettingDoc(k))
		}
		return
	}
	if slices.Contains(infer.SettingNames(), topic) {
		s.printf("%s: %s\n", topic, infer.SettingDoc(topic))
		return
	}
	if sig, ok := s.env.Distributions[topic]; ok {
		s.printf("%s ~ %s(%s)   (a distribution; %s is the variate)\n", sig.Params[0], topic, strings.Join(sig.Params[1:], ", "), sig.Params[0])
		return
	}
	if doc, ok := blockHelp[lang.BlockKind(topic)]; ok {
		s.printf("%s: %s\n", topic, doc)
		return
	}
	for _, st := range statementHelp {
		if st.name == topic || topic == "T" && st.name == "truncation" {
			s.printf("%s\n", st.doc)
			return
		}
	}
	if lang.IsODESolver(topic) {
		s.printf("%s   (an ODE solver: f names a function of the functions block, f(t: real, y: real[], ...): real[], called with the arguments after ts; the states at the times ts, a row each; gradients by forward sensitivities)\n", lang.ODEUsage(topic))
		return
	}
	if sig, ok := s.env.Functions[topic]; ok {
		what := "a function"
		if sig.Random {
			what = "a random number generator: the generated block only"
		}
		call := fmt.Sprintf("%s(%s)", topic, paramList(sig))
		if sig.Alt != nil {
			call += fmt.Sprintf(" or %s(%s)", topic, paramList(*sig.Alt))
		}
		s.printf("%s   (%s)\n", call, what)
		return
	}
	all := append(append(append([]string{}, helpTopics...), settings.SamplerNames()...), infer.SettingNames()...)
	for _, c := range commands {
		all = append(all, c.name)
	}
	all = append(append(all, sortedKeys(s.env.Functions)...), sortedKeys(s.env.Distributions)...)
	all = append(all, lang.ODESolvers()...)
	for _, st := range statementHelp {
		all = append(all, st.name)
	}
	msg := fmt.Sprintf("no help on %q", topic)
	if near := lang.Suggest(topic, all); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	s.printf("%s\n", msg)
}

// paramList is a function's parameters, the optional ones in brackets:
// "x, W, b[, stride[, padding]]".
func paramList(sig lang.Signature) string {
	n := len(sig.Params) - min(sig.Optional, len(sig.Params))
	list := strings.Join(sig.Params[:n], ", ")
	for _, p := range sig.Params[n:] {
		list += "[, " + p
	}
	return list + strings.Repeat("]", len(sig.Params)-n)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
