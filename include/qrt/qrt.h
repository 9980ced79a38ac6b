/* qrt: a small, fast, exact runtime for quantized neural networks. The C API.
 *
 * C99, no C++ types; no exception crosses it. Every function that can fail returns a
 * qrt_status; on failure qrt_last_error() gives a message naming the file, the node
 * (name, index and op) and the reason.
 *
 * Objects, each with one create and one destroy (destroy accepts NULL):
 *   qrt_graph    a model as loaded from ONNX or qrt JSON, before optimization.
 *   qrt_options  how to compile: passes, ISA, threads, memory limit.
 *   qrt_model    a compiled model: optimized graph and execution plan. Immutable.
 *   qrt_context  what one run needs: activation memory and the bound inputs/outputs.
 *   qrt_tensor   a tensor qrt allocated, e.g. read from a .npy or .pb file.
 *
 * Typical use:
 *   qrt_model* m;   qrt_model_load_file("net.onnx", NULL, &m);
 *   qrt_context* c; qrt_context_create(m, &c);
 *   qrt_context_bind_input(c, 0, QRT_UINT8, 4, dims, pixels, n);
 *   qrt_context_run(c);
 *   qrt_tensor_view out; qrt_context_output(c, 0, &out);
 *   qrt_context_destroy(c); qrt_model_destroy(m);
 *
 * Thread safety:
 *   - A qrt_model (and the qrt_graph qrt_model_graph returns) is immutable and may be
 *     used from any number of threads at once, e.g. one qrt_context per thread.
 *   - A qrt_context, qrt_options or qrt_tensor may be used by one thread at a time.
 *   - A qrt_graph's read functions may run concurrently; compiling reads it only.
 *   - Destroying a model while contexts made from it live is allowed: a context keeps
 *     what it needs alive.
 *   - qrt_last_error() is per thread.
 */
#ifndef QRT_QRT_H_
#define QRT_QRT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions the shared library exports; everything else in it is hidden. */
#if defined(__GNUC__)
#define QRT_API __attribute__((visibility("default")))
#else
#define QRT_API
#endif

#define QRT_VERSION_MAJOR 0
#define QRT_VERSION_MINOR 1
#define QRT_VERSION_PATCH 0

/* Most dimensions a tensor may have. */
#define QRT_MAX_RANK 16

/* ---- status, dtypes, version ------------------------------------------------------ */

typedef enum qrt_status {
  QRT_OK = 0,
  QRT_INVALID_ARGUMENT = 1,   /* the model, an input or an argument is wrong */
  QRT_UNSUPPORTED = 2,        /* valid, but qrt does not implement it */
  QRT_NOT_FOUND = 3,          /* a named file, input or output does not exist */
  QRT_IO_ERROR = 4,           /* reading or writing a file failed */
  QRT_RESOURCE_EXHAUSTED = 5, /* a size or memory limit was exceeded */
  QRT_INTERNAL = 6            /* a bug in qrt */
} qrt_status;

/* Element types. The values are ONNX TensorProto.DataType codes. */
typedef enum qrt_dtype {
  QRT_UNDEFINED = 0,
  QRT_FLOAT32 = 1,
  QRT_UINT8 = 2,
  QRT_INT8 = 3,
  QRT_UINT16 = 4,
  QRT_INT16 = 5,
  QRT_INT32 = 6,
  QRT_INT64 = 7,
  QRT_BOOL = 9,
  QRT_FLOAT16 = 10,
  QRT_FLOAT64 = 11,
  QRT_UINT32 = 12,
  QRT_UINT64 = 13,
  QRT_BFLOAT16 = 16
} qrt_dtype;

/* "0.1.0"; and (major << 16) | (minor << 8) | patch of the linked library. */
QRT_API const char* qrt_version_string(void);
QRT_API uint32_t qrt_version(void);

/* The message of the last failed call on this thread ("" if none). Valid until the
 * next failing call on this thread. */
