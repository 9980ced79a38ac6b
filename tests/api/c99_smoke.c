/* Compiled as strict C99: qrt.h must be plain C. Runs a model and compares its first
 * output with an expected tensor byte for byte. Returns 0 on success, else the step
 * that failed (and prints qrt_last_error()). */
#include <stdio.h>
#include <string.h>

#include "qrt/qrt.h"

int qrt_c99_smoke(const char* model_path, const char* input_path, const char* output_path);

static int Check(qrt_status s, int step) {
  if (s != QRT_OK) fprintf(stderr, "step %d: %s: %s\n", step, qrt_status_name(s), qrt_last_error());
  return s == QRT_OK ? 0 : step;
}

int qrt_c99_smoke(const char* model_path, const char* input_path, const char* output_path) {
  qrt_model* model = NULL;
  qrt_context* ctx = NULL;
  qrt_tensor* input = NULL;
  qrt_tensor* expected = NULL;
  qrt_tensor_view in, want, got;
  int rc = Check(qrt_model_load_file(model_path, NULL, &model), 1);
  if (!rc) rc = Check(qrt_tensor_read_file(input_path, &input), 2);
  if (!rc) rc = Check(qrt_tensor_read_file(output_path, &expected), 3);
  if (!rc) rc = Check(qrt_context_create(model, &ctx), 4);
  if (!rc) {
    in = qrt_tensor_get_view(input);
    rc = Check(qrt_context_bind_input(ctx, 0, in.dtype, in.rank, in.dims, in.data, in.size_bytes), 5);
  }
  if (!rc) rc = Check(qrt_context_run(ctx), 6);
  if (!rc) rc = Check(qrt_context_output(ctx, 0, &got), 7);
  if (!rc) {
    want = qrt_tensor_get_view(expected);
    if (got.size_bytes != want.size_bytes || memcmp(got.data, want.data, got.size_bytes) != 0) rc = 8;
  }
  qrt_context_destroy(ctx);
  qrt_tensor_destroy(expected);
  qrt_tensor_destroy(input);
  qrt_model_destroy(model);
  return rc;
}
