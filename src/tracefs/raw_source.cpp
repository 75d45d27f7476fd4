#include "tracefs/raw_source.h"

#include "ring/header_page.h"
#include "ring/libtracefs.h"
#include "tracefs/files.h"
#include "tracefs/saved_comms.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <ostream>
#include <sys/epoll.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kStatsInterval = std::chrono::seconds(1);
constexpr auto kCommsInterval = std::chrono::seconds(1);
// A pid new to the run reads saved_cmdlines again, but not more often.
constexpr auto kUnknownCommInterval = std::chrono::milliseconds(100);
// After a read that found records, the reader sleeps this long (more than
// the merge's slack) and reads every CPU again: if they are all empty, the
// quiet rule gives out everything read, so that records do not wait for
// the next wake-up (up to kPollInterval): a short-lived task must still be
// there when its stall is attributed to its cgroup.
constexpr auto kSettle = std::chrono::milliseconds(2);

// /proc/PID/comm as the kernel's tracing names the task (task_comm_of);
// empty when the task is gone.
std::string proc_comm(std::int32_t pid) {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/comm", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  char comm[64];
  const ssize_t got = ::read(fd, comm, sizeof comm);
  ::close(fd);
  return got <= 0 ? std::string()
                  : std::string(task_comm_of({comm, static_cast<std::size_t>(got)}));
}

std::string cpu_file(int cpu, const char* name) {
  return "per_cpu/cpu" + std::to_string(cpu) + "/" + name;
}

// The traced buffer's sub-buffer size, from its own events/header_page (an
// instance may have its own, 6.8+), else the tep's, else the page size.
std::size_t subbuffer_size(tracefs_instance* instance, tep_handle* tep) {
  if (Result<std::string> text = read_tracefs_file(instance, "events/header_page"); text)
    if (Result<HeaderPageField> data = header_page_field(*text, "data"); data)
      if (const std::size_t size = data->offset + data->size; size >= 64 && size <= (1u << 20))
        return size;
  const int size = tep_get_sub_buffer_size(tep);
  return size > 0 ? static_cast<std::size_t>(size) : static_cast<std::size_t>(::getpagesize());
}

CpuStats read_stats(tracefs_instance* instance, int cpu) {
  Result<std::string> text = read_tracefs_file(instance, cpu_file(cpu, "stats"));
  return text ? parse_cpu_stats(*text) : CpuStats{};
}

} // namespace

Result<std::unique_ptr<RawSource>> RawSource::open(LocalEvents events, Options options) {
  tep_handle* tep = events.tep.get();
  if (tep == nullptr)
    return Error{"no event formats"};
  tracefs_instance* instance = options.instance;
  const std::size_t page_size = subbuffer_size(instance, tep);

  // Every possible CPU has a per_cpu directory; an offline one stays empty.
  std::vector<Cpu> cpus;
  auto close_all = [&cpus] {
    for (Cpu& cpu : cpus)
      tracefs_cpu_close(cpu.tcpu);
  };
  const int possible = ::get_nprocs_conf();
  for (int number = 0; number < possible; ++number) {
    const std::string path = cpu_file(number, "trace_pipe_raw");
    const int fd =
        tracefs_instance_file_open(instance, path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT)
        continue;
      const int err = errno;
      close_all();
      return tracefs_error("open", instance, path, err);
    }
    tracefs_cpu* tcpu = tracefs_cpu_alloc_fd(fd, static_cast<int>(page_size), true);
    if (tcpu == nullptr) {
      const int err = errno;
      ::close(fd);
      close_all();
      return Error{"cannot read " + tracefs_path(instance, path) + ": " + std::strerror(err)};
    }
    cpus.push_back(Cpu{number, tcpu, fd, read_stats(instance, number), 0});
  }
  if (cpus.empty()) {
    return Error{"no per_cpu/cpuN/trace_pipe_raw in " + tracefs_path(instance, "per_cpu")};
  }

  std::unique_ptr<RawSource> source(new RawSource(std::move(events), std::move(options), page_size,
                                                  static_cast<int>(cpus.size())));
  source->cpus_ = std::move(cpus);
  source->epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (source->epoll_fd_ < 0)
    return Error{std::string("cannot wait on trace_pipe_raw: ") + std::strerror(errno)};
  for (std::size_t slot = 0; slot < source->cpus_.size(); ++slot) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = slot;
    if (::epoll_ctl(source->epoll_fd_, EPOLL_CTL_ADD, source->cpus_[slot].fd, &event) != 0)
      return Error{std::string("cannot wait on trace_pipe_raw: ") + std::strerror(errno)};
  }
  if (Result<std::string> overwrite = read_tracefs_file(instance, "options/overwrite"); overwrite)
    source->overwrite_ = trimmed(*overwrite) != "0";
  return source;
}