QRT_API const char* qrt_last_error(void);
QRT_API const char* qrt_status_name(qrt_status status);

/* "float32", "uint8", ...; "undefined" for unknown values. */
QRT_API const char* qrt_dtype_name(qrt_dtype dtype);
/* Bytes per element; 0 for QRT_UNDEFINED and unknown values. */
QRT_API size_t qrt_dtype_size(qrt_dtype dtype);

/* ---- tensors ----------------------------------------------------------------------- */

/* A tensor seen through pointers that someone else owns. Dims are C-ordered (row-major);
 * size_bytes is the product of dims times the element size. */
typedef struct qrt_tensor_view {
  qrt_dtype dtype;
  int32_t rank;
  const int64_t* dims;
  const void* data;
  size_t size_bytes;
} qrt_tensor_view;

typedef struct qrt_tensor qrt_tensor;

/* A zero-filled tensor. */
QRT_API qrt_status qrt_tensor_create(qrt_dtype dtype, int32_t rank, const int64_t* dims, qrt_tensor** out);
/* Reads a .npy (versions 1-3) or ONNX TensorProto .pb file. */
QRT_API qrt_status qrt_tensor_read_file(const char* path, qrt_tensor** out);
QRT_API void qrt_tensor_destroy(qrt_tensor* tensor);
/* The tensor's view, valid while it lives; and its writable data. */
QRT_API qrt_tensor_view qrt_tensor_get_view(const qrt_tensor* tensor);
QRT_API void* qrt_tensor_data(qrt_tensor* tensor);
/* Writes a tensor as a C-ordered little-endian .npy file. */
QRT_API qrt_status qrt_tensor_write_npy(const char* path, const qrt_tensor_view* tensor);

/* ---- graphs ------------------------------------------------------------------------ */

typedef struct qrt_graph qrt_graph;

typedef enum qrt_format {
  QRT_FORMAT_AUTO = 0, /* a file: by extension (.onnx, .json); a buffer: JSON if it starts with '{' */
  QRT_FORMAT_ONNX = 1,
  QRT_FORMAT_JSON = 2
} qrt_format;

/* A graph input or output. dims has `rank` entries, -1 for a symbolic dimension; rank
 * is -1 when the shape is not declared. Pointers live as long as the graph. */
typedef struct qrt_value_info {
  const char* name;
  qrt_dtype dtype;
  int32_t rank;
  const int64_t* dims;
} qrt_value_info;

/* A node. inputs/outputs hold value names; "" stands for an omitted optional one.
 * Pointers live as long as the graph. */
typedef struct qrt_node_info {
  const char* name;
  const char* domain; /* "" for the ONNX default domain, "qrt" for nodes qrt's passes made */
  const char* op_type;
  size_t input_count;
  const char* const* inputs;
  size_t output_count;
  const char* const* outputs;
} qrt_node_info;

/* Loads a model file; external tensor data is resolved next to it. */
QRT_API qrt_status qrt_graph_load_file(const char* path, qrt_graph** out);
/* Loads a model held in memory (copied; the buffer may be freed on return). `name`
 * appears in error messages and may be NULL. External data is not allowed. */
QRT_API qrt_status qrt_graph_load_buffer(const void* data, size_t size, qrt_format format, const char* name,
                                         qrt_graph** out);
QRT_API void qrt_graph_destroy(qrt_graph* graph);

