#include "ring/kernel_symbols.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace allocwatch {

void KernelSymbols::add(std::string_view text) {
  lines_.add(text, [this](std::string_view line) { add_line(line); });
}

void KernelSymbols::add_line(std::string_view line) {
  // The type and the name are looked at first: half the lines are padding
  // ("__pfx_") or not text, and need no address. The address is printed
  // at the width of the kernel's pointers (%px): 16 digits on 64-bit.
  constexpr std::size_t kAddressWidth = 2 * sizeof(std::uint64_t);
  const std::size_t at =
      line.size() > kAddressWidth && line[kAddressWidth] == ' ' ? kAddressWidth : line.find(' ');
  if (at == 0 || at == std::string_view::npos || line.size() < at + 4 || line[at + 2] != ' ')
    return;
  const char type = line[at + 1];
  if (type != 't' && type != 'T' && type != 'w' && type != 'W')
    return;
  std::string_view rest = line.substr(at + 3);
  if (rest.starts_with("__pfx_"))
    return;
  std::uint64_t address = 0;
  const auto [after, ec] = std::from_chars(line.data(), line.data() + at, address, 16);
  if (ec != std::errc() || after != line.data() + at)
    return;
  std::string_view module;
  if (const std::size_t tab = rest.find('\t'); tab != std::string_view::npos) {
    module = rest.substr(tab + 1);
    rest = rest.substr(0, tab);
    if (module.size() >= 2 && module.front() == '[' && module.back() == ']')
      module = module.substr(1, module.size() - 2);
    else
      module = {};
  }
  // "__pfx_f" names the padding before f (kernels with call padding, 6.2+:
  // half of the symbols); no record's address points into it.
  constexpr std::size_t kLongest = 1024; // the kernel's KSYM_NAME_LEN is 512
  if (rest.empty() || rest.starts_with("__pfx_") || rest.size() > kLongest ||
      module.size() > kLongest || blocks_.size() >= (std::size_t{1} << (32 - kBlockShift)) - 1)
    return;
  Entry entry{address, store(rest), kNone};
  if (!module.empty()) {
    // A module's symbols come together: its name is kept once per run of them.
    if (last_module_at_ == kNone || module != last_module_) {
      last_module_.assign(module);
      last_module_at_ = store(module);
    }
    entry.module = last_module_at_;
  }
  if (entries_.empty())
    entries_.reserve(std::size_t{1} << 16); // a 6.18 kernel's, without the padding
  entries_.push_back(entry);
}

std::uint32_t KernelSymbols::store(std::string_view text) {
  constexpr std::size_t kBlock = std::size_t{1} << kBlockShift;
  if (blocks_.empty() || block_used_ + text.size() + 1 > kBlock) {
    blocks_.push_back(std::make_unique<char[]>(kBlock));
    block_used_ = 0;
  }
  char* at = blocks_.back().get() + block_used_;
  std::memcpy(at, text.data(), text.size());
  at[text.size()] = '\0';
  const auto ref = static_cast<std::uint32_t>((blocks_.size() - 1) << kBlockShift | block_used_);
  block_used_ += text.size() + 1;
  return ref;
}

const char* KernelSymbols::stored(std::uint32_t ref) const {
  return blocks_[ref >> kBlockShift].get() + (ref & ((1u << kBlockShift) - 1));
}

void KernelSymbols::finish() {
  lines_.finish([this](std::string_view line) { add_line(line); });
  // /proc/kallsyms lists the functions in address order: sorted unless a
  // kernel lists them otherwise.
  const auto by_address = [](const Entry& a, const Entry& b) { return a.address < b.address; };
  if (!std::is_sorted(entries_.begin(), entries_.end(), by_address))
    std::sort(entries_.begin(), entries_.end(), by_address); // in place: stable_sort would copy
}

bool KernelSymbols::lookup(std::uint64_t address, Found& found) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), address,
                                [](std::uint64_t a, const Entry& e) { return a < e.address; });
  if (after == entries_.begin())
    return false;
  const Entry& e = *(after - 1);
  found.start = e.address;
  found.name = stored(e.name);
  found.module = e.module == kNone ? nullptr : stored(e.module);
  return true;
}

char* KernelSymbols::resolve(unsigned long long* address, char** module) const {
  Found found;
  if (!lookup(*address, found))
    return nullptr;
  *address = found.start;
  *module = const_cast<char*>(found.module);
  return const_cast<char*>(found.name);
}

} // namespace allocwatch
