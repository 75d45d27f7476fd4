// KernelSymbols: the kernel's function symbols (/proc/kallsyms), compact,
// for naming the addresses that ring-buffer records carry (function_graph's
// `func`, a shrinker's `%pS`).
//
// libtraceevent's own table (tep_parse_kallsyms) costs some 16 MB at its
// peak for a 6.18 kernel's 120000 functions, more than the rest of a live
// run together; this one keeps each as 16 bytes and its name once, leaves
// out the "__pfx_" padding symbols (half of them), about 2.5 MB in all, and
// serves a tep through tep_set_function_resolver() (resolve()).
//
//   KernelSymbols symbols;
//   symbols.add(chunk) ...;     // /proc/kallsyms text, in any chunks
//   symbols.finish();           // sorts; lookups from now on
#pragma once

#include "util/line_splitter.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

class KernelSymbols {
public:
  struct Found {
    std::uint64_t start = 0;      // the function's address
    const char* name = nullptr;   // lives as long as the table
    const char* module = nullptr; // nullptr: the kernel's own
  };

  // More of the file's text. Lines ("ADDR TYPE NAME[\t[MODULE]]") may be cut
  // anywhere between calls; only text symbols (types t, T, w, W) are kept,
  // but the padding before functions ("__pfx_" names), and lines not of
  // that form are skipped.
  void add(std::string_view text);
  // The end of the text: sorts the table.
  void finish();

  // The function `address` lies in: the last symbol at or before it; false
  // before the first.
  bool lookup(std::uint64_t address, Found& found) const;
  std::size_t size() const { return entries_.size(); }

  // As a tep's function resolver answers: the name of the function
  // `*address` lies in (its start put in `*address`, its module in
  // `*module`, nullptr for the kernel's own), or nullptr when none.
  char* resolve(unsigned long long* address, char** module) const;

private:
  struct Entry {
    std::uint64_t address;
    std::uint32_t name;   // a reference to a stored string (store())
    std::uint32_t module; // the same, or kNone
  };
  static constexpr std::uint32_t kNone = 0xffffffff;
  // Names live in blocks that never move: a string that grew by doubling
  // would, for a moment, take three times the names' size (the peak is what
  // a run's VmHWM counts).
  static constexpr unsigned kBlockShift = 18; // 256 KiB blocks
  void add_line(std::string_view line);
  std::uint32_t store(std::string_view text);
  const char* stored(std::uint32_t ref) const;

  std::vector<Entry> entries_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_used_ = 0;
  LineSplitter lines_;
  std::string last_module_;
  std::uint32_t last_module_at_ = kNone;
};

} // namespace allocwatch
