#include "ring/dat_input.h"

#include "ring/libtracecmd.h"
#include "util/escape.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

// Exported by libtracecmd.so.1 since trace-cmd 3.0 and declared only in its
// private header: how far the file was read (a buffer of ring-buffer pages
// is TRACECMD_FILE_CPU_FLYRECORD, 11; a latency tracer's text is 10, and
// has no per-CPU data for tracecmd_read_data to follow), the buffer's
// number of CPUs and the size of its ring-buffer pages.
extern "C" int tracecmd_get_file_state(tracecmd_input* handle);
extern "C" int tracecmd_cpus(tracecmd_input* handle);
extern "C" int tracecmd_page_size(tracecmd_input* handle);

namespace allocwatch {
namespace {

constexpr int kFileFlyrecord = 11;
// The kernel's sub-buffers are a power of two from one page (4 KiB; 64 KiB
// on some arm64) to buffer_subbuf_size_kb's largest.
constexpr int kMinPageSize = 1024;
constexpr int kMaxPageSize = 16 << 20;
// NR_CPUS is at most 8192: a file that claims more is forged.
constexpr int kMaxCpus = 8192;

// libtracecmd printf()s some findings ("File possibly truncated") to
// stdout: while one is alive, stdout is /dev/null and what C's stdio
// buffered in it is dropped there. allocwatch writes stdout through
// std::cout alone (not synced with stdio), which is not touched.
class StdoutAside {
public:
  StdoutAside() {
    std::fflush(stdout);
    saved_ = ::dup(STDOUT_FILENO);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0)
      ::dup2(null, STDOUT_FILENO);
    if (null >= 0)
      ::close(null);
  }
  ~StdoutAside() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      ::dup2(saved_, STDOUT_FILENO);
      ::close(saved_);
    }
  }
  StdoutAside(const StdoutAside&) = delete;
  StdoutAside& operator=(const StdoutAside&) = delete;

private:
  int saved_ = -1;
};

struct HandleCloser {
  void operator()(tracecmd_input* handle) const { tracecmd_close(handle); }
};
using Handle = std::unique_ptr<tracecmd_input, HandleCloser>;

struct RecordFreer {
  void operator()(tep_record* record) const { tracecmd_free_record(record); }
};
using RecordPtr = std::unique_ptr<tep_record, RecordFreer>;

// One buffer's CPUs, each with its next record read ahead.
// Its members go in reverse: the records before the handle.
struct Buffer {
  Handle handle; // an instance's; null for the top level (the file's own)
  tracecmd_input* input = nullptr;
  std::uint64_t page_size = 0;
  std::vector<RecordPtr> heads; // by CPU index; null: that CPU is done

  bool has_records() const {
    for (const RecordPtr& head : heads)
      if (head)
        return true;
    return false;
  }
};

std::string label(const std::string& buffer) {
  return buffer.empty() ? "the top-level buffer" : "instance " + escaped(buffer);
}

// The buffer's first record on each CPU; an error if it holds no ring
// buffer pages.
Result<Buffer> start_buffer(tracecmd_input* input, Handle owned, const std::string& file,
                            const std::string& name) {
  if (tracecmd_get_file_state(input) != kFileFlyrecord)
    return Error{file + ": " + label(name) +
                 " holds a latency tracer's text, not ring-buffer records: trace-cmd report "
                 "prints it"};
  const int cpus = tracecmd_cpus(input);
  if (cpus < 0 || cpus > kMaxCpus)
    return Error{file + ": " + label(name) + " claims " + std::to_string(cpus) +
                 " CPUs: a damaged or forged trace.dat"};
  // libtraceevent's kbuffer takes an event's length from its header
  // without a look at the page it is in: a forged length would point past
  // it (checked in DatInput::next()).
  const int page_size = tracecmd_page_size(input);
  if (page_size < kMinPageSize || page_size > kMaxPageSize || (page_size & (page_size - 1)) != 0)
    return Error{file + ": " + label(name) + " claims ring-buffer pages of " +
                 std::to_string(page_size) + " bytes: a damaged or forged trace.dat"};
  Buffer buffer;
  buffer.handle = std::move(owned);
  buffer.input = input;
  buffer.page_size = static_cast<std::uint64_t>(page_size);
  buffer.heads.resize(static_cast<std::size_t>(cpus));
  for (int cpu = 0; cpu < cpus; ++cpu)
    buffer.heads[static_cast<std::size_t>(cpu)].reset(tracecmd_read_data(input, cpu));
  return buffer;
}

// libtracecmd closes the descriptor it was given on some failures and not
// on others: a copy it still holds is closed here.
void close_if_open(int fd) {
  if (::fcntl(fd, F_GETFD) >= 0)
    ::close(fd);
}

