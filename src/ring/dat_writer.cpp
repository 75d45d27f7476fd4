#include "ring/dat_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <limits>

namespace allocwatch {
namespace {

// trace-cmd's option ids (lib/trace-cmd/include/private/trace-cmd-private.h).
constexpr std::uint16_t kOptionDone = 0;
constexpr std::uint16_t kOptionTraceClock = 4;

// The commit word's length bits; the bits above are flags (missed events).
// As libtraceevent's kbuffer reads it (COMMIT_MASK).
constexpr std::uint64_t kCommitMask = (1u << 27) - 1;

// A number in the file's byte order, which is the host's.
template <class T> void put(DatFile& file, T value) {
  file.write(&value, sizeof value);
}

void put_string(DatFile& file, std::string_view text) {
  file.write(text.data(), text.size());
  file.write("", 1);
}

// A size field of `width` bytes (4 or 8) and then `data`.
void put_sized(DatFile& file, std::size_t width, std::string_view data) {
  if (width == 8)
    put<std::uint64_t>(file, data.size());
  else
    put<std::uint32_t>(file, static_cast<std::uint32_t>(data.size()));
  file.write(data.data(), data.size());
}

// "local" of "[local] global counter".
std::string selected_clock(std::string_view trace_clock) {
  const std::size_t open = trace_clock.find('[');
  const std::size_t close = trace_clock.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos)
    return "";
  return std::string(trace_clock.substr(open + 1, close - open - 1));
}

std::uint64_t read_unsigned(const void* at, std::size_t size) {
  if (size == 4) {
    std::uint32_t value;
    std::memcpy(&value, at, 4);
    return value;
  }
  std::uint64_t value;
  std::memcpy(&value, at, 8);
  return value;
}

} // namespace

Result<std::unique_ptr<DatWriter>> DatWriter::create(DatSources& sources,
                                                     DatWriterOptions options) {
  if (options.cpus <= 0)
    return Error{"cannot write " + options.path + ": no CPUs"};
  std::error_code ec;
  const auto status = std::filesystem::status(options.path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    return Error{"cannot write " + options.path +
                 ": not a regular file (a trace.dat is written beside it, then renamed)"};
  auto file = DatFile::create(options.path);
  if (!file)
    return file.error();
  std::unique_ptr<DatWriter> writer(
      new DatWriter(sources, std::move(options), std::move(file.value())));
  Status read = writer->read_headers();
  if (!read)
    return read.error();
  return writer;
}

DatWriter::DatWriter(DatSources& sources, DatWriterOptions options, DatFile file)
    : sources_(sources), options_(std::move(options)), file_(std::move(file)),
      cpus_(static_cast<std::size_t>(options_.cpus)) {}

DatWriter::~DatWriter() = default;

Status DatWriter::read_headers() {
  auto header_page = read_whole(sources_, "events/header_page");
  if (!header_page)
    return header_page.error();
  header_page_ = std::move(header_page.value());
  auto commit = header_page_field(header_page_, "commit");
  if (!commit)
    return commit.error();
  auto data = header_page_field(header_page_, "data");
  if (!data)
    return data.error();
  if ((commit->size != 4 && commit->size != 8) || commit->offset + commit->size > data->offset ||
      data->size == 0 || data->offset + data->size > std::numeric_limits<std::uint32_t>::max())
    return Error{"events/header_page: a page layout this writer cannot keep"};
  commit_ = commit.value();
  data_ = data.value();
  page_size_ = data->offset + data->size;

  auto header_event = read_whole(sources_, "events/header_event");
  if (!header_event)
    return header_event.error();
  header_event_ = std::move(header_event.value());

  auto ftrace = sources_.ftrace_events();
  if (!ftrace)
    return ftrace.error();
  std::vector<std::string> names = std::move(ftrace.value());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    auto format = read_whole(sources_, "events/ftrace/" + name + "/format");
    if (!format)
      return format.error();
    ftrace_formats_.push_back(std::move(format.value()));
  }

  std::vector<std::string> seen;
  for (const TracedEvent& event : options_.events) {
    const std::string path = "events/" + event.system + "/" + event.name + "/format";
    if (std::find(seen.begin(), seen.end(), path) != seen.end())
      continue;
    seen.push_back(path);
    auto format = read_whole(sources_, path);
    if (!format)
      return format.error();
    auto system = std::find_if(systems_.begin(), systems_.end(),
                               [&](const auto& s) { return s.first == event.system; });
    if (system == systems_.end())
      system = systems_.insert(systems_.end(), {event.system, {}});
    system->second.push_back(std::move(format.value()));
  }

  auto printk = read_whole(sources_, "printk_formats");
  if (!printk)
    return printk.error();
  printk_formats_ = std::move(printk.value());

  auto trace_clock = read_whole(sources_, "trace_clock");
  if (!trace_clock)
    return trace_clock.error();
  clock_ = selected_clock(trace_clock.value());
  if (clock_.empty())
    return Error{"trace_clock names no clock in [brackets]: \"" + trace_clock.value() + "\""};
  return Ok{};
}

Status DatWriter::check_page(int cpu, const void* page, std::size_t size) const {
  const std::string where =
      "cannot keep a page of CPU " + std::to_string(cpu) + " in " + options_.path + ": ";
  if (cpu < 0 || cpu >= options_.cpus)
    return Error{where + "the run has " + std::to_string(options_.cpus) + " CPUs"};
  if (size != page_size_)
    return Error{where + std::to_string(size) + " bytes where a page has " +
                 std::to_string(page_size_) + " (a short read?)"};
  const auto* bytes = static_cast<const unsigned char*>(page);
  const std::uint64_t commit = read_unsigned(bytes + commit_.offset, commit_.size) & kCommitMask;
  if (commit > data_.size)
    return Error{where + "its data length " + std::to_string(commit) + " passes its end (" +
                 std::to_string(data_.size) + " bytes)"};
  return Ok{};
}

