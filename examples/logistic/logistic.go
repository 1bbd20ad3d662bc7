// Package logistic holds the Bayesian logistic regression example's model,
// embedded for the programs that load data for it from any folder
// (temper bench data).
package logistic

import _ "embed"

// Model is the source of model.ppl.
//
//go:embed model.ppl
var Model string
