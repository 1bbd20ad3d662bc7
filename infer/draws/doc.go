// Package draws writes and reads files of posterior draws in the
// conventions of Stan's CSV output, so that CmdStan's tools, R's rstan and
// ArviZ's az.from_cmdstan read temper's draws and temper reads theirs.
// Those tools take one chain per file: a run's files in that layout are
// written with Header.OneChain, one per chain, and Concat joins such files
// back into one run.
//
// # Format
//
// A draws file is plain text, one record a line:
//
//   - comment lines start with '#' and may appear anywhere (CmdStan puts its
//     configuration before the header, its adaptation results after it and
//     its timings at the end); Writer writes them as "# " and the text;
//   - the first other line is the header, the column names separated by
//     commas;
//   - every following line is one kept draw, as many numbers as columns.
//
// temper's columns are chain, iter and lp__, then the parameters on the
// constrained scale, then any extra columns. A vector or matrix parameter
// is flattened into one column per element named with 1-based dotted
// indices, w.1, w.2, W.1.1, W.1.2, … (FlatNames). Unlike Stan, which lists
// the elements of a matrix in column-major order, temper lists them in
// row-major order, the order of its tensors; the names say which element a
// column is, so tools that parse the names see the same matrix either way.
// A column whose name ends in "__" (lp__, accept_stat__, temperature__,
// cycle__, replica__) is a sampler diagnostic, not a parameter.
//
// Numbers are written as the shortest decimal that reads back as the same
// float64 (strconv's 'g' format with precision -1), with NaN, +Inf and -Inf
// for the special values. Fields are never quoted, so column names must not
// contain commas, quotes or line breaks.
//
// # Reading
//
// Read accepts files from other tools too: the chain and iter columns are
// optional (a CmdStan file holds one chain and has neither), and every
// other column, lp__ and accept_stat__ included, is kept. Errors name the
// file and line, as in "draws.csv:12: row has 5 fields, header has 6".
// ReadLenient is for the file of a run that was killed while writing: it
// drops an incomplete last line instead of failing on it.
package draws
