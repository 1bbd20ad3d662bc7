// The argument structs of the kernels in kernels.cu, one per kernel
// family, passed by value. args.go mirrors them field for field (pointers
// first, then 64-bit integers, then 32-bit ones, so neither side pads
// differently); args_host_test.go checks every offset with a C compiler.
#ifndef TEMPER_ARGS_H
#define TEMPER_ARGS_H

#define MAXOPS 8
#define MAXR 8
typedef long long i64;
typedef unsigned long long u64;

struct EwArgs {
	void* in[MAXOPS];
	void* gin[MAXOPS];  // null: no gradient for that operand
	void* out;
	void* gout;
	i64 rstride[MAXOPS];  // per operand, elements between replicas (0: shared)
	i64 n;                // output elements per replica
	i64 total;            // n × replicas
	i64 k;                // dot: the contracted length
	int func;             // scalar.cuh id
	int arity;
	int rank;             // merged output axes, outermost first
	int atomic_mask;      // bit i: operand i broadcasts, add its gradient atomically
	int dims[MAXR];
	int strides[MAXOPS][MAXR];  // per operand and axis; 0 where it broadcasts
};

struct ReduceArgs {
	void* in;
	void* out;
	void* gin;
	void* gout;
	i64 rs_in, rs_out;  // replica strides
	i64 outer, n, inner;
	i64 outputs;        // outer × inner × replicas
	int kind;           // 0 sum, 1 mean, 2 max, 3 log-sum-exp (autodiff's reduceKind)
	int pad;
};

struct RowsArgs {
	void* in;
	void* out;
	void* gin;
	void* gout;
	const int* idx;    // gather: the indices; null for take_rows
	void* vals;        // take_rows: the row numbers as values of T
	i64 rs_in, rs_idx, rs_out;
	i64 rows_out;      // rows of the result per replica
	i64 row;           // elements per row
	i64 rows_in;       // rows of the operand (take_rows checks against it)
	i64 total;         // rows_out × row × replicas
};

struct CategoricalArgs {
	void* y;
	void* theta;
	void* out;
	void* gtheta;
	void* gout;
	const int* y_at;    // per output element, its label; null: the same index
	const int* row_at;  // per output element, its row; null: the same index
	i64 rs_y, rs_theta, rs_out;
	i64 n;              // output elements per replica
	i64 total;
	int k;
	int logit;
};

struct NormalSumArgs {
	void* y;
	void* mu;
	void* sigma;
	void* out;
	void* gy;
	void* gmu;
	void* gsigma;
	void* gout;
	double* partial;  // per replica and chunk: Σz² (forward), Σz and Σz² (backward)
	i64 rs_y, rs_mu, rs_sigma;
	i64 n;
	int replicas;
	int blocks;       // chunks per replica
};

struct FillArgs {
	void* p;
	i64 n;
	double v;
};

struct MoveArgs {
	void* theta;
	void* grad;
	void* momentum;       // SGHMC's v, in the metric's coordinates; null for Langevin
	const double* lr;     // per replica
	const double* temp;   // per replica
	const double* scale;  // a diagonal metric's s per element; null: none
	i64 n;                // elements per replica of this parameter
	i64 offset;           // its first coordinate in a replica's point
	i64 replicas;
	u64 seed;
	u64 step;
	double friction;      // SGHMC's α
};

// The recurrent layers (recurrent.cuh): lstm and gru, one struct for the
// preparation, step and bias-gradient kernels. Per replica of the node,
// the device scratch holds, time-major: gates z [T, B, G·H] (activated in
// the forward pass), the LSTM's tanh(c_t) [T, B, H] or the GRU's recurrent
// candidate term [T, B, H] (rec), cells and hidden [T+1, B, H] from the
// zero initial states; backward, the gates' gradients dz (the GRU's input
// part; dzh its recurrent part) [T, B, G·H], and dh, dc [B, H].
struct RnnArgs {
	void* x;       // [B, T, D] per replica of x
	void* xt;      // x time-major [T, B, D], per replica of x
	void* bias;    // [G·H]
	void* z;
	void* rec;     // lstm: tanh(c_t); gru: h_{t-1}·U_n
	void* cells;   // lstm only
	void* hidden;
	void* r;       // gru: this step's h_{t-1}·U [B, G·H]
	void* out;
	void* gout;
	void* dz;
	void* dzh;     // gru only
	void* dh;
	void* dc;      // lstm only
	void* gbias;   // null: no bias gradient
	i64 rs_x, rs_xt, rs_bias, rs_out, rs_gbias;  // replica strides (0: shared)
	i64 batch, steps, d, h, gates;
	i64 replicas;  // of the node
	i64 xreps;     // of x: 1 when shared
	int t;         // the step of a step kernel
	int seq;       // the result is every step's hidden state, else the last
};