QRT_API size_t qrt_graph_input_count(const qrt_graph* graph);
QRT_API size_t qrt_graph_output_count(const qrt_graph* graph);
QRT_API qrt_status qrt_graph_input(const qrt_graph* graph, size_t index, qrt_value_info* out);
QRT_API qrt_status qrt_graph_output(const qrt_graph* graph, size_t index, qrt_value_info* out);
/* Index of the input/output called `name`; QRT_NOT_FOUND if there is none. */
QRT_API qrt_status qrt_graph_find_input(const qrt_graph* graph, const char* name, size_t* index);
QRT_API qrt_status qrt_graph_find_output(const qrt_graph* graph, const char* name, size_t* index);
/* Nodes in the order the graph lists them. */
QRT_API size_t qrt_graph_node_count(const qrt_graph* graph);
QRT_API qrt_status qrt_graph_node(const qrt_graph* graph, size_t index, qrt_node_info* out);
/* Writes the graph as .onnx or .json (by extension). */
QRT_API qrt_status qrt_graph_save(const qrt_graph* graph, const char* path);
/* The name of dimension `dim` of input/output `index` when it is symbolic ("batch"), ""
 * when it is static or unnamed. The string lives as long as the graph. */
QRT_API qrt_status qrt_graph_input_dim_symbol(const qrt_graph* graph, size_t index, int32_t dim, const char** out);
QRT_API qrt_status qrt_graph_output_dim_symbol(const qrt_graph* graph, size_t index, int32_t dim, const char** out);
/* Node `index`'s attributes as the text of one JSON object, as qrt's JSON format writes them
 * (docs/json-format.md): numbers, strings, lists; a tensor as {"tensor": {"dtype", "shape",
 * "data_base64"}}; a subgraph as {"graph": {...}}. Free *out with qrt_string_free. */
QRT_API qrt_status qrt_graph_node_attributes_json(const qrt_graph* graph, size_t index, char** out);
/* A deep copy: an owned graph that shares nothing with `graph`. */
QRT_API qrt_status qrt_graph_copy(const qrt_graph* graph, qrt_graph** out);
/* Strings qrt allocates for its caller. */
QRT_API void qrt_string_free(char* s);

/* ---- compile options --------------------------------------------------------------- */

typedef struct qrt_options qrt_options;

/* Defaults: passes "default", ISA "auto", 1 thread, no memory limit. */
QRT_API qrt_status qrt_options_create(qrt_options** out);
QRT_API void qrt_options_destroy(qrt_options* options);
/* "default", "none" or a comma-separated list of pass names (which may include
 * "default"). Unknown names fail at compile time. */
QRT_API qrt_status qrt_options_set_passes(qrt_options* options, const char* passes);
/* A ceiling: "scalar" (the reference kernels everywhere), "avx2", "avx2-vnni", "avx512",
 * "avx512-vnni" or "auto" (the best this CPU has). No kernel runs an instruction above it, and
 * only what this CPU has below it: qrt_model_isa tells the tier the model got. */
QRT_API qrt_status qrt_options_set_isa(qrt_options* options, const char* isa);
/* Intra-op threads, 1 to 256. */
QRT_API qrt_status qrt_options_set_threads(qrt_options* options, int threads);
/* Most bytes of activation memory a run may take; 0 means no limit. Compiling, or a
 * run whose input shapes need a larger plan, fails with QRT_RESOURCE_EXHAUSTED. */
QRT_API qrt_status qrt_options_set_memory_limit(qrt_options* options, uint64_t bytes);
/* Forces one way of computing the convolutions, by name ("auto", the default: qrt chooses;
 * "reference", "direct", "padded-rows", "patches", "pointwise-int8", "onednn-int8", ...: the
 * names qrt_model_kernel reports). A convolution of the algorithm's family (float or integer)
 * that it cannot compute exactly fails to compile; the other family ignores it. For tests and
 * measurements. */
QRT_API qrt_status qrt_options_set_conv_algorithm(qrt_options* options, const char* name);
/* Adds user-defined fusion patterns (docs/patterns.md) from a pattern file's JSON text;
 * `source` names it in errors (NULL: "<patterns>"). The text is parsed and checked now: a
 * malformed pattern fails here, naming the pattern. Patterns run after the passes (or before,
 * when the file says so), also when the passes are "none". */
QRT_API qrt_status qrt_options_add_patterns(qrt_options* options, const char* json_text, const char* source);
/* The same from a file. */
QRT_API qrt_status qrt_options_add_patterns_file(qrt_options* options, const char* path);

