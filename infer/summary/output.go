package summary

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// csvHeader names the columns WriteCSV writes, in order.
var csvHeader = []string{"param", "mean", "sd", "mcse", "q5", "q50", "q95", "ess_bulk", "ess_tail", "rhat"}

// WriteCSV writes one row per Stats under the header
//
//	param,mean,sd,mcse,q5,q50,q95,ess_bulk,ess_tail,rhat
//
// Numbers are written in full: the shortest decimal that reads back as the
// same float64, so that a summary file loses nothing. NaN is written NaN and
// infinities Inf and -Inf, spellings that R, pandas and Go all read. Names
// are quoted only when they need it (RFC 4180).
func WriteCSV(w io.Writer, stats []Stats) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, s := range stats {
		row := []string{s.Name}
		for _, v := range s.values() {
			row = append(row, formatCSV(v))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// values lists the numbers of s in the order of csvHeader and tableHeader.
func (s Stats) values() []float64 {
	return []float64{s.Mean, s.SD, s.MCSE, s.Q5, s.Q50, s.Q95, s.ESSBulk, s.ESSTail, s.Rhat}
}

// formatCSV writes v exactly (see WriteCSV).
func formatCSV(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// tableHeader names the columns Table prints, in order.
var tableHeader = []string{"", "mean", "sd", "mcse", "5%", "50%", "95%", "ess_bulk", "ess_tail", "rhat"}

// tableFormats formats the numbers of values for reading, not for reuse:
// four significant digits for the location and scale, two for the Monte
// Carlo error, whole numbers for the effective sample sizes, and three
// decimals for R̂, whose thresholds are 1.01 and 1.1.
var tableFormats = []string{"%.4g", "%.4g", "%.2g", "%.4g", "%.4g", "%.4g", "%.0f", "%.0f", "%.3f"}

// Table prints stats as an aligned table for people, one row per
// quantity, in the manner of CmdStan's stansummary: names left-aligned,
// numbers right-aligned under their column headings.
func Table(w io.Writer, stats []Stats) error {
	rows := [][]string{tableHeader}
	for _, s := range stats {
		row := []string{s.Name}
		for i, v := range s.values() {
			row = append(row, fmt.Sprintf(tableFormats[i], v))
		}
		rows = append(rows, row)
	}
	widths := columnWidths(rows)
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(cell)))
			if i == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// columnWidths is the widest cell of each column, in runes.
func columnWidths(rows [][]string) []int {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	return widths
}