// The ids of function_graph's two events in the file's formats; -1 where
// the file has no such format.
struct GraphIds {
  int entry = -1;
  int exit = -1;
};

GraphIds graph_ids(tep_handle* tep) {
  GraphIds ids;
  if (tep_event* entry = tep_find_event_by_name(tep, "ftrace", "funcgraph_entry"))
    ids.entry = entry->id;
  if (tep_event* exit = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit"))
    ids.exit = exit->id;
  return ids;
}

// How the child that reads a file first ends (_exit's status).
constexpr int kChildEvents = 0;  // read through, no function_graph record
constexpr int kChildRefused = 3; // the file is refused: the parent learns why itself
constexpr int kChildGraph = 10;  // read through, function_graph records in it

} // namespace

// Members go in reverse: the records before their buffer's handle, which
// goes before the file's.
struct DatInput::Impl {
  Handle file;
  Buffer buffer;
  RecordPtr current;
  DatEvent event;
};

bool is_dat_magic(std::string_view head) {
  return head.substr(0, kDatMagicSize) == std::string_view(kDatMagic, kDatMagicSize);
}

Result<std::unique_ptr<DatInput>> DatInput::open(int fd, const std::string& name,
                                                 const std::optional<std::string>& wanted) {
  const std::string file = escaped(name);
  tracecmd_set_loglevel(TEP_LOG_NONE);
  tep_set_loglevel(TEP_LOG_NONE);
  char head[kDatMagicSize] = {};
  if (::pread(fd, head, sizeof head, 0) != static_cast<ssize_t>(sizeof head) ||
      !is_dat_magic(std::string_view(head, sizeof head)))
    return Error{file + " is not a trace.dat: it does not start with trace-cmd's magic"};
  StdoutAside aside;
  // libtracecmd 3.1.6 and libtraceevent 1.7.1 crash on some damaged files:
  // a version 6 file cut inside an instance's CPU data makes
  // tracecmd_buffer_instance_handle() close a half-made handle; a page
  // whose header lies makes kbuffer read past it. So a child process opens
  // the file and reads every record of the buffer first, as the parent will
  // (the same calls on the same bytes come through again), and tells on the
  // way whether any is function_graph's. This reads the records twice.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = ::fork();
  if (child < 0)
    return Error{"cannot read " + file + ": fork: " + std::strerror(errno)};
  if (child == 0) {
    Result<std::unique_ptr<DatInput>> input = open_here(fd, file, wanted);
    if (!input)
      ::_exit(kChildRefused);
    const GraphIds ids = graph_ids((*input)->tep());
    bool graph = false;
    while (const DatEvent* e = (*input)->next()) {
      std::uint16_t id = 0;
      if (e->event.size >= sizeof id) {
        std::memcpy(&id, e->event.data, sizeof id);
        graph = graph || id == ids.entry || id == ids.exit;
      }
    }
    ::_exit(graph ? kChildGraph : kChildEvents);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR)
      return Error{"cannot read " + file + ": waitpid: " + std::strerror(errno)};
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != kChildEvents && code != kChildGraph && code != kChildRefused)
    return Error{file + ": libtracecmd crashed reading this trace.dat (" +
                 (WIFSIGNALED(status) ? std::string(strsignal(WTERMSIG(status)))
                                      : "exit status " + std::to_string(code)) +
                 "): a damaged or forged file"};
  Result<std::unique_ptr<DatInput>> input = open_here(fd, file, wanted);
  if (input)
    (*input)->graph_ = code == kChildGraph;
  return input;
}

