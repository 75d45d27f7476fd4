/* kshark-records: a trace.dat as KernelShark's library (libkshark) loads
 * it, for the tests to set beside trace-cmd report's reading: an
 * independent reader, none of allocwatch's code.
 *
 *   kshark-records FILE
 *
 * It reads the top-level buffer, which is where a raw run's --save puts
 * the pages. Prints "records N missed M" (M: the entries that stand for
 * events the kernel lost), then one line per record in libkshark's
 * order: "TS_NS CPU PID SYSTEM/EVENT". Exit 1, with a message on stderr, if
 * libkshark cannot open the file or loads no entry from it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h> /* libkshark.h uses ssize_t without it */

/* Its function types return "const int". */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-qualifiers"
#include <libkshark.h>
#pragma GCC diagnostic pop

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: kshark-records FILE\n");
    return 2;
  }
  struct kshark_context* ctx = NULL;
  if (!kshark_instance(&ctx)) {
    fprintf(stderr, "kshark-records: cannot make a KernelShark session\n");
    return 1;
  }
  const int sd = kshark_open(ctx, argv[1]);
  if (sd < 0) {
    fprintf(stderr, "kshark-records: KernelShark cannot open %s (%d)\n", argv[1], sd);
    kshark_free(ctx);
    return 1;
  }
  struct kshark_entry** rows = NULL;
  const ssize_t n = kshark_load_entries(ctx, sd, &rows);
  if (n < 1) {
    fprintf(stderr, "kshark-records: KernelShark loads no entry from %s\n", argv[1]);
    kshark_close(ctx, sd);
    kshark_free(ctx);
    return 1;
  }
  ssize_t missed = 0;
  for (ssize_t i = 0; i < n; ++i)
    missed += rows[i]->event_id < 0;
  printf("records %zd missed %zd\n", n - missed, missed);
  for (ssize_t i = 0; i < n; ++i) {
    if (rows[i]->event_id >= 0) {
      char* name = kshark_get_event_name(rows[i]);
      printf("%lld %d %d %s\n", (long long)rows[i]->ts, rows[i]->cpu, rows[i]->pid,
             name != NULL ? name : "?");
      free(name);
    }
    free(rows[i]);
  }
  free(rows);
  kshark_close(ctx, sd);
  kshark_free(ctx);
  return 0;
}
