// memstress: memory pressure for allocwatch's VM test (make e2e).
//
//   memstress DATA_DIR SECONDS [CULPRIT_DIR BYSTANDER_DIR QUIET_DIR]
//
// Without swap only page cache and slab caches are reclaimable, so the load
// makes every kind of stall allocwatch is meant to explain, all at once:
//   - readers stream DATA_DIR/big* through the page cache (more than RAM),
//   - two anonymous hogs grow in bursts, side by side, to most of the
//     memory and punch every other page out of what they hold, which
//     fragments free memory; two, so that they allocate faster than kswapd
//     frees even where it is quick (MGLRU), and someone reclaims directly,
//   - a THP faulter asks for order-9 pages in MADV_HUGEPAGE regions, which
//     over fragmented memory means direct compaction,
//   - a compactor asks the kernel to compact all memory every 4 s
//     (/proc/sys/vm/compact_memory), so that compact_zone runs with its
//     tracepoints on every kernel even when no THP fault has to compact,
//   - a tree walker stats DATA_DIR/tree and creates and removes small files,
//     so dentry and inode caches grow and super_cache_scan has work,
//   - with the three cgroup v2 directories, three tasks that each start in
//     their own (memcg reclaim; which container stalled, whose limit):
//       culprit    holds 8 MiB of anonymous memory, which no reclaim can
//                  take without swap, so that its pod's 16 MiB fill with
//                  page cache at once and global reclaim cannot keep them
//                  from its limit, while half stays page cache that the
//                  pod's own reclaim can take (7.2 reads ahead in large
//                  folios, megabytes under read at once: with 6 MiB of
//                  room the pod once had none to take and OOM-killed the
//                  culprit); and streams the first half of
//                  DATA_DIR/memcg0 as fast as it can, for the first 3/4 of
//                  SECONDS only, then exits: a culprit gone before the run
//                  ends;
//       bystander  streams the second half at 1 MiB per 500 ms at most, so
//                  that it reclaims its group too, but stalls far less;
//       quiet      sleeps: a cgroup with a task in it and no stall.
//     Halves of a file of their own, since page cache stays charged to
//     whoever read it first: each reclaims its own group (or the ancestor
//     whose limit its group is under).
// Direct reclaim comes from whoever allocates when kswapd falls behind.
// Each worker is born with its name and cgroup (spawn_worker): a stall of a
// task still under its parent's name or cgroup would be printed and counted
// as the parent's by the run, and as the worker's by a replay of its save.
// It prints each worker's pid and the cgroup directory it put it in
// ("memstress: worker NAME pid N cgroup DIR|-"), and when each of the cgroup
// workers ended ("memstress: worker NAME pid N ended after S.S s"); at the
// end, the /proc/vmstat counters that prove the pressure.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

#define MIB (1024UL * 1024UL)
#define HUGE_PAGE (2 * MIB)

static const char* data_dir;
static struct timespec started, deadline;
static long page_size;

static void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "memstress: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, ": %s\n", strerror(errno));
  va_end(ap);
  exit(1);
}

static int time_left(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec < deadline.tv_sec ||
         (now.tv_sec == deadline.tv_sec && now.tv_nsec < deadline.tv_nsec);
}

// Value of a "Name: N kB" line of /proc/meminfo, in bytes.
static unsigned long meminfo_bytes(const char* name) {
  FILE* f = fopen("/proc/meminfo", "r");
  if (!f)
    die("/proc/meminfo");
  char line[256];
  size_t len = strlen(name);
  unsigned long kb = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, name, len) == 0 && line[len] == ':')
      kb = strtoul(line + len + 1, NULL, 10);
  fclose(f);
  return kb * 1024;
}

// Reads PREFIX0, PREFIX1, ... PREFIX<nfiles-1> in DATA_DIR, starting at the
// file `first` and cycling until the time is up.
static void read_files(const char* prefix, int nfiles, int first) {
  char* buf = malloc(MIB);
  if (!buf)
    die("malloc");
  char path[4096];
  for (int round = first; time_left(); round++) {
    snprintf(path, sizeof path, "%s/%s%d", data_dir, prefix, round % nfiles);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
      die("open %s", path);
    while (time_left()) {
      ssize_t n = read(fd, buf, MIB);
      if (n < 0)
        die("read %s", path);
      if (n == 0)
        break;
    }
    close(fd);
  }
}