Result<std::unique_ptr<DatInput>> DatInput::open_here(int fd, const std::string& file,
                                                      const std::optional<std::string>& wanted) {
  if (::lseek(fd, 0, SEEK_SET) < 0)
    return Error{"cannot read " + file + " as a trace.dat: " + std::strerror(errno)};
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0)
    return Error{"cannot read " + file + ": " + std::strerror(errno)};
  // No plugins: what a record prints comes from its format alone, and no
  // code is loaded from the plugin directories.
  Handle handle(tracecmd_open_fd(copy, TRACECMD_FL_LOAD_NO_PLUGINS));
  if (!handle) {
    close_if_open(copy);
    return Error{file +
                 " is a trace.dat that libtracecmd cannot read: a truncated or damaged file, "
                 "or a version or compression it does not know (trace-cmd dump --summary "
                 "tells more)"};
  }
  auto impl = std::make_unique<Impl>();
  const int instances = tracecmd_buffer_instances(handle.get());
  std::vector<std::string> names;
  for (int i = 0; i < instances; ++i) {
    const char* instance = tracecmd_buffer_instance_name(handle.get(), i);
    names.emplace_back(instance != nullptr ? instance : "");
  }
  auto open_instance = [&](int i) -> Result<Buffer> {
    tracecmd_input* input = tracecmd_buffer_instance_handle(handle.get(), i);
    if (input == nullptr)
      return Error{file + ": libtracecmd cannot read " + label(names[i]) +
                   ": a truncated or damaged file"};
    return start_buffer(input, Handle(input), file, names[i]);
  };

  std::string chosen;
  std::vector<std::string> others;
  if (wanted) {
    int found = -1;
    for (int i = 0; i < instances; ++i)
      if (names[static_cast<std::size_t>(i)] == *wanted)
        found = i;
    if (found < 0) {
      std::string list = "the top-level buffer";
      for (const std::string& instance : names)
        list += ", " + escaped(instance);
      return Error{file + " has no instance " + escaped(*wanted) + "; its buffers: " + list};
    }
    Result<Buffer> buffer = open_instance(found);
    if (!buffer)
      return buffer.error();
    impl->buffer = std::move(*buffer);
    chosen = *wanted;
  } else {
    Result<Buffer> top = start_buffer(handle.get(), nullptr, file, "");
    // A file may hold a latency trace at the top level and instances
    // beside it; with no instance, that is the file's one buffer.
    if (!top && instances == 0)
      return top.error();
    std::vector<int> with_records;
    std::vector<Buffer> buffers;
    for (int i = 0; i < instances; ++i) {
      Result<Buffer> buffer = open_instance(i);
      if (!buffer)
        return buffer.error();
      if (buffer->has_records())
        with_records.push_back(i);
      buffers.push_back(std::move(*buffer));
    }
    if (top && (top->has_records() || with_records.empty())) {
      impl->buffer = std::move(*top);
      for (int i : with_records)
        others.push_back(names[static_cast<std::size_t>(i)]);
    } else if (with_records.size() == 1) {
      impl->buffer = std::move(buffers[static_cast<std::size_t>(with_records[0])]);
      chosen = names[static_cast<std::size_t>(with_records[0])];
    } else if (with_records.empty()) {
      return top.error();
    } else {
      std::string list;
      for (int i : with_records)
        list += (list.empty() ? "" : ", ") + escaped(names[static_cast<std::size_t>(i)]);
      return Error{file + ": instances " + list +
                   " hold records and the top-level buffer none: pick one with --buffer NAME"};
    }
  }
  impl->file = std::move(handle);
  return std::unique_ptr<DatInput>(new DatInput(std::move(impl), chosen, std::move(others)));
}

DatInput::DatInput(std::unique_ptr<Impl> impl, std::string buffer, std::vector<std::string> others)
    : impl_(std::move(impl)), buffer_(std::move(buffer)), others_(std::move(others)) {}

DatInput::~DatInput() = default;

tep_handle* DatInput::tep() const {
  return tracecmd_get_tep(impl_->file.get());
}

std::string DatInput::describe() const {
  std::string text = "reading " + label(buffer_) + " of the trace.dat";
  if (!others_.empty()) {
    text += " (";
    for (std::size_t i = 0; i < others_.size(); ++i)
      text += (i == 0 ? "" : ", ") + label(others_[i]);
    text += (others_.size() == 1 ? " holds" : " hold") +
            std::string(" records too: --buffer NAME reads an instance)");
  }
  return text;
}

const DatEvent* DatInput::next() {
  Impl& impl = *impl_;
  impl.current.reset();
  std::vector<RecordPtr>& heads = impl.buffer.heads;
  std::size_t next = heads.size();
  for (std::size_t cpu = 0; cpu < heads.size(); ++cpu)
    if (heads[cpu] && (next == heads.size() || heads[cpu]->ts < heads[next]->ts))
      next = cpu;
  if (next == heads.size())
    return nullptr;
  impl.current = std::move(heads[next]);
  heads[next].reset(tracecmd_read_data(impl.buffer.input, static_cast<int>(next)));
  const tep_record& record = *impl.current;
  // Where the record starts in its page: libtracecmd numbers a CPU's pages
  // from an offset on a page boundary (in the file, or in its uncompressed
  // data), as trace-cmd writes them. A record that would end past its page
  // is given no bytes: the decoder makes it a Malformed record.
  const std::uint64_t in_page = record.offset % impl.buffer.page_size;
  const bool inside =
      record.size > 0 && in_page + static_cast<std::uint64_t>(record.size) <= impl.buffer.page_size;
  impl.event.event = RawEvent{record.cpu, record.ts, inside ? record.data : nullptr,
                              inside ? static_cast<std::uint32_t>(record.size) : 0};
  impl.event.missed = record.missed_events;
  return &impl.event;
}

} // namespace allocwatch