RawSource::RawSource(LocalEvents events, Options options, std::size_t page_size, int cpus)
    : events_(std::move(events)), tep_(events_.tep.get()), options_(std::move(options)),
      decoder_(tep_, options_.style, options_.return_time, events_.formats.get()),
      merge_(cpus, page_size, options_.merge), last_push_(Clock::now()), last_stats_(last_push_),
      last_comms_() {
  // The tep's comms were read from it: the first refresh hands on what changed since.
  saved_cmdlines_ = std::move(events_.saved_cmdlines);
}

RawSource::~RawSource() {
  close();
}

void RawSource::close() {
  for (Cpu& cpu : cpus_)
    tracefs_cpu_close(cpu.tcpu); // closes its descriptor
  cpus_.clear();
  if (epoll_fd_ >= 0)
    ::close(epoll_fd_);
  epoll_fd_ = -1;
  closed_ = true;
}

RawSource::ReadEnd RawSource::read_cpu(std::size_t slot) {
  ReadEnd end = ReadEnd::Empty;
  for (int turn = 0; turn < kPagesPerTurn;) {
    std::byte* page = merge_.buffer();
    const int got = tracefs_cpu_read(cpus_[slot].tcpu, page, true);
    if (got > 0) {
      const std::size_t size = merge_.page_size();
      if (static_cast<std::size_t>(got) < size)
        std::memset(page + got, 0, size - static_cast<std::size_t>(got));
      if (options_.pages != nullptr) // as read: the merge may cut a lying header
        options_.pages->add_page(cpus_[slot].number, page, size);
      const std::size_t data = merge_.push(static_cast<int>(slot), static_cast<std::size_t>(got));
      if (data < size / 2)
        return ReadEnd::CaughtUp;
      end = ReadEnd::Behind;
      ++turn;
      continue;
    }
    if (got == 0 || errno == EAGAIN || errno == EWOULDBLOCK) {
      merge_.drained(static_cast<int>(slot));
      return end == ReadEnd::Empty ? ReadEnd::Empty : ReadEnd::CaughtUp;
    }
    if (errno != EINTR)
      throw FatalError(tracefs_error("read", options_.instance,
                                     cpu_file(cpus_[slot].number, "trace_pipe_raw"), errno)
                           .message);
  }
  return end;
}

RawSource::ReadEnd RawSource::read_turn() {
  ReadEnd turn = ReadEnd::Empty; // the furthest behind of the CPUs' reads
  bool skipped = false;
  for (std::size_t slot = 0; slot < cpus_.size(); ++slot) {
    if (merge_.backlogged(static_cast<int>(slot)))
      skipped = true;
    else
      turn = std::max(turn, read_cpu(slot));
  }
  // Only a backlogged CPU's records can move the merge now.
  for (std::size_t slot = 0; turn == ReadEnd::Empty && skipped && slot < cpus_.size(); ++slot)
    if (merge_.backlogged(static_cast<int>(slot)))
      turn = std::max(turn, read_cpu(slot));
  if (turn != ReadEnd::Empty) {
    last_push_ = Clock::now();
    if (last_push_ - last_comms_ >= kCommsInterval)
      refresh_comms();
  }
  return turn;
}

void RawSource::settle() {
  const timespec pause{0, std::chrono::nanoseconds(kSettle).count()};
  ::nanosleep(&pause, nullptr);
  note_quiet(Clock::now());
}

void RawSource::note_quiet(std::chrono::steady_clock::time_point now) {
  if (now - last_push_ > std::chrono::nanoseconds(merge_.slack_ns()))
    merge_.waited();
}

void RawSource::wait() {
  epoll_event ready[16];
  const int n = ::epoll_wait(epoll_fd_, ready, 16, static_cast<int>(kPollInterval.count()));
  if (n < 0 && errno != EINTR)
    throw FatalError(std::string("cannot wait on trace_pipe_raw: ") + std::strerror(errno));
  if (n > 0) {
    const auto& delay = options_.batch_delay;
    const timespec pause{static_cast<time_t>(delay.count() / 1000),
                         static_cast<long>(delay.count() % 1000 * 1'000'000)};
    ::nanosleep(&pause, nullptr); // a signal (a stop) cuts it short
  }
  const Clock::time_point now = Clock::now();
  note_quiet(now);
  if (!overwrite_ && now - last_stats_ >= kStatsInterval) {
    last_stats_ = now;
    collect_stats_losses();
  }
}

void RawSource::collect_stats_losses() {
  for (Cpu& cpu : cpus_) {
    const CpuStats now = read_stats(options_.instance, cpu.number);
    const std::uint64_t grown =
        now.lost() >= cpu.at_start.lost() ? now.lost() - cpu.at_start.lost() : 0;
    if (grown > cpu.reported) {
      pending_lost_.emplace_back(cpu.number, static_cast<long long>(grown - cpu.reported));
      cpu.reported = grown;
    }
  }
}

