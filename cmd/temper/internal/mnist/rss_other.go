//go:build !unix

package mnist

// PeakRSS reports nothing on systems without getrusage.
func PeakRSS() (bytes int64, ok bool) { return 0, false }
