package temper

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// mergeRuns joins the output folders of runs of some of one run's chains,
// such as the tasks of an array job that each ran one chain
// (Options.ChainID), into the folder out, as the run of all of them would
// have written it: draws.csv with every chain's rows in the order that run
// writes them (by iteration, then chain), the chain files (draws_K.csv,
// copied), summary.csv over the chains (split R-hat compares them) and
// diagnostics.json. Since a draws file writes each value as the shortest
// decimal that reads back exactly, the merged summaries are the whole
// run's, bit for bit. Runs of another model or data, sampler, setting or
// seed are refused, as are two runs of one chain: the draws files' headers
// record what a run was. The Result holds the merged draws, its summary
// and warnings, for the table and warnings that temper merge prints.
func mergeRuns(out string, dirs ...string) (*Result, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no runs to merge")
	}
	runs := make([]*mergedRun, len(dirs))
	for i, dir := range dirs {
		r, err := readMergedRun(dir)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			if err := runs[0].compatible(r); err != nil {
				return nil, err
			}
		}
		runs[i] = r
	}
	byChain := map[int]*mergedRun{}
	var ids []int
	for _, r := range runs {
		for _, id := range r.draws.ChainIDs() {
			if other, ok := byChain[id]; ok {
				return nil, fmt.Errorf("chain %d is in both %s and %s: each chain's run is merged once (give each task its own --chain-id)", id, other.dir, r.dir)
			}
			byChain[id] = r
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	table := mergeTables(runs)
	if err := writeMergedDraws(filepath.Join(out, runfiles.DrawsFile), table, runs, dirs); err != nil {
		return nil, err
	}
	if err := copyChainFiles(out, ids, byChain); err != nil {
		return nil, err
	}
	res := mergedResult(table, ids, runs)
	stats := res.Summary()
	if err := writeSummaryFile(filepath.Join(out, runfiles.SummaryFile), stats); err != nil {
		return nil, err
	}
	diag := mergedDiagnostics(res, stats, runs)
	raw, err := json.MarshalIndent(jsonSafe(diag), "", "  ")
	if err != nil {
		return nil, err
	}
	return res, os.WriteFile(filepath.Join(out, runfiles.DiagnosticsFile), append(raw, '\n'), 0o644)
}

// mergedRun is one run folder that mergeRuns joins: its draws, the header
// lines that say what the run was, and its diagnostics.
type mergedRun struct {
	dir      string
	draws    *draws.Table
	sampler  string            // the sampler with its settings
	settings map[string]string // the run keys' values, by name
	keys     []string          // their order in the header
	model    string            // the model's fingerprint, or "" when the header has none
	name     string            // the model's name from the command that ran it, or ""
	diag     map[string]any
}

func readMergedRun(dir string) (*mergedRun, error) {
	path := filepath.Join(dir, runfiles.DrawsFile)
	t, err := draws.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &mergedRun{dir: dir, draws: t, settings: map[string]string{}}
	for _, c := range t.Comments {
		switch {
		case strings.HasPrefix(c, samplerComment):
			r.sampler = strings.TrimPrefix(c, samplerComment)
		case strings.HasPrefix(c, modelComment):
			r.model, _, _ = strings.Cut(strings.TrimPrefix(c, modelComment), " ")
		case strings.HasPrefix(c, "temper run "):
			r.name = runfiles.ModelName(strings.TrimPrefix(c, "temper run "))
		case strings.HasPrefix(c, runKeys[0].Name+" = "): // the settings line (settingsLine)
			for _, part := range strings.Split(c, ", ") {
				k, v, _ := strings.Cut(part, " = ")
				r.keys = append(r.keys, k)
				r.settings[k] = strings.TrimSpace(v)
			}
		}
	}
	if r.sampler == "" || len(r.keys) == 0 {
		return nil, fmt.Errorf("%s: its header does not record the sampler and the run's settings: it was not written by temper run", path)
	}
	if len(t.Chain) == 0 {
		return nil, fmt.Errorf("%s has no draws", path)
	}
	raw, err := os.ReadFile(filepath.Join(dir, runfiles.DiagnosticsFile))
	if err != nil {
		return nil, fmt.Errorf("%v: a run writes it when it ends, interrupted or not; a run killed outright has none, and temper summary %s reads its draws", err, path)
	}
	if err := json.Unmarshal(raw, &r.diag); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, runfiles.DiagnosticsFile), err)
	}
	return r, nil
}

