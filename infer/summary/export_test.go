package summary

// ESSMeanForTest exposes the ESS of the untransformed split chains to the
// external tests.
var ESSMeanForTest = essMean