std::vector<std::pair<std::int32_t, std::string>> RawSource::task_names() const {
  std::vector<std::pair<std::int32_t, std::string>> names;
  for (const std::int32_t pid : seen_pids_.pids())
    if (const std::string_view comm = decoder_.comm_of(pid); pid > 0 && comm != "<...>")
      names.emplace_back(pid, comm);
  std::sort(names.begin(), names.end());
  return names;
}

void RawSource::refresh_comms() {
  last_comms_ = Clock::now();
  Result<std::string> cmdlines = read_tracefs_file(options_.top, "saved_cmdlines");
  if (!cmdlines)
    return;
  // The lines read before were handed on then, unless the decoder has
  // forgotten the names it was given since (or forgets them now, midway).
  if (decoder_.names_forgotten() != names_forgotten_)
    saved_cmdlines_.clear();
  names_forgotten_ = decoder_.names_forgotten();
  update_comms(
      *cmdlines,
      [this](std::int32_t pid, std::string_view comm) {
        if (decoder_.comm_of(pid) == comm)
          return false;
        decoder_.name_task(pid, comm);
        return true;
      },
      saved_cmdlines_);
  saved_cmdlines_ = std::move(*cmdlines);
  if (decoder_.names_forgotten() != names_forgotten_)
    saved_cmdlines_.clear();
  names_forgotten_ = decoder_.names_forgotten();
}

const Record* RawSource::deliver(CpuMerge::Item& item) {
  Cpu& cpu = cpus_[static_cast<std::size_t>(item.cpu)];
  if (item.kind == CpuMerge::Item::Kind::Lost) {
    if (item.lost > 0)
      cpu.reported += static_cast<std::uint64_t>(item.lost);
    return &decoder_.lost(cpu.number, item.lost);
  }
  RawEvent& event = item.event;
  event.cpu = cpu.number;
  const Record* record = &decoder_.decode(event);
  // A pid new to this run may be a task that started, exec'd or took over a
  // reused pid since saved_cmdlines was last read; and the kernel saves a
  // comm there only at the task's next context switch. It is named as
  // /proc says now, or, once gone, as saved_cmdlines says.
  if (record->pid > 0 && seen_pids_.first(record->pid)) {
    const std::string before(record->comm);
    if (const std::string now = proc_comm(record->pid); !now.empty())
      decoder_.name_task(record->pid, now);
    else if (Clock::now() - last_comms_ >= kUnknownCommInterval)
      refresh_comms();
    if (before != decoder_.comm_of(record->pid))
      record = &decoder_.decode(event);
  }
  return record;
}

void RawSource::say_merge_trouble() const {
  if (options_.messages == nullptr || merge_.forced() + merge_.late() + merge_.damaged_pages() == 0)
    return;
  *options_.messages << "allocwatch: trace_pipe_raw: " << merge_.forced()
                     << " records given out before every CPU was read (over "
                     << options_.merge.max_pages << " pages queued), " << merge_.late()
                     << " older than one given before, " << merge_.damaged_pages()
                     << " damaged pages cut\n";
}

const Record* RawSource::next() {
  for (;;) {
    if (closed_)
      return nullptr;
    CpuMerge::Item item;
    if (merge_.next(item))
      return deliver(item);
    if (!pending_lost_.empty()) {
      const auto [cpu, count] = pending_lost_.front();
      pending_lost_.erase(pending_lost_.begin());
      return &decoder_.lost(cpu, count);
    }
    if (finished_) {
      close();
      return nullptr;
    }
    if (!draining_ && options_.should_stop && options_.should_stop()) {
      if (tracefs_trace_off(options_.instance) != 0)
        throw FatalError(tracefs_error("write", options_.instance, "tracing_on", errno).message +
                         " (switching tracing off)");
      draining_ = true;
    }
    if (caught_up_ && !draining_) {
      caught_up_ = false;
      if (merge_.queued_pages() == 0) { // as if every CPU read empty
        wait();
        continue;
      }
      settle();
    }
    const ReadEnd turn = read_turn();
    if (turn != ReadEnd::Empty) {
      settled_ = false;
      caught_up_ = turn == ReadEnd::CaughtUp;
      continue;
    }
    if (merge_.next(item)) // the empty reads may have let records go
      return deliver(item);
    if (!draining_ && !settled_ && merge_.queued_pages() > 0) {
      settled_ = true;
      settle();
      continue;
    }
    if (draining_) { // every CPU read empty with tracing off: nothing more comes
      collect_stats_losses();
      merge_.finish();
      finished_ = true;
      say_merge_trouble();
      continue;
    }
    wait();
  }
}

} // namespace allocwatch