// conv_im2col, conv_bias, conv_col2im, conv_bias_backward (layers.cuh).
struct ConvArgs {
	void* x;
	void* b;
	void* out;
	void* cols;   // im2col matrix or its gradient, reps × rows × KH·KW·C
	void* gx;
	void* gb;
	void* gout;
	i64 rs_x, rs_b, rs_out, rs_cols;  // replica strides
	i64 batch;    // images per replica
	i64 total;    // the launch's elements (blocks for conv_bias_backward)
	int height, width, channels;
	int kh, kw, filters, stride, padding;
	int oh, ow;
	int pad[2];
};

// pool_forward, max_pool_backward, avg_pool_backward (layers.cuh).
struct PoolArgs {
	void* in;
	void* out;
	void* gin;
	void* gout;
	i64 batch;    // images per replica
	i64 total;    // the launch's elements
	int height, width, channels;
	int window, stride, oh, ow;  // window: its side
	int is_max;
};

// layer_norm_forward, layer_norm_backward, layer_norm_params (layers.cuh).
struct LayerNormArgs {
	void* x;
	void* gamma;
	void* beta;
	void* out;
	void* gx;
	void* ggamma;
	void* gbeta;
	void* gout;
	void* stats;  // double: per replica and row, the mean and 1/√(σ² + ε)
	i64 rs_x, rs_gamma, rs_beta, rs_out;
	i64 rows;     // rows per replica
	i64 d;        // the normalised axis
	i64 replicas;
};

// shapes.cuh: softmax_forward, softmax_backward.
struct SoftmaxArgs {
	void* in;
	void* out;
	void* gin;
	void* gout;
	i64 rs_in, rs_out;  // replica strides
	i64 outer, n, inner;
	i64 rows;           // outer × inner × replicas
	int kind;           // 0 softmax, 1 log_softmax
	int pad;
};

// shapes.cuh: transpose_forward, transpose_backward.
struct TransposeArgs {
	void* in;
	void* out;
	void* gin;
	void* gout;
	i64 rs_in, rs_out;
	i64 n;              // elements per replica
	i64 total;          // n × replicas
	int rank;           // merged result axes
	int pad;
	int dims[MAXR];     // the result's extents
	int strides[MAXR];  // the operand's stride along each result axis
};

// shapes.cuh: block_copy_forward, block_copy_backward (slice, concat).
struct BlockCopyArgs {
	void* in;
	void* out;
	void* gin;
	void* gout;
	i64 rs_in, rs_out;
	i64 outer, width;     // rows copied, elements per row
	i64 in_row, in_off;   // the operand's row length and the first element copied
	i64 out_row, out_off; // the result's
	i64 total;            // outer × width × replicas
};

// shapes.cuh: dirichlet, mvn_diag, mvn_cholesky and simplex, forward
// and backward (stdlib's vector densities and simplex transform).
struct VecArgs {
	void* in[4];
	void* gin[4];       // null: no gradient for that operand
	void* out;
	void* gout;
	const int* at[4];   // per operand, its row (its element, for mvn_diag) for each result row; null: the same index
	double* scratch;    // per result row, the kernel's working vectors
	i64 rs[4];          // per operand, elements between replicas (0: shared)
	i64 rs_out;
	i64 n;              // result rows per replica
	i64 total;          // n × replicas
	int k;              // the vectors' length
	int kind;           // simplex: 0 the value, 1 the log-Jacobian
};

#endif
