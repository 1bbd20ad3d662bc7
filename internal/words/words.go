// Package words writes the counts in temper's messages as prose.
package words

import "fmt"

// Plural is "1 chain" or "3 chains".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