// mergeIgnored are the run keys whose values may differ between the runs
// of one run's chains: the goroutines do not change the draws.
var mergeIgnored = []string{"threads"}

// compatible refuses a run b that is not of the same run as a: another
// model or data, sampler, setting or seed.
func (a *mergedRun) compatible(b *mergedRun) error {
	differ := func(what, x, y string) error {
		return fmt.Errorf("%s and %s are not chains of one run: %s %s, %s %s; temper merge joins the runs of one model, data, sampler, settings and seed, each run with its own --chain-id",
			a.dir, b.dir, what, x, what, y)
	}
	switch {
	case a.model != b.model:
		return differ("the model and data differ (fingerprint", a.model+")", b.model+")")
	case a.model == "" && a.name != b.name:
		return differ("the model is", a.name, b.name)
	case !slices.Equal(a.draws.Columns, b.draws.Columns):
		return differ("the columns are", strings.Join(a.draws.Columns, ","), strings.Join(b.draws.Columns, ","))
	case a.sampler != b.sampler:
		return differ("the sampler is", a.sampler, b.sampler)
	}
	for _, k := range slices.Sorted(slices.Values(append(slices.Clone(a.keys), b.keys...))) {
		if va, vb := a.settings[k], b.settings[k]; va != vb && !slices.Contains(mergeIgnored, k) {
			return differ(k+" is", shown(va), shown(vb))
		}
	}
	return nil
}