// Reads DATA_DIR/`name` from `offset` for `length` bytes, over and over until
// the time is up, pausing `pause_us` after each MiB.
static void read_range(const char* name, off_t offset, off_t length, useconds_t pause_us) {
  char* buf = malloc(MIB);
  if (!buf)
    die("malloc");
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", data_dir, name);
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    die("open %s", path);
  for (off_t at = 0; time_left(); at = (at + MIB) % length) {
    if (pread(fd, buf, MIB, offset + at) < 0)
      die("read %s", path);
    if (pause_us)
      usleep(pause_us);
  }
  close(fd);
}

// Faults in `bytes` of anonymous memory and keeps it.
static void hold_anon(size_t bytes) {
  char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    die("mmap");
  for (size_t off = 0; off < bytes; off += page_size)
    p[off] = 1;
}

static double seconds_since(const struct timespec* t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

// Grows to `target` bytes of anonymous memory in a burst, then frees every
// other page of what it holds, then drops what the previous round left:
//   - each burst takes back, faster than kswapd frees it, the memory the
//     readers filled with page cache meanwhile: direct reclaim;
//   - the punched pages stay behind for a round, one in two, so nearly every
//     2 MiB block holds an anonymous page: huge pages need compaction.
static void hog_anon(unsigned long target) {
  const size_t chunk_size = 8 * MIB;
  enum { MAX_CHUNKS = 512 };
  static char *full[MAX_CHUNKS], *punched[MAX_CHUNKS];
  int nfull = 0, npunched = 0;
  while (time_left()) {
    unsigned long used = (unsigned long)npunched * chunk_size / 2;
    while (used + chunk_size <= target && nfull < MAX_CHUNKS && time_left()) {
      char* p = mmap(NULL, chunk_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        die("mmap");
      // Small pages only: the hog's job is to fragment, not to take THPs.
      madvise(p, chunk_size, MADV_NOHUGEPAGE);
      // Faulted in one go in the kernel where it can be (5.14+), the
      // fastest way to allocate; touched page by page elsewhere.
      if (madvise(p, chunk_size, MADV_POPULATE_WRITE) != 0)
        for (size_t off = 0; off < chunk_size; off += page_size)
          p[off] = (char)off | 1;
      full[nfull++] = p;
      used += chunk_size;
    }
    for (int i = 0; i < npunched; i++)
      munmap(punched[i], chunk_size);
    for (int i = 0; i < nfull; i++)
      for (size_t off = 0; off < chunk_size; off += 2 * page_size)
        madvise(full[i] + off, page_size, MADV_DONTNEED);
    memcpy(punched, full, nfull * sizeof full[0]);
    npunched = nfull;
    nfull = 0;
    // Let the readers refill the holes with page cache before the next burst.
    usleep(300 * 1000);
  }
}

// Faults order-9 pages in MADV_HUGEPAGE regions; with defrag=madvise each
// fault that finds no free 2 MiB block compacts (or reclaims) directly. Each
// region is freed only after the next one is faulted, and a pause lets the
// readers' page cache scatter over the freed blocks: otherwise the faulter
// would mostly get back the huge pages it just freed, and not compact.
static void fault_huge_pages(void) {
  const size_t region = 8 * HUGE_PAGE;
  char* previous = NULL;
  while (time_left()) {
    char* raw =
        mmap(NULL, region + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
      die("mmap");
    char* p = (char*)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (madvise(p, region, MADV_HUGEPAGE) != 0)
      die("madvise(MADV_HUGEPAGE)");
    for (size_t off = 0; off < region; off += HUGE_PAGE)
      p[off] = 1;
    if (previous)
      munmap(previous, region + HUGE_PAGE);
    previous = raw;
    usleep(50 * 1000);
  }
}

static void compact_memory(void) {
  while (time_left()) {
    sleep(4);
    int fd = open("/proc/sys/vm/compact_memory", O_WRONLY);
    if (fd < 0)
      die("open /proc/sys/vm/compact_memory");
    if (write(fd, "1", 1) != 1)
      die("write /proc/sys/vm/compact_memory");
    close(fd);
  }
}

static void stat_tree(const char* dir) {
  DIR* d = opendir(dir);
  if (!d)
    die("opendir %s", dir);
  struct dirent* e;
  char path[4096];
  while ((e = readdir(d)) && time_left()) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st) != 0)
      die("stat %s", path);
    if (S_ISDIR(st.st_mode))
      stat_tree(path);
  }
  closedir(d);
}

