package kernel

import (
	"sync"
	"unsafe"
)

// float is the element type of a GEMM.
type float interface{ float32 | float64 }

// kernelSet is one micro-kernel family with the blocking that suits it.
// A tile is at most mr rows by nr = lanes·nv columns of C.
type kernelSet[T float] struct {
	name  string
	mr    int // rows of a full tile
	lanes int // elements per vector register
	nv    int // vectors per full tile row
	kc    int // largest block of k: the A stripe (mr × kc) stays in L1
	nc    int // largest block of n, a multiple of nr: the B block (kc × nc) stays in L2
	// maskedB: the tile reads B only up to column n (masked loads), so a
	// non-transposed B is never packed.
	maskedB bool
	// packA: copy each stripe of A (mr × kc) into a contiguous buffer, k
	// after k, before its tiles, for tiles in Go that would otherwise pay a
	// bounds check per strided load. The assembly tiles read A in place.
	packA bool

	// tile sets C[0:m, 0:n] = alpha·Ã·B̃ + beta·C for m ≤ mr, n ≤ nr, where
	// Ã(i, p) = a[i·si + p·sk] and B̃(p, j) = b[p·sb + j], readable up to n
	// rounded up to whole vectors unless maskedB. mode is betaMode(beta).
	tile func(m, n, kc int, a []T, si, sk int, b []T, sb int, c []T, ldc int, alpha, beta T, mode int)

	// gemv, where the set has one, is the matrix-vector product (gemv.go):
	// y (+)= op(A)·x for a product of one column.
	gemv func(transA bool, a []T, lda int, x, y []T, add bool)

	workspaces freeList[*workspace[T]]
	jobs       freeList[*parallelJob[T]]
}

// freeList keeps objects for reuse. Unlike a sync.Pool it never drops them
// and never allocates once it has held as many as were ever in use at once
// (a sync.Pool allocates as objects move between processors, and empties at
// each GC): the pack buffers of a process that has run GEMMs on p goroutines
// at once stay allocated, p × 0.5 MiB per element type.
type freeList[E any] struct {
	mu    sync.Mutex
	items []E
}

func (l *freeList[E]) get() (e E, ok bool) {
	l.mu.Lock()
	if n := len(l.items); n > 0 {
		e, ok = l.items[n-1], true
		var zero E
		l.items[n-1] = zero
		l.items = l.items[:n-1]
	}
	l.mu.Unlock()
	return e, ok
}

func (l *freeList[E]) put(e E) {
	l.mu.Lock()
	l.items = append(l.items, e)
	l.mu.Unlock()
}

func (ks *kernelSet[T]) nr() int { return ks.lanes * ks.nv }

// betaMode tells a tile how to treat C: 0 when beta = 0 (C is written, never
// read, so NaN in C is overwritten), 1 when beta = 1, 2 otherwise.
func betaMode[T float](beta T) int {
	switch beta {
	case 0:
		return 0
	case 1:
		return 1
	}
	return 2
}

// workspace is the packing buffer of one goroutine: a kc × nc block of B.
// Workspaces are kept per kernel set for reuse, so steady-state calls
// allocate nothing.
type workspace[T float] struct {
	packed  []T // 64-byte aligned
	packedA []T // mr × kc, for kernel sets with packA
}

func (ks *kernelSet[T]) getWorkspace() *workspace[T] {
	if ws, ok := ks.workspaces.get(); ok {
		return ws
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := ks.kc * ks.nc
	buf := make([]T, n+64/size)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&buf[0])) % 64); r != 0 {
		off = (64 - r) / size
	}
	ws := &workspace[T]{packed: buf[off : off+n : off+n]}
	if ks.packA {
		ws.packedA = make([]T, ks.mr*ks.kc)
	}
	return ws
}

func (ks *kernelSet[T]) putWorkspace(ws *workspace[T]) { ks.workspaces.put(ws) }

// gemmArgs are the arguments of one GEMM call, checked.
type gemmArgs[T float] struct {
	transA, transB bool
	m, n, k        int
	alpha          T
	a              []T
	lda            int
	b              []T
	ldb            int
	beta           T
	c              []T
	ldc            int
}

// gemmRange computes the block C[i0:i1, j0:j1] of the product. Blocks that
// start at a multiple of mr (rows) and nr (columns) are cut into the same
// tiles as the whole product, and each element is summed over k in the same
// order, so a product split into such blocks gives the same bits.
func (ks *kernelSet[T]) gemmRange(ws *workspace[T], g *gemmArgs[T], i0, i1, j0, j1 int) {
	if g.alpha == 0 || g.k == 0 {
		scaleRange(g, i0, i1, j0, j1)
		return
	}
	mr, nr := ks.mr, ks.nr()
	// A is read in place: element (i, p) of op(A) is a[i·si + p·sk].
	si, sk := g.lda, 1
	if g.transA {
		si, sk = 1, g.lda
	}
	// Split k into equal blocks of at most ks.kc, a multiple of 8 when
	// that fits, so that no block is a short remainder.
	nkb := (g.k + ks.kc - 1) / ks.kc
	kcb := min(ks.kc, ((g.k+nkb-1)/nkb+7)&^7)
	packed := ws.packed
	for jc := j0; jc < j1; jc += ks.nc {
		nb := min(ks.nc, j1-jc)
		for pc := 0; pc < g.k; pc += kcb {
			kb := min(kcb, g.k-pc)
			beta, mode := g.beta, betaMode(g.beta)
			if pc > 0 {
				beta, mode = 1, 1
			}
			packB(packed, g, pc, kb, jc, nb, nr, ks.lanes, ks.maskedB)
			for ir := i0; ir < i1; ir += mr {
				mb := min(mr, i1-ir)
				a, tsi, tsk := g.a[ir*si+pc*sk:], si, sk
				if ks.packA {
					a, tsi, tsk = packA(ws.packedA, a, si, sk, mb, kb), 1, mb
				}
				c := g.c[ir*g.ldc+jc:]
				for jr := 0; jr < nb; jr += nr {
					w := min(nr, nb-jr)
					b, sb := panel(packed, g, pc, kb, jc+jr, jr, w, ks.lanes, ks.maskedB)
					ks.tile(mb, w, kb, a, tsi, tsk, b, sb, c[jr:], g.ldc, g.alpha, beta, mode)
				}
			}
		}
	}
}