// shown is a setting's value for a message, "" when empty.
func shown(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// mergeTables joins the runs' draws in the order one run writes them: by
// iteration, then chain (and a ladder's levels in their order).
func mergeTables(runs []*mergedRun) *draws.Table {
	first := runs[0].draws
	out := &draws.Table{Comments: first.Comments, Columns: first.Columns, Values: make([][]float64, len(first.Columns))}
	type at struct{ run, row int }
	var order []at
	for i, r := range runs {
		for row := range r.draws.Chain {
			order = append(order, at{i, row})
		}
	}
	slices.SortStableFunc(order, func(x, y at) int {
		tx, ty := runs[x.run].draws, runs[y.run].draws
		return cmp.Or(cmp.Compare(tx.Iter[x.row], ty.Iter[y.row]), cmp.Compare(tx.Chain[x.row], ty.Chain[y.row]))
	})
	for _, o := range order {
		t := runs[o.run].draws
		out.Chain, out.Iter = append(out.Chain, t.Chain[o.row]), append(out.Iter, t.Iter[o.row])
		for k := range out.Values {
			out.Values[k] = append(out.Values[k], t.Values[k][o.row])
		}
	}
	return out
}

// writeMergedDraws writes the merged draws.csv: the first run's header,
// less the line naming its chain, after a line naming the merge.
func writeMergedDraws(path string, t *draws.Table, runs []*mergedRun, dirs []string) error {
	comments := []string{"temper merge of " + strings.Join(dirs, " ")}
	for _, c := range t.Comments {
		if !strings.HasPrefix(c, chainIDComment) {
			comments = append(comments, c)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := draws.NewWriter(f, draws.Header{Comments: comments, Columns: t.Columns})
	row := make([]float64, len(t.Columns))
	for r := 0; err == nil && r < len(t.Chain); r++ {
		for k := range row {
			row[k] = t.Values[k][r]
		}
		err = w.Write(t.Chain[r], t.Iter[r], row)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyChainFiles copies each chain's file in CmdStan's layout from its
// run, and removes any other chain file in out.
func copyChainFiles(out string, ids []int, byChain map[int]*mergedRun) error {
	if err := runfiles.RemoveStaleChainFiles(out, ids); err != nil {
		return err
	}
	for _, id := range ids {
		name := runfiles.ChainFile(id - 1)
		if err := copyFile(filepath.Join(out, name), filepath.Join(byChain[id].dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(o, in)
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	return err
}

// mergedResult is the Result of the merged draws that the summaries and
// the judgement read: the target level's draws of each chain (in chain
// order), their cycles, and the chains that diverged (by the runs'
// diagnostics), which the summary leaves out as the run's would.
func mergedResult(t *draws.Table, ids []int, runs []*mergedRun) *Result {
	t = t.Where("replica__", 1)
	res := &infer.Result{Draws: make([][][]float64, len(ids))}
	var cols []int
	for k, name := range t.Columns {
		if name == "lp__" || !draws.IsDiagnostic(name) {
			res.Columns, cols = append(res.Columns, name), append(cols, k)
		}
	}
	cycle := t.Index("cycle__")
	if cycle >= 0 {
		res.Cycle = make([][]int, len(ids))
	}
	for r, id := range t.Chain {
		c, _ := slices.BinarySearch(ids, id)
		v := make([]float64, len(cols))
		for j, k := range cols {
			v[j] = t.Values[k][r]
		}
		res.Draws[c] = append(res.Draws[c], v)
		if cycle >= 0 {
			res.Cycle[c] = append(res.Cycle[c], int(t.Values[cycle][r])-1)
		}
	}
	for _, run := range runs {
		for _, f := range jsonValues[map[string]any](run.diag["failures"]) {
			if id, ok := f["chain"].(float64); ok {
				c, _ := slices.BinarySearch(ids, int(id))
				res.Failures = append(res.Failures, infer.Failure{Chain: c}) // Finished counts chains from 0 here
			}
		}
	}
	if runs[0].diag["warmup"] != nil {
		res.Tuning = &infer.Tuning{}
	}
	if runs[0].diag["exact"] != nil {
		res.Exact = []infer.ExactReport{} // the judgement's remedy is an exact sampler's
	}
	name, _ := parseSamplerDescription(runs[0].sampler)
	res.Sampler = name
	return &Result{Result: res, chainIDs: ids, Options: Options{Sampler: name}}
}

func writeSummaryFile(path string, stats []summary.Stats) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = summary.WriteCSV(f, stats)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// mergedDiagnostics is the merged diagnostics.json: the first run's, with
// what the chains change recomputed or joined. The convergence figures
// (R-hat, ESS, draws, chains finished) are the merged summary's; the lists
// kept per chain (exact samplers' reports, failures, restarts, ladders) are
// the runs' lists joined; swap counts are summed; the time is the longest
// run's, as the tasks of an array job run side by side; and the warnings
// are the runs' own, less their convergence judgement over one chain,
// plus the judgement over the merged chains.
func mergedDiagnostics(res *Result, stats []summary.Stats, runs []*mergedRun) map[string]any {
	diag := map[string]any{}
	for k, v := range runs[0].diag {
		diag[k] = v
	}
	delete(diag, "chain_id")
	var perRun []map[string]any
	var warnings []string
	completed, seconds, iterations := true, 0.0, math.MaxInt
	for _, r := range runs {
		done, _ := r.diag["completed"].(bool)
		secs, _ := r.diag["seconds"].(float64)
		its, _ := r.diag["iterations_run"].(float64)
		completed = completed && done
		seconds, iterations = max(seconds, secs), min(iterations, int(its))
		perRun = append(perRun, map[string]any{"dir": r.dir, "chains": r.draws.ChainIDs(), "seconds": secs, "completed": done})
		for _, w := range jsonValues[string](r.diag["warnings"]) {
			if !isConvergenceWarning(w) && !slices.Contains(warnings, w) {
				warnings = append(warnings, w)
			}
		}
	}
	finished := res.Finished()
	if len(finished) > 0 && res.DrawsPerChain() > 0 {
		warnings = append(warnings, judgeConvergence(stats, len(finished), res.remedy())...)
		warnings = append(warnings, res.judgeLowDensity(finished)...)
		if a := res.escalationAdvice(); a != "" {
			warnings = append(warnings, a)
		}
	}
	diag["merged_runs"] = perRun
	diag["chain_ids"] = res.chainIDs
	diag["completed"] = completed
	diag["seconds"] = seconds
	diag["iterations_run"] = iterations
	diag["iterations_per_sec"] = float64(iterations) / seconds
	diag["draws_per_chain"] = res.DrawsPerChain()
	diag["chains_finished"] = len(finished)
	diag["max_rhat"] = finiteOrNil(worst(stats, func(s summary.Stats) float64 { return s.Rhat }, true))
	diag["min_ess_bulk"] = finiteOrNil(worst(stats, func(s summary.Stats) float64 { return s.ESSBulk }, false))
	diag["min_ess_tail"] = finiteOrNil(worst(stats, func(s summary.Stats) float64 { return s.ESSTail }, false))
	diag["warnings"] = append([]string{}, warnings...)
	res.Warnings = warnings
	for _, key := range []string{"exact", "failures", "restarts", "exchange_by_chain"} {
		var joined []any
		for _, r := range runs {
			if list, ok := r.diag[key].([]any); ok {
				joined = append(joined, list...)
			}
		}
		if joined != nil {
			diag[key] = joined
		}
	}
	var stopped []string
	for _, r := range runs {
		if s, ok := r.diag["stopped_by"].(string); ok {
			stopped = append(stopped, fmt.Sprintf("%s: %s", r.dir, s))
		}
	}
	if stopped != nil {
		diag["stopped_by"] = strings.Join(stopped, "; ")
	}
	mergeExchange(diag, runs)
	return diag
}

// mergeExchange sums the ladders' swap counts and round trips over the
// runs, and recomputes the rates from them.
func mergeExchange(diag map[string]any, runs []*mergedRun) {
	if _, ok := diag["swap_attempts"]; !ok {
		return
	}
	attempts, accepts := jsonValues[float64](runs[0].diag["swap_attempts"]), jsonValues[float64](runs[0].diag["swap_accepts"])
	trips, per1000, chains := 0.0, 0.0, 0
	for i, r := range runs {
		if i > 0 {
			for p, v := range jsonValues[float64](r.diag["swap_attempts"]) {
				attempts[p] += v
			}
			for p, v := range jsonValues[float64](r.diag["swap_accepts"]) {
				accepts[p] += v
			}
		}
		t, _ := r.diag["round_trips"].(float64)
		rate, _ := r.diag["round_trips_per_1000"].(float64)
		n := len(r.draws.ChainIDs())
		trips, per1000, chains = trips+t, per1000+rate*float64(n), chains+n
	}
	rates := make([]any, len(attempts))
	for p := range attempts {
		rates[p] = nil
		if attempts[p] > 0 {
			rates[p] = accepts[p] / attempts[p]
		}
	}
	diag["swap_attempts"], diag["swap_accepts"], diag["swap_rate"] = attempts, accepts, rates
	diag["round_trips"], diag["round_trips_per_1000"] = trips, per1000/float64(chains)
}

// isConvergenceWarning reports whether a run's warning is its judgement of
// R-hat, ESS or a chain's density against the others' (judgeConvergence,
// judgeLowDensity), which the merged chains are judged on afresh.
func isConvergenceWarning(w string) bool {
	for _, p := range []string{"split R-hat above", "bulk ESS below", "tail ESS below"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return strings.HasPrefix(w, adviceMark) || strings.HasPrefix(w, "chain ") && strings.Contains(w, "is stuck in a region of low density")
}

// jsonValues are the elements of a JSON list that are of type T.
func jsonValues[T any](v any) []T {
	var out []T
	list, _ := v.([]any)
	for _, x := range list {
		if t, ok := x.(T); ok {
			out = append(out, t)
		}
	}
	return out
}