// Dentries and inodes: stat the prepared tree, then create and remove a
// batch of small files so the caches also see fresh objects.
static void walk_tree(void) {
  char tree[1024], scratch[1024], path[4096];
  snprintf(tree, sizeof tree, "%s/tree", data_dir);
  snprintf(scratch, sizeof scratch, "%s/scratch.%d", data_dir, getpid());
  if (mkdir(scratch, 0755) != 0 && errno != EEXIST)
    die("mkdir %s", scratch);
  enum { BATCH = 500 };
  while (time_left()) {
    stat_tree(tree);
    for (int i = 0; i < BATCH && time_left(); i++) {
      snprintf(path, sizeof path, "%s/f%d", scratch, i);
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0)
        die("create %s", path);
      if (write(fd, "x", 1) != 1)
        die("write %s", path);
      close(fd);
    }
    for (int i = 0; i < BATCH; i++) {
      snprintf(path, sizeof path, "%s/f%d", scratch, i);
      unlink(path);
    }
  }
}

static const char* const counters[] = {
    "pgscan_direct",       "pgscan_kswapd",      "allocstall_dma32",
    "allocstall_normal",   "allocstall_movable", "compact_stall",
    "compact_fail",        "compact_success",    "compact_migrate_scanned",
    "compact_daemon_wake", "thp_fault_alloc",    "thp_fault_fallback",
    "slabs_scanned",       "oom_kill",
};
enum { NCOUNTERS = sizeof counters / sizeof counters[0] };

static void read_vmstat(unsigned long long values[NCOUNTERS]) {
  FILE* f = fopen("/proc/vmstat", "r");
  if (!f)
    die("/proc/vmstat");
  char name[128];
  unsigned long long v;
  memset(values, 0, NCOUNTERS * sizeof values[0]);
  while (fscanf(f, "%127s %llu", name, &v) == 2)
    for (int i = 0; i < NCOUNTERS; i++)
      if (strcmp(name, counters[i]) == 0)
        values[i] = v;
  fclose(f);
}

// The workers, in the order they start. Names that survive the trace's
// 7-character comm column.
enum { CULPRIT, BYSTANDER, QUIET, READER0, READER1, HOG0, HOG1, THP, COMPACTOR, TREE, NWORKERS };
static const char* const names[NWORKERS] = {"culprit", "bystand", "quiet",  "reader0", "reader1",
                                            "anonhg0", "anonhg1", "thpflt", "compact", "treewlk"};

// Worker `role`'s job, until the deadline; `hog`: each anonymous hog's size.
static void run_worker(int role, unsigned long hog) {
  // If memory runs out after all, the load dies, not the tracer.
  int fd = open("/proc/self/oom_score_adj", O_WRONLY);
  if (fd >= 0) {
    if (write(fd, "1000", 4) != 4)
      die("oom_score_adj");
    close(fd);
  }
  // The memcg0 halves of the culprit and the bystander.
  const off_t half = 96 * MIB;
  switch (role) {
  case CULPRIT:
    hold_anon(8 * MIB);
    read_range("memcg0", 0, half, 0);
    break;
  case BYSTANDER:
    read_range("memcg0", half, half, 500 * 1000);
    break;
  case QUIET:
    while (time_left())
      usleep(100 * 1000);
    break;
  case READER0:
  case READER1:
    // big0 and big1, each reader starting at its own.
    read_files("big", 2, role - READER0);
    break;
  case HOG0:
  case HOG1:
    hog_anon(hog / 2);
    break;
  case THP:
    fault_huge_pages();
    break;
  case COMPACTOR:
    compact_memory();
    break;
  case TREE:
    walk_tree();
    break;
  }
}

