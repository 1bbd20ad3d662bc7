//go:build !unix

package compile

import "os"

// mapNPY is not available here: ReadNPY reads the file.
func mapNPY(*os.File, int64, int) ([]float64, bool) { return nil, false }

func isMapped([]float64) bool { return false }

func adviseRandom([]float64)     {}
func adviseSequential([]float64) {}
