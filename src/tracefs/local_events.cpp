#include "tracefs/local_events.h"

#include "ring/event_formats.h"
#include "ring/libtracefs.h"
#include "ring/symbol_search.h"
#include "tracefs/files.h"
#include "tracefs/saved_comms.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {

void TepFree::operator()(tep_handle* tep) const {
  tep_free(tep);
}

namespace {

// /proc/kallsyms read in chunks, never whole (it is some 5 MB of text),
// each given to `take`; false when it cannot be opened.
template <class Take> bool read_in_chunks(const std::string& path, Take&& take) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  std::string chunk(64 * 1024, '\0');
  for (;;) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    take(std::string_view(chunk.data(), static_cast<std::size_t>(got)));
  }
  ::close(fd);
  return true;
}

std::unique_ptr<KernelSymbols> read_symbols(const std::string& path) {
  auto symbols = std::make_unique<KernelSymbols>();
  if (!read_in_chunks(path, [&](std::string_view chunk) { symbols->add(chunk); }))
    return nullptr;
  symbols->finish();
  return symbols;
}

// The tep's resolver: the function `*address` lies in, its start in
// `*address`; nullptr when none.
char* resolve(void* symbols, unsigned long long* address, char** module) {
  const KernelSymbols* table = static_cast<KallsymsOnDemand*>(symbols)->table();
  return table != nullptr ? table->resolve(address, module) : nullptr;
}

} // namespace

void KallsymsOnDemand::install(tep_handle* tep) {
  tep_set_function_resolver(tep, resolve, this);
}

std::vector<std::pair<std::string, std::uint64_t>>
KallsymsOnDemand::addresses(const std::vector<std::string>& names) {
  SymbolSearch search(names);
  if (!read_in_chunks(path_, [&](std::string_view chunk) { search.add(chunk); }))
    return {};
  return search.finish();
}

const KernelSymbols* KallsymsOnDemand::table() {
  if (!tried_) {
    tried_ = true;
    table_ = read_symbols(path_);
  }
  return table_.get();
}

Result<LocalEvents> load_local_events(const std::string& tracing_dir,
                                      const std::vector<std::string>& systems,
                                      const std::string& kallsyms) {
  Result<InstancePtr> top = open_top_level(tracing_dir);
  if (!top)
    return top.error();
  LocalEvents events{TepPtr(tep_alloc()), std::make_unique<PendingFormats>(), nullptr, {}};
  tep_handle* tep = events.tep.get();
  if (tep == nullptr)
    return Error{"cannot allocate a tep handle"};
  tep_set_page_size(tep, ::getpagesize());
  Result<std::string> header = read_tracefs_file(top->get(), "events/header_page");
  if (!header)
    return header.error();
  if (tep_parse_header_page(tep, header->data(), header->size(), sizeof(long)) != 0)
    return Error{"cannot parse " + tracefs_path(top->get(), "events/header_page")};

  for (const std::string& system : systems) {
    char** names = tracefs_system_events(tracing_dir.c_str(), system.c_str());
    for (char** name = names; name != nullptr && *name != nullptr; ++name) {
      Result<std::string> format =
          read_tracefs_file(top->get(), "events/" + system + "/" + *name + "/format");
      if (format)
        events.formats->add(system, parsable_format(*format));
    }
    tracefs_list_free(names);
  }
  if (events.formats->size() == 0)
    return Error{"no event format could be read from " + tracefs_path(top->get(), "events")};

  if (Result<std::string> printk = read_tracefs_file(top->get(), "printk_formats"); printk)
    tep_parse_printk_formats(tep, printk->c_str());
  if (Result<std::string> cmdlines = read_tracefs_file(top->get(), "saved_cmdlines"); cmdlines) {
    // Not tep_parse_saved_cmdlines(): its sscanf("%m") costs a raw run's
    // start some 2 ms for a table of 6000 tasks.
    update_comms(*cmdlines, [tep](std::int32_t pid, std::string_view comm) {
      return tep_register_comm(tep, std::string(comm).c_str(), pid) == 0;
    });
    events.saved_cmdlines = std::move(*cmdlines);
  }
  events.symbols = std::make_unique<KallsymsOnDemand>(kallsyms);
  events.symbols->install(tep);
  events.formats->set_symbols(events.symbols.get());
  return events;
}

} // namespace allocwatch