// What a worker runs first, on its own stack in its parent's memory, while
// the parent waits: its name, then this program again through `path`, a link
// whose name the kernel gives it again. Nothing here faults a page in, so
// nothing allocates before the name is set.
struct Spawn {
  const char* path;
  char* const* argv;
  const char* name;
};
__attribute__((noreturn)) static void spawned(struct Spawn* spawn) {
  prctl(PR_SET_NAME, spawn->name);
  execve(spawn->path, spawn->argv, environ);
  _exit(127);
}

// Starts worker `name` (PATH with ARGV) in cgroup directory `cgroup` (NULL:
// this one) and returns its pid. It is born there (clone3's
// CLONE_INTO_CGROUP) and shares this process's memory until it has named
// itself and executed (CLONE_VM | CLONE_VFORK), so that no page it faults
// in, and no allocation of its own, comes before its name and cgroup are
// its own.
static pid_t spawn_worker(const char* path, char* const* argv, const char* name,
                          const char* cgroup) {
  enum { STACK = 64 * 1024 };
  static char* stack;
  if (!stack) {
    stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED)
      die("mmap");
    memset(stack, 0, STACK); // faulted in here, not in the worker
  }
  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.flags = CLONE_VM | CLONE_VFORK;
  args.exit_signal = SIGCHLD;
  args.stack = (uint64_t)(uintptr_t)stack;
  args.stack_size = STACK;
  int cgroup_fd = -1;
  if (cgroup) {
    cgroup_fd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cgroup_fd < 0)
      die("open %s", cgroup);
    args.flags |= CLONE_INTO_CGROUP;
    args.cgroup = (uint64_t)cgroup_fd;
  }
  struct Spawn spawn = {path, argv, name};
  // A signal's handler would run in the worker on this process's memory:
  // none is taken until the worker has executed (it unblocks them).
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
#if defined(__x86_64__)
  // The child starts on `stack` with the registers as they were: it calls
  // spawned(&spawn), which never returns.
  long pid;
  register struct Spawn* spawn_arg __asm__("r12") = &spawn;
  register void (*entry)(struct Spawn*) __asm__("r13") = spawned;
  __asm__ volatile("syscall\n\t"
                   "test %%rax, %%rax\n\t"
                   "jnz 1f\n\t"
                   "mov %%r12, %%rdi\n\t"
                   "call *%%r13\n\t"
                   "ud2\n"
                   "1:"
                   : "=a"(pid)
                   : "0"((long)SYS_clone3), "D"(&args), "S"(sizeof args), "r"(spawn_arg), "r"(entry)
                   : "rcx", "r11", "memory");
#else
#error "spawn_worker: clone3's child entry is written for x86-64 only"
#endif
  const int saved = (int)-pid;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (cgroup_fd >= 0)
    close(cgroup_fd);
  if (pid < 0) {
    errno = saved;
    die("clone3 %s", name);
  }
  return (pid_t)pid;
}