/* Runs the passes and user patterns of `options` (qrt_options_set_passes,
 * qrt_options_add_patterns) on a copy of `graph`; *out is the rewritten graph, which records
 * the passes' rewrites and explanations (qrt_graph_pass, qrt_graph_explanation). The graph is
 * validated after each pass. Nothing is planned or compiled. */
QRT_API qrt_status qrt_graph_apply_passes(const qrt_graph* graph, const qrt_options* options, qrt_graph** out);

/* ---- compiled models --------------------------------------------------------------- */

typedef struct qrt_model qrt_model;

/* Optimizes and plans a copy of `graph`; `options` may be NULL for the defaults. */
QRT_API qrt_status qrt_model_compile(const qrt_graph* graph, const qrt_options* options, qrt_model** out);
/* Load and compile in one step. */
QRT_API qrt_status qrt_model_load_file(const char* path, const qrt_options* options, qrt_model** out);
QRT_API qrt_status qrt_model_load_buffer(const void* data, size_t size, qrt_format format, const char* name,
                                         const qrt_options* options, qrt_model** out);
QRT_API void qrt_model_destroy(qrt_model* model);

/* The optimized graph, owned by the model (do not destroy it). */
QRT_API const qrt_graph* qrt_model_graph(const qrt_model* model);
/* The passes that ran, in order, with the number of rewrites each made. */
QRT_API size_t qrt_model_pass_count(const qrt_model* model);
QRT_API qrt_status qrt_model_pass(const qrt_model* model, size_t index, const char** name, int64_t* rewrites);
/* Why each pass rewrote its candidate nodes or left them: one entry per candidate (an anchor
 * node of a pattern) that a pattern rewrote, and per candidate refused in the pass's last
 * round, with the reason. Strings live as long as the model. */
typedef struct qrt_explanation {
  const char* pass;
  const char* pattern;
  const char* node;   /* the candidate's name (of the graph before the pass) */
  const char* op;     /* its op, "domain:op_type" outside ONNX's default domain */
  int rewritten;      /* 1: the pattern rewrote it; 0: it refused, see reason */
  const char* reason; /* "" when rewritten */
} qrt_explanation;
QRT_API size_t qrt_model_explanation_count(const qrt_model* model);
QRT_API qrt_status qrt_model_explanation(const qrt_model* model, size_t index, qrt_explanation* out);
/* The same for a graph made by qrt_graph_apply_passes (none for a loaded graph). */
QRT_API size_t qrt_graph_pass_count(const qrt_graph* graph);
QRT_API qrt_status qrt_graph_pass(const qrt_graph* graph, size_t index, const char** name, int64_t* rewrites);
QRT_API size_t qrt_graph_explanation_count(const qrt_graph* graph);
QRT_API qrt_status qrt_graph_explanation(const qrt_graph* graph, size_t index, qrt_explanation* out);
/* The explanations as `qrt inspect --explain` prints them: per pass and pattern, the
 * candidates rewritten and those refused, grouped by reason. Free *out with qrt_string_free. */
QRT_API qrt_status qrt_model_explain_text(const qrt_model* model, char** out);
QRT_API qrt_status qrt_graph_explain_text(const qrt_graph* graph, char** out);

/* One self-contained HTML page (no network) drawing `before` and `after` (usually a loaded
 * graph and its optimized form) side by side: fused nodes marked and linked to the nodes they
 * replaced, each node's op, shapes, dtypes and quantization parameters on hover. When
 * profile_count > 0, profile_nodes[i] (a node of `after`) took profile_us[i] microseconds per
 * run, drawn as its share of the total. Free *out with qrt_string_free. */
QRT_API qrt_status qrt_graph_to_html(const qrt_graph* before, const qrt_graph* after, const char* title,
                                     size_t profile_count, const char* const* profile_nodes, const double* profile_us,
                                     char** out);
