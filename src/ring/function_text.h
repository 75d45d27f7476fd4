// function_text: a kernel address as libtraceevent prints it: as
// print_function() writes a function (%ps, %pf: the name of the function it
// lies in; %pS, %pF: with "+0x<offset>" after it; "0x<address>" when the tep
// knows no function there), and as print_arg_pointer() writes a pointer
// (%p: printf's "%p" of the value).
//
//   std::string text;
//   append_function_text(tep, address, FunctionOffset::With, text);
//   char buffer[kMaxPointerText];
//   text += pointer_text(address, buffer);
//
//   FunctionNames names(tep, 4096);            // the same texts, remembered
//   std::string_view name = names.text(address, FunctionOffset::Without);
//   ShrinkerNames shrinkers(tep);              // a shrinker call's "%pS %p:"
//   std::string_view shrinker = shrinkers.text(function, instance);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct tep_handle;

namespace allocwatch {

enum class FunctionOffset : std::uint8_t { Without, With };

// Appends the text of `address` to `out`; `tep` names it (its function
// table or resolver).
void append_function_text(tep_handle* tep, std::uint64_t address, FunctionOffset offset,
                          std::string& out);

// What "%p" of `address` prints ("0x<hex>", glibc's "(nil)" for 0), in
// `buffer`; the view lives as long as the buffer.
constexpr std::size_t kMaxPointerText = 24;
std::string_view pointer_text(std::uint64_t address, char (&buffer)[kMaxPointerText]);

// The texts append_function_text() writes, remembered by address and form:
// a trace names the same functions on every call, and each lookup is a
// search of the tep's table. At most `capacity` texts are kept, all
// forgotten at once when another would pass that (a forged trace.dat may
// name a new address in every record), and a text longer than kMaxKeptText
// (a kernel symbol has at most KSYM_NAME_LEN, 512 bytes; a forged file's
// table may hold longer) is made again at each call: the memory stays
// bounded whatever a trace holds.
class FunctionNames {
public:
  static constexpr std::size_t kMaxKeptText = 640;
  // `tep` names the addresses and must outlive this.
  FunctionNames(tep_handle* tep, std::size_t capacity);

  // The text of `address`, valid until the next call.
  std::string_view text(std::uint64_t address, FunctionOffset offset);

  // Texts kept now, and how often all were forgotten (for tests).
  std::size_t kept() const { return kept_.size(); }
  std::uint64_t forgotten() const { return forgotten_; }

private:
  struct Key {
    std::uint64_t address;
    FunctionOffset offset;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const {
      return std::hash<std::uint64_t>{}(key.address) ^ static_cast<std::size_t>(key.offset);
    }
  };
  tep_handle* tep_;
  std::size_t capacity_;
  std::unordered_map<Key, std::string, KeyHash> kept_;
  std::uint64_t forgotten_ = 0;
  std::string longer_; // the last text too long to keep
};

// A shrinker call's "%pS %p:" (its function, then its struct shrinker), as
// mm_shrink_slab_start and _end print them: "super_cache_scan+0x0
// 0xffff888102b24780:". Remembered in kSlots slots by function and
// instance (a kernel has a few hundred shrinkers, each called again and
// again); a text longer than FunctionNames::kMaxKeptText is made again at
// each call.
class ShrinkerNames {
public:
  static constexpr std::size_t kSlots = 256;
  // `tep` names the functions and must outlive this.
  explicit ShrinkerNames(tep_handle* tep);

  // The text of the call, valid until the next call.
  std::string_view text(std::uint64_t function, std::uint64_t instance);

private:
  struct Slot {
    std::uint64_t function = 0;
    std::uint64_t instance = 0;
    std::string text; // empty: not filled
  };
  tep_handle* tep_;
  std::vector<Slot> slots_;
  std::string longer_; // the last text too long to keep
};

} // namespace allocwatch