int main(int argc, char** argv) {
  // A worker: memstress --worker ROLE DATA_DIR DEADLINE_NS HOG_BYTES, its
  // deadline in CLOCK_MONOTONIC nanoseconds (spawn_worker runs it).
  if (argc == 6 && strcmp(argv[1], "--worker") == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    const int role = atoi(argv[2]);
    data_dir = argv[3];
    const long long deadline_ns = atoll(argv[4]);
    deadline.tv_sec = (time_t)(deadline_ns / 1000000000LL);
    deadline.tv_nsec = (long)(deadline_ns % 1000000000LL);
    page_size = sysconf(_SC_PAGESIZE);
    if (role < 0 || role >= NWORKERS) {
      fprintf(stderr, "memstress: no worker %s\n", argv[2]);
      return 2;
    }
    run_worker(role, strtoul(argv[5], NULL, 10));
    return 0;
  }
  if (argc != 3 && argc != 6) {
    fprintf(stderr, "usage: memstress DATA_DIR SECONDS [CULPRIT_DIR BYSTANDER_DIR QUIET_DIR]\n");
    return 2;
  }
  data_dir = argv[1];
  int seconds = atoi(argv[2]);
  page_size = sysconf(_SC_PAGESIZE);
  clock_gettime(CLOCK_MONOTONIC, &started);
  deadline = started;
  deadline.tv_sec += seconds;

  // Leave room for the kernel, the initramfs and the tracer; the rest is the
  // hogs', so that page cache is all that is left to reclaim.
  unsigned long available = meminfo_bytes("MemAvailable");
  unsigned long hog = available / 100 * 70;
  printf("memstress: %lu MiB available, hogs %lu MiB, %d s\n", available / MIB, hog / MIB, seconds);
  fflush(stdout);

  unsigned long long before[NCOUNTERS], after[NCOUNTERS];
  read_vmstat(before);

  // The cgroup workers first, so that each is in its cgroup before the
  // pressure builds.
  const char* cgroups[NWORKERS] = {0};
  const int first = argc == 6 ? CULPRIT : READER0;
  if (argc == 6)
    for (int i = CULPRIT; i <= QUIET; i++)
      cgroups[i] = argv[3 + i];
  // Each worker is this program again, run through a link named after it.
  char self[4096], links[4096], link[4096 + 64], deadline_ns[32], hog_bytes[32];
  const ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (self_len < 0)
    die("readlink /proc/self/exe");
  self[self_len] = '\0';
  snprintf(links, sizeof links, "%s/.memstress-workers", data_dir);
  if (mkdir(links, 0755) != 0 && errno != EEXIST)
    die("mkdir %s", links);
  snprintf(hog_bytes, sizeof hog_bytes, "%lu", hog);
  pid_t pids[NWORKERS];
  for (int i = first; i < NWORKERS; i++) {
    // The culprit stops after 3/4 of the time: a culprit gone before the
    // run ends.
    const long long until = (long long)started.tv_sec * 1000000000LL + started.tv_nsec +
                            (i == CULPRIT ? seconds * 3 / 4 : seconds) * 1000000000LL;
    snprintf(deadline_ns, sizeof deadline_ns, "%lld", until);
    snprintf(link, sizeof link, "%s/%s", links, names[i]);
    if (unlink(link) != 0 && errno != ENOENT)
      die("unlink %s", link);
    if (symlink(self, link) != 0)
      die("symlink %s", link);
    char role[8];
    snprintf(role, sizeof role, "%d", i);
    char* const worker_argv[] = {(char*)names[i], "--worker", role, (char*)data_dir,
                                 deadline_ns,     hog_bytes,  NULL};
    pids[i] = spawn_worker(link, worker_argv, names[i], cgroups[i]);
    printf("memstress: worker %s pid %d cgroup %s\n", names[i], (int)pids[i],
           cgroups[i] ? cgroups[i] : "-");
  }
  fflush(stdout);
  // Reaped as they end, so that a worker that ends early is gone from /proc
  // from then on.
  int failed = 0;
  for (int left = NWORKERS - first; left > 0; left--) {
    int status;
    pid_t pid = wait(&status);
    if (pid < 0)
      die("wait");
    int i = first;
    while (i < NWORKERS && pids[i] != pid)
      i++;
    if (i == NWORKERS)
      continue;
    if (cgroups[i]) {
      printf("memstress: worker %s pid %d ended after %.1f s\n", names[i], (int)pid,
             seconds_since(&started));
      fflush(stdout);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "memstress: worker %s ended with status 0x%x\n", names[i], status);
      failed = 1;
    }
  }
  read_vmstat(after);
  for (int i = 0; i < NCOUNTERS; i++)
    printf("memstress: %s %llu\n", counters[i], after[i] - before[i]);
  return failed;
}
