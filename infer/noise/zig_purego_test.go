//go:build purego || !amd64

package noise

const purego = true
