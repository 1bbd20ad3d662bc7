package infer

// EqualRejectionLevels exposes the ladder's placement rule to the
// external tests.
var EqualRejectionLevels = equalRejectionLevels
