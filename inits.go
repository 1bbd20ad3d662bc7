package temper

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/temper-ppl/temper/internal/godata"
)

// readInits reads starting points on the constrained scale, as Stan's
// inits files hold them: a JSON object of parameter values ({"sigma": 1,
// "beta": [0.1, -0.2]}, matrices as nested lists) shared by every chain,
// or a list of one such object per chain. It returns each chain's
// unconstrained point.
func (m *Model) readInits(path string, chains int) ([][]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	objects, ok := doc.([]any)
	if !ok {
		objects = []any{doc}
	}
	if len(objects) != 1 && len(objects) != chains {
		return nil, fmt.Errorf("%s has %d starting points for %d chains; give one for all or one per chain", path, len(objects), chains)
	}
	points := make([][]float64, chains)
	for i, obj := range objects {
		fields, ok := obj.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: starting point %d is not an object of parameter values", path, i+1)
		}
		values := map[string][]float64{}
		for name, v := range fields {
			flat, err := godata.Value(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, name, err)
			}
			values[name] = flat.Values
		}
		theta, err := m.cm.Unconstrain(values)
		if err != nil {
			return nil, fmt.Errorf("%s: starting point %d: %v", path, i+1, err)
		}
		points[i] = theta
	}
	for c := 1; c < chains && len(objects) == 1; c++ {
		points[c] = points[0]
	}
	return points, nil
}