/* What each step of the model's plan (for its declared input shapes) runs: the node and, where
 * an op chooses among ways of computing (a convolution's algorithm), that choice; "" otherwise.
 * No entries when an input shape is symbolic. Strings live as long as the model. */
typedef struct qrt_kernel_info {
  const char* node;
  const char* domain; /* "" for the ONNX default domain */
  const char* op;
  const char* note;
  const char* isa; /* the highest ISA tier of its kernels: "scalar", "avx2", "avx2-vnni", "avx512", "avx512-vnni" */
} qrt_kernel_info;
QRT_API size_t qrt_model_kernel_count(const qrt_model* model);
QRT_API qrt_status qrt_model_kernel(const qrt_model* model, size_t index, qrt_kernel_info* out);
/* The tier the kernels were chosen for: the highest tier at or below the ceiling this CPU has. */
QRT_API const char* qrt_model_isa(const qrt_model* model);
/* Writes the optimized graph as .onnx or .json; output shapes come from the plan
 * where the graph does not declare them. */
QRT_API qrt_status qrt_model_save(const qrt_model* model, const char* path);

/* ---- run contexts ------------------------------------------------------------------ */

typedef struct qrt_context qrt_context;

QRT_API qrt_status qrt_context_create(const qrt_model* model, qrt_context** out);
QRT_API void qrt_context_destroy(qrt_context* context);

/* Binds graph input `index` to the caller's buffer, without copying: it must keep its
 * contents until the last run that uses it returns. dtype must be the input's declared
 * dtype, dims must agree with its declared static dims; size_bytes must equal the
 * data's size. */
QRT_API qrt_status qrt_context_bind_input(qrt_context* context, size_t index, qrt_dtype dtype, int32_t rank,
                                          const int64_t* dims, const void* data, size_t size_bytes);
/* Like bind_input, but copies the data into the context (the buffer may be freed). */
QRT_API qrt_status qrt_context_set_input(qrt_context* context, size_t index, qrt_dtype dtype, int32_t rank,
                                         const int64_t* dims, const void* data, size_t size_bytes);
/* Makes runs write graph output `index` into the caller's buffer (checked against the
 * output's size at run time). Zero-copy when the buffer is 64-byte aligned and the
 * output is computed (not a constant or an input passed through); otherwise copied
 * there after the run. NULL data unbinds. */
QRT_API qrt_status qrt_context_bind_output(qrt_context* context, size_t index, void* data, size_t size_bytes);
/* Runs the model on the bound inputs. Every input must be bound. */
QRT_API qrt_status qrt_context_run(qrt_context* context);
/* Output `index` of the last successful run: in the bound buffer if there is one, else
 * in the context, valid until the next run or the context's destruction. */
QRT_API qrt_status qrt_context_output(const qrt_context* context, size_t index, qrt_tensor_view* out);
/* Bytes of activation memory the context's current plan uses (0 before a run when the
 * model's input shapes are symbolic). */
QRT_API uint64_t qrt_context_arena_bytes(const qrt_context* context);

/* Per-node timing. While enabled, every successful run adds each step's wall time to its
 * counter. A step is a node of the optimized graph that runs: nodes the planner evaluates
 * once at plan time (DequantizeLinear of constant weights, say) have no entry. Entries are in
 * execution order; there are none until the context has a plan (its first run). Enabling
 * (again) zeroes the counters; disabling keeps them; a new plan (other input shapes) zeroes
 * them. The strings live as long as the model (a context keeps its model alive). */
typedef struct qrt_profile_entry {
  const char* node_name;
  const char* domain; /* "" for the ONNX default domain */
  const char* op_type;
  uint64_t total_ns; /* summed over `runs` */
  uint64_t runs;
} qrt_profile_entry;
QRT_API qrt_status qrt_context_set_profiling(qrt_context* context, int enabled);
QRT_API size_t qrt_context_profile_count(const qrt_context* context);
QRT_API qrt_status qrt_context_profile_entry(const qrt_context* context, size_t index, qrt_profile_entry* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QRT_QRT_H_ */