// packA copies the mb × kb stripe of A with strides si, sk into dst, k
// after k (element (i, p) at dst[p·mb + i]), and returns it.
func packA[T float](dst, a []T, si, sk, mb, kb int) []T {
	dst = dst[:mb*kb]
	for i := range mb {
		row := a[i*si:]
		for p := range kb {
			dst[p*mb+i] = row[p*sk]
		}
	}
	return dst
}

// scaleRange sets C[i0:i1, j0:j1] = beta·C, the whole product when alpha or
// k is zero. beta = 0 clears C, NaN included.
func scaleRange[T float](g *gemmArgs[T], i0, i1, j0, j1 int) {
	for i := i0; i < i1; i++ {
		row := g.c[i*g.ldc+j0 : i*g.ldc+j1]
		switch g.beta {
		case 0:
			clear(row)
		case 1:
		default:
			for j := range row {
				row[j] *= g.beta
			}
		}
	}
}

// direct reports whether the tile reads a panel of w columns of op(B) in
// place, its rows then lying in B with stride ldb: when B is not transposed
// and either the tile masks its loads of B (maskedB) or w is whole vectors.
// Other panels are packed.
func direct[T float](g *gemmArgs[T], w, lanes int, maskedB bool) bool {
	return !g.transB && (maskedB || w%lanes == 0)
}

// panel returns the panel of op(B) for rows pc..pc+kb and the w columns
// from column j (jr within the block), and its row stride.
func panel[T float](packed []T, g *gemmArgs[T], pc, kb, j, jr, w, lanes int, maskedB bool) ([]T, int) {
	if direct(g, w, lanes, maskedB) {
		return g.b[pc*g.ldb+j:], g.ldb
	}
	return packed[jr*kb:], (w + lanes - 1) / lanes * lanes
}

// packB copies rows pc..pc+kb and columns jc..jc+nb of op(B) into dst as
// panels of nr columns, each stored row by row (kb rows of the panel's width
// rounded up to whole vectors, zero padded), panel after panel: the panel
// at column jr starts at dst[jr·kb]. Panels read in place are skipped.
func packB[T float](dst []T, g *gemmArgs[T], pc, kb, jc, nb, nr, lanes int, maskedB bool) {
	b, ldb := g.b, g.ldb
	for jr := 0; jr < nb; jr += nr {
		w := min(nr, nb-jr)
		if direct(g, w, lanes, maskedB) {
			continue
		}
		wp := (w + lanes - 1) / lanes * lanes
		panel := dst[jr*kb : jr*kb+kb*wp]
		if !g.transB {
			// op(B)(p, j) = b[p·ldb + j]: rows are contiguous.
			if wp <= 16 { // narrow: cheaper than calling memmove and memclr
				for p := range kb {
					row := panel[p*wp : p*wp+wp : p*wp+wp]
					src := b[(pc+p)*ldb+jc+jr:][:w:w]
					for j, v := range src {
						row[j] = v
					}
					for j := w; j < wp; j++ {
						row[j] = 0
					}
				}
				continue
			}
			for p := range kb {
				row := panel[p*wp : p*wp+wp]
				copy(row, b[(pc+p)*ldb+jc+jr:][:w])
				clear(row[w:])
			}
			continue
		}
		// op(B)(p, j) = b[j·ldb + p]: a transpose, four columns at a time so
		// each row of the panel is written in runs of four.
		j := 0
		for ; j+4 <= w; j += 4 {
			s0 := b[(jc+jr+j)*ldb+pc:][:kb]
			s1 := b[(jc+jr+j+1)*ldb+pc:][:kb]
			s2 := b[(jc+jr+j+2)*ldb+pc:][:kb]
			s3 := b[(jc+jr+j+3)*ldb+pc:][:kb]
			for p := range kb {
				d := panel[p*wp+j : p*wp+j+4 : p*wp+j+4]
				d[0], d[1], d[2], d[3] = s0[p], s1[p], s2[p], s3[p]
			}
		}
		for ; j < w; j++ {
			s := b[(jc+jr+j)*ldb+pc:][:kb]
			for p, v := range s {
				panel[p*wp+j] = v
			}
		}
		if wp > w {
			for p := range kb {
				clear(panel[p*wp+w : p*wp+wp])
			}
		}
	}
}
