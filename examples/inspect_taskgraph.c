/* inspect_taskgraph - read a Task IR file (.pb or .txt), check it, print its
   statistics and its blocks in data-flow order.

   cc -std=c99 -O2 -I. examples/inspect_taskgraph.c -o inspect_taskgraph -lm
   ./inspect_taskgraph ../shared/fixtures/cc.task.pb */
#define TASKIR_IMPLEMENTATION
#include "taskir_proto.h"
#include <stdio.h>

int main(int argc, char **argv) {
  ti_context *ctx;
  ti_task_graph g;
  ti_diag_list diags;
  ti_task_stats st;
  ti_program *p = NULL;
  ti_op **order = NULL;
  ti_error err;
  int64_t n = 0, i;
  int rc = 1;
  if (argc != 2) { fprintf(stderr, "usage: %s FILE.pb|FILE.txt\n", argv[0]); return 2; }
  ti_error_clear(&err);
  ctx = ti_context_create(NULL);
  ti_task_graph_init(&g, NULL);
  ti_diag_list_init(&diags, NULL);
  if (!ctx || ti_task_read_file(argv[1], &g, &err) != TI_STATUS_SUCCESS) goto done;
  if (ti_task_check(&g, &diags, &err) != TI_STATUS_SUCCESS && !diags.n_errors) goto done;   /* lists every problem */
  for (i = 0; i < diags.n; i++) printf("%s: %s\n", diags.items[i].rule, diags.items[i].message);
  if (diags.n_errors) goto done;
  if (ti_task_statistics(&g, &st, 0, &err) != TI_STATUS_SUCCESS) goto done;
  printf("%d blocks, %d edges, %lld parameters, %lld MACs\n", (int)g.n_blocks, (int)g.n_edges,
         (long long)st.params, (long long)st.macs);
  if (ti_task_import(ctx, &g, &p, &err) != TI_STATUS_SUCCESS) goto done;   /* the task dialect */
  if (ti_walk_topo(p, &order, &n, &err) != TI_STATUS_SUCCESS) goto done;
  for (i = 0; i < n; i++) {
    const ti_task_block *b = ti_task_block_of(order[i]);
    if (b) printf("  block %d %s\n", (int)b->id, ti_block_type_name(b->type));
  }
  rc = 0;
done:
  if (rc) fprintf(stderr, "%s: %s\n", argv[1], err.message[0] ? err.message : "the checker found errors");
  ti_ops_free(p ? p : NULL, order);
  ti_program_destroy(p);
  ti_diag_list_free(&diags);
  ti_task_graph_free(&g);
  ti_context_destroy(ctx);
  return rc;
}
