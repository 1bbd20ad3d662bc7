package cuda

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestArgsLayout compiles a C program that prints the offset of every
// field of args.h's structs and checks that args.go's mirrors put each
// field at the same offset, with the same size: a kernel reading its
// struct from a Go value laid out differently would read garbage, and
// nothing else would say so before a GPU run.
func TestArgsLayout(t *testing.T) {
	cc := hostCompiler(t)
	header, err := os.ReadFile("args.h")
	if err != nil {
		t.Fatal(err)
	}
	structs := parseStructs(string(header))
	goTypes := map[string]reflect.Type{
		"EwArgs": reflect.TypeFor[EwArgs](), "ReduceArgs": reflect.TypeFor[ReduceArgs](),
		"RowsArgs": reflect.TypeFor[RowsArgs](), "CategoricalArgs": reflect.TypeFor[CategoricalArgs](),
		"NormalSumArgs": reflect.TypeFor[NormalSumArgs](), "FillArgs": reflect.TypeFor[FillArgs](),
		"MoveArgs": reflect.TypeFor[MoveArgs](), "RnnArgs": reflect.TypeFor[RnnArgs](),
		"ConvArgs": reflect.TypeFor[ConvArgs](), "PoolArgs": reflect.TypeFor[PoolArgs](), "LayerNormArgs": reflect.TypeFor[LayerNormArgs](),
		"SoftmaxArgs": reflect.TypeFor[SoftmaxArgs](), "TransposeArgs": reflect.TypeFor[TransposeArgs](),
		"BlockCopyArgs": reflect.TypeFor[BlockCopyArgs](), "VecArgs": reflect.TypeFor[VecArgs](),
	}
	if len(structs) != len(goTypes) {
		t.Fatalf("args.h has %d structs, args.go mirrors %d", len(structs), len(goTypes))
	}
	var prog strings.Builder
	prog.WriteString("#include <stdio.h>\n#include <stddef.h>\n#include \"args.h\"\nint main(void) {\n")
	for _, s := range structs {
		fmt.Fprintf(&prog, "  printf(\"%s size %%zu\\n\", sizeof(struct %s));\n", s.name, s.name)
		for _, f := range s.fields {
			fmt.Fprintf(&prog, "  printf(\"%s %s %%zu\\n\", offsetof(struct %s, %s));\n", s.name, f, s.name, f)
		}
	}
	prog.WriteString("  return 0;\n}\n")
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "layout.c"), filepath.Join(dir, "layout")
	if err := os.WriteFile(src, []byte(prog.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(".")
	if out, err := exec.Command(cc, "-x", "c", "-I", abs, "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]uintptr{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		v, _ := strconv.Atoi(f[2])
		c[f[0]+"."+f[1]] = uintptr(v)
	}
	for _, s := range structs {
		gt := goTypes[s.name]
		if gt == nil {
			t.Errorf("struct %s of args.h has no mirror in args.go", s.name)
			continue
		}
		if gt.Size() != c[s.name+".size"] {
			t.Errorf("%s: %d bytes in Go, %d in C", s.name, gt.Size(), c[s.name+".size"])
		}
		if gt.NumField() != len(s.fields) {
			t.Errorf("%s: %d fields in Go, %d in C", s.name, gt.NumField(), len(s.fields))
			continue
		}
		for i, f := range s.fields {
			if g, want := gt.Field(i).Offset, c[s.name+"."+f]; g != want {
				t.Errorf("%s: field %s (Go %s) at offset %d in Go, %d in C", s.name, f, gt.Field(i).Name, g, want)
			}
		}
	}
}

type cStruct struct {
	name   string
	fields []string
}

// parseStructs reads the struct definitions of args.h: one declaration per
// line, names separated by commas.
func parseStructs(src string) []cStruct {
	var out []cStruct
	start := regexp.MustCompile(`^struct (\w+) \{`)
	decl := regexp.MustCompile(`^\s*(?:const\s+)?\w+\s*\**\s*(.+);`)
	var cur *cStruct
	for _, line := range strings.Split(src, "\n") {
		line, _, _ = strings.Cut(line, "//")
		if m := start.FindStringSubmatch(line); m != nil {
			out = append(out, cStruct{name: m[1]})
			cur = &out[len(out)-1]
			continue
		}
		if strings.HasPrefix(line, "};") {
			cur = nil
			continue
		}
		if m := decl.FindStringSubmatch(line); cur != nil && m != nil {
			for _, n := range strings.Split(m[1], ",") {
				n, _, _ = strings.Cut(strings.Trim(strings.TrimSpace(n), "*"), "[")
				cur.fields = append(cur.fields, n)
			}
		}
	}
	return out
}

// hostCompiler is the C compiler the host tests use; without one they
// skip, except under CI=true, where .ci/run has installed one.
func hostCompiler(t *testing.T) string {
	for _, cc := range []string{"cc", "gcc", "clang"} {
		if p, err := exec.LookPath(cc); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no C compiler (cc, gcc or clang) found; CI must have one")
	}
	t.Skip("no C compiler (cc, gcc or clang) found: the kernels' host checks need one")
	return ""
}
