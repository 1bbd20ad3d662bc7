package cuda

// The kernels' argument structs of args.h, field for field (see there).
// They carry no build tag: args_host_test.go checks their layout against
// the C compiler's without a GPU.

// MaxOperands and MaxRank bound an elementwise op's operands and the
// merged rank of its broadcast (MAXOPS, MAXR).
const (
	MaxOperands = 8
	MaxRank     = 8
)

// Addr is a device address as the kernels' structs hold it.
type Addr = uint64

// EwArgs: ew_forward, ew_backward, dot_forward, dot_backward.
type EwArgs struct {
	In, GIn                       [MaxOperands]Addr
	Out, GOut                     Addr
	RStride                       [MaxOperands]int64
	N, Total, K                   int64
	Func, Arity, Rank, AtomicMask int32
	Dims                          [MaxRank]int32
	Strides                       [MaxOperands][MaxRank]int32
}

// ReduceArgs: reduce_forward, reduce_backward.
type ReduceArgs struct {
	In, Out, GIn, GOut                    Addr
	RsIn, RsOut, Outer, N, Inner, Outputs int64
	Kind, Pad                             int32
}

// RowsArgs: rows_forward, rows_backward.
type RowsArgs struct {
	In, Out, GIn, GOut, Idx, Vals                   Addr
	RsIn, RsIdx, RsOut, RowsOut, Row, RowsIn, Total int64
}

// CategoricalArgs: categorical_forward, categorical_backward.
type CategoricalArgs struct {
	Y, Theta, Out, GTheta, GOut, YAt, RowAt Addr
	RsY, RsTheta, RsOut, N, Total           int64
	K, Logit                                int32
}

// NormalSumArgs: normal_sum_forward, normal_sum_backward.
type NormalSumArgs struct {
	Y, Mu, Sigma, Out, GY, GMu, GSigma, GOut, Partial Addr
	RsY, RsMu, RsSigma, N                             int64
	Replicas, Blocks                                  int32
}

// FillArgs: fill.
type FillArgs struct {
	P Addr
	N int64
	V float64
}

// MoveArgs: move.
type MoveArgs struct {
	Theta, Grad, Momentum, LR, Temp, Scale Addr
	N, Offset, Replicas                    int64
	Seed, Step                             uint64
	Friction                               float64
}

// RnnArgs: rnn_prepare, rnn_bias_grad, lstm_step_forward,
// lstm_step_backward, gru_step_forward, gru_step_backward.
type RnnArgs struct {
	X, Xt, Bias, Z, Rec, Cells, Hidden, R, Out, GOut, Dz, Dzh, Dh, Dc, GBias Addr
	RsX, RsXt, RsBias, RsOut, RsGBias                                        int64
	Batch, Steps, D, H, Gates                                                int64
	Replicas, XReps                                                          int64
	T, Seq                                                                   int32
}

// ConvArgs: conv_im2col, conv_bias, conv_col2im, conv_bias_backward.
type ConvArgs struct {
	X, B, Out, Cols, GX, GB, GOut         Addr
	RsX, RsB, RsOut, RsCols, Batch, Total int64
	Height, Width, Channels               int32
	KH, KW, Filters, Stride, Padding      int32
	OH, OW                                int32
	Pad                                   [2]int32
}

// PoolArgs: pool_forward, max_pool_backward, avg_pool_backward.
type PoolArgs struct {
	In, Out, GIn, GOut      Addr
	Batch, Total            int64
	Height, Width, Channels int32
	Window, Stride, OH, OW  int32
	IsMax                   int32
}

// LayerNormArgs: layer_norm_forward, layer_norm_backward, layer_norm_params.
type LayerNormArgs struct {
	X, Gamma, Beta, Out, GX, GGamma, GBeta, GOut, Stats Addr
	RsX, RsGamma, RsBeta, RsOut, Rows, D, Replicas      int64
}

// SoftmaxArgs: softmax_forward, softmax_backward (shapes.cuh).
type SoftmaxArgs struct {
	In, Out, GIn, GOut                 Addr
	RsIn, RsOut, Outer, N, Inner, Rows int64
	Kind, Pad                          int32
}

// TransposeArgs: transpose_forward, transpose_backward (shapes.cuh).
type TransposeArgs struct {
	In, Out, GIn, GOut    Addr
	RsIn, RsOut, N, Total int64
	Rank, Pad             int32
	Dims, Strides         [MaxRank]int32
}

// BlockCopyArgs: block_copy_forward, block_copy_backward (shapes.cuh):
// slice and concat.
type BlockCopyArgs struct {
	In, Out, GIn, GOut                                             Addr
	RsIn, RsOut, Outer, Width, InRow, InOff, OutRow, OutOff, Total int64
}

// VecArgs: dirichlet, mvn_diag, mvn_cholesky and simplex, forward and
// backward (shapes.cuh).
type VecArgs struct {
	In, GIn         [4]Addr
	Out, GOut       Addr
	At              [4]Addr
	Scratch         Addr
	Rs              [4]int64
	RsOut, N, Total int64
	K, Kind         int32
}