void DatWriter::add_page(int cpu, const void* page, std::size_t size) {
  if (error_ || finished_)
    return;
  Status checked = check_page(cpu, page, size);
  if (!checked) {
    error_ = checked.error();
    return;
  }
  CpuData& data = cpus_[static_cast<std::size_t>(cpu)];
  if (data.scratch.get() < 0) {
    auto scratch = scratch_file_beside(options_.path);
    if (!scratch) {
      error_ = scratch.error();
      return;
    }
    data.scratch = std::move(scratch.value());
  }
  Status written =
      write_all(data.scratch.get(), page, size,
                "the scratch file of CPU " + std::to_string(cpu) + " beside " + options_.path);
  if (!written) {
    error_ = written.error();
    return;
  }
  ++data.pages;
}

Status DatWriter::finish(std::string_view trailer) {
  if (finished_)
    return Error{"cannot write " + options_.path + ": already finished"};
  finished_ = true;
  if (error_)
    return *error_;
  write_file();
  file_.write(trailer.data(), trailer.size());
  return file_.commit();
}

void DatWriter::write_file() {
  static constexpr char kMagic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
  file_.write(kMagic, sizeof kMagic);
  put_string(file_, "6");
  put<std::uint8_t>(file_, std::endian::native == std::endian::big ? 1 : 0);
  put<std::uint8_t>(file_, sizeof(long));
  put<std::uint32_t>(file_, static_cast<std::uint32_t>(page_size_));

  write_formats();
  write_streamed("/proc/kallsyms", 4);
  put_sized(file_, 4, printk_formats_);
  write_streamed("saved_cmdlines", 8);
  put<std::uint32_t>(file_, static_cast<std::uint32_t>(options_.cpus));

  // The options: only the trace clock, which tells the reader that the
  // clock comes again, as "[local]", after the CPUs' offsets. trace-cmd
  // record puts the trace_clock file in the option; here it is the clock's
  // name without brackets, which readers take from the second place alone:
  // libtracecmd (3.1.6 to 3.4) parses a bracketed clock in both places and
  // leaks the first.
  file_.write("options  ", 10);
  put(file_, kOptionTraceClock);
  put<std::uint32_t>(file_, static_cast<std::uint32_t>(clock_.size() + 1));
  put_string(file_, clock_);
  put(file_, kOptionDone);

  write_cpu_data();
}

void DatWriter::write_formats() {
  file_.write("header_page", 12);
  put_sized(file_, 8, header_page_);
  file_.write("header_event", 13);
  put_sized(file_, 8, header_event_);
  put<std::uint32_t>(file_, static_cast<std::uint32_t>(ftrace_formats_.size()));
  for (const std::string& format : ftrace_formats_)
    put_sized(file_, 8, format);
  put<std::uint32_t>(file_, static_cast<std::uint32_t>(systems_.size()));
  for (const auto& [system, formats] : systems_) {
    put_string(file_, system);
    put<std::uint32_t>(file_, static_cast<std::uint32_t>(formats.size()));
    for (const std::string& format : formats)
      put_sized(file_, 8, format);
  }
}

// A size field of `size_width` bytes (4 or 8), the file streamed after it,
// and the size written in once it is known.
void DatWriter::write_streamed(const std::string& path, std::size_t size_width) {
  const std::uint64_t size_at = file_.size();
  if (size_width == 8)
    put<std::uint64_t>(file_, 0);
  else
    put<std::uint32_t>(file_, 0);
  Status read = sources_.read(path, [this](std::string_view chunk) -> Status {
    file_.write(chunk.data(), chunk.size());
    if (!file_.good())
      return Error{"stopped: the file has failed"};
    return Ok{};
  });
  if (!read)
    file_.fail(read.error());
  const std::uint64_t size = file_.size() - size_at - size_width;
  if (size_width == 8) {
    file_.write_at(size_at, &size, 8);
  } else if (size > std::numeric_limits<std::uint32_t>::max()) {
    file_.fail(Error{"cannot write " + options_.path + ": " + path + " is over 4 GiB"});
  } else {
    const auto size32 = static_cast<std::uint32_t>(size);
    file_.write_at(size_at, &size32, 4);
  }
}

// "flyrecord", each CPU's offset and size, the clock, and the pages: each
// CPU's data starts page-aligned (the pages are whole, so one follows
// another).
void DatWriter::write_cpu_data() {
  const std::string clock = "[" + clock_ + "]";
  const std::uint64_t table_end = file_.size() + 10 + 16 * cpus_.size() + 8 + clock.size();
  std::uint64_t offset = (table_end + page_size_ - 1) / page_size_ * page_size_;
  file_.write("flyrecord", 10);
  for (const CpuData& data : cpus_) {
    const std::uint64_t size = data.pages * page_size_;
    put(file_, offset);
    put(file_, size);
    offset += size;
  }
  put_sized(file_, 8, clock);
  file_.pad_to(page_size_);
  for (std::size_t cpu = 0; cpu < cpus_.size(); ++cpu)
    if (cpus_[cpu].pages > 0)
      file_.copy_from(cpus_[cpu].scratch.get(), cpus_[cpu].pages * page_size_,
                      "the scratch file of CPU " + std::to_string(cpu) + " beside " +
                          options_.path);
}

} // namespace allocwatch
