package draws

import "time"

// SetClock replaces the wall clock a Writer consults for FlushInterval.
func SetClock(w *Writer, now func() time.Time) {
	w.now = now
	w.lastFlush = now()
}
