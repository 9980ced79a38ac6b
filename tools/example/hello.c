/* qrt_hello_c: load a model with the C API and describe it. */
#include <qrt/qrt.h>
#include <stdio.h>

int main(int argc, char** argv) {
  qrt_model* model = NULL;
  size_t i;
  const qrt_graph* graph;
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  if (qrt_model_load_file(argv[1], NULL, &model) != QRT_OK) {
    fprintf(stderr, "error: %s\n", qrt_last_error());
    return 1;
  }
  graph = qrt_model_graph(model);
  printf("qrt %s: %zu nodes after passes\n", qrt_version_string(), qrt_graph_node_count(graph));
  for (i = 0; i < qrt_graph_input_count(graph); ++i) {
    qrt_value_info v;
    qrt_graph_input(graph, i, &v);
    printf("input %s: %s, rank %d\n", v.name, qrt_dtype_name(v.dtype), (int)v.rank);
  }
  qrt_model_destroy(model);
  return 0;
}
