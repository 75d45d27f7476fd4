#include "ring/function_text.h"

#include "util/digits.h"

#include <cstdio>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {

void append_function_text(tep_handle* tep, std::uint64_t address, FunctionOffset offset,
                          std::string& out) {
  char hex[kMaxHexText];
  const char* const name = tep_find_function(tep, address);
  if (name == nullptr) {
    out.append(hex_text(address, hex));
    return;
  }
  out.append(name);
  if (offset == FunctionOffset::With)
    out.append("+").append(hex_text(address - tep_find_function_address(tep, address), hex));
}

std::string_view pointer_text(std::uint64_t address, char (&buffer)[kMaxPointerText]) {
  const int n = std::snprintf(buffer, sizeof buffer, "%p",
                              reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)));
  return n > 0 ? std::string_view(buffer, static_cast<std::size_t>(n)) : std::string_view();
}

FunctionNames::FunctionNames(tep_handle* tep, std::size_t capacity)
    : tep_(tep), capacity_(capacity) {}

std::string_view FunctionNames::text(std::uint64_t address, FunctionOffset offset) {
  const Key key{address, offset};
  if (const auto found = kept_.find(key); found != kept_.end())
    return found->second;
  longer_.clear();
  append_function_text(tep_, address, offset, longer_);
  if (longer_.size() > kMaxKeptText)
    return longer_;
  if (kept_.size() >= capacity_) {
    kept_.clear();
    ++forgotten_;
  }
  return kept_.emplace(key, longer_).first->second;
}

ShrinkerNames::ShrinkerNames(tep_handle* tep) : tep_(tep), slots_(kSlots) {}

std::string_view ShrinkerNames::text(std::uint64_t function, std::uint64_t instance) {
  Slot& slot = slots_[(function * 0x9E3779B97F4A7C15ULL ^ instance) % kSlots];
  if (!slot.text.empty() && slot.function == function && slot.instance == instance)
    return slot.text;
  longer_.clear();
  append_function_text(tep_, function, FunctionOffset::With, longer_);
  char pointer[kMaxPointerText];
  longer_.append(" ").append(pointer_text(instance, pointer)).append(":");
  if (longer_.size() > FunctionNames::kMaxKeptText)
    return longer_;
  slot.function = function;
  slot.instance = instance;
  slot.text = longer_;
  return slot.text;
}

} // namespace allocwatch
