#include "trace/event_fields.h"

#include "kernel/vocabulary.h"

#include <limits>

namespace allocwatch {

namespace {

// The events that print "%pS %p:" and phrases rather than key=value words.
bool is_shrink_slab(std::string_view event) {
  const EventRole role = event_role(event);
  return role == EventRole::ShrinkSlabStart || role == EventRole::ShrinkSlabEnd;
}

std::size_t skip_spaces(std::string_view text, std::size_t at) {
  while (at < text.size() && text[at] == ' ')
    ++at;
  return at;
}

// The word at `at`: up to the next space.
std::string_view word_at(std::string_view text, std::size_t at) {
  const std::size_t end = text.find(' ', at);
  return text.substr(at, end == std::string_view::npos ? text.size() - at : end - at);
}

void add(std::vector<EventField>& out, std::string_view key, std::string_view value) {
  out.push_back(EventField{key, value, parse_integer(value)});
}

void parse_shrink_slab(std::string_view fields, std::vector<EventField>& out) {
  const ShrinkerId id = parse_shrinker_id(fields);
  if (!id.symbol.empty())
    add(out, "symbol", id.symbol);
  if (!id.instance.empty())
    add(out, "instance", id.instance);
  // The phrases follow the instance's ':'.
  const std::size_t colon =
      id.instance.empty()
          ? std::string_view::npos
          : static_cast<std::size_t>(id.instance.data() - fields.data()) + id.instance.size();
  if (colon >= fields.size())
    return;
  std::size_t at = skip_spaces(fields, colon + 1);
  while (at < fields.size()) {
    const std::string_view rest = fields.substr(at);
    const ShrinkSlabPhrase* matched = nullptr;
    for (const ShrinkSlabPhrase& phrase : shrink_slab_phrases())
      if (rest.starts_with(phrase.text) &&
          (rest.size() == phrase.text.size() || rest[phrase.text.size()] == ' ')) {
        matched = &phrase;
        break;
      }
    if (matched == nullptr) { // an unknown word: skipped
      at = skip_spaces(fields, at + word_at(fields, at).size());
      continue;
    }
    at = skip_spaces(fields, at + matched->text.size());
    const std::string_view value = word_at(fields, at);
    if (value.empty())
      return;
    add(out, matched->key, value);
    at = skip_spaces(fields, at + value.size());
  }
}

// Calls visit(key, value) for each key=value word, until it returns false.
template <class Visit> void for_each_key_value(std::string_view fields, Visit visit) {
  std::size_t at = skip_spaces(fields, 0);
  while (at < fields.size()) {
    const std::string_view word = word_at(fields, at);
    const std::size_t equals = word.find('=');
    if (equals == std::string_view::npos || equals == 0) { // a bare word: skipped
      at = skip_spaces(fields, at + word.size());
      continue;
    }
    const std::string_view key = word.substr(0, equals);
    const std::size_t value_at = at + equals + 1;
    std::size_t value_end = at + word.size();
    if (value_at < fields.size() && fields[value_at] == '(') {
      const std::size_t close = fields.find(')', value_at);
      if (close != std::string_view::npos) // "(0x1 ~ 0x200)": to its ')'
        value_end = close + 1;
    }
    std::string_view value = fields.substr(value_at, value_end - value_at);
    if (value.ends_with(','))
      value.remove_suffix(1);
    if (!visit(key, value))
      return;
    at = skip_spaces(fields, value_end);
  }
}

} // namespace

ShrinkerId parse_shrinker_id(std::string_view fields) {
  // The kernel prints "%pS %p:": the symbol with "+off/size", then " [module]"
  // for a shrinker in a module, then the instance, ended by ':'. A forward
  // scan with memchr (find): this runs twice per shrinker call.
  const std::size_t symbol_end = fields.find(' ');
  std::string_view symbol = fields.substr(0, symbol_end);
  symbol = symbol.substr(0, symbol.find('+'));
  if (symbol_end == std::string_view::npos)
    return {symbol, {}};
  std::size_t at = symbol_end + 1;
  if (at < fields.size() && fields[at] == '[') {
    at = fields.find("] ", at);
    if (at == std::string_view::npos)
      return {symbol, {}};
    at += 2;
  }
  const std::string_view rest = fields.substr(at);
  const std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos)
    return {symbol, {}};
  return {symbol, rest.substr(0, colon)};
}

void parse_event_fields(std::string_view event, std::string_view fields,
                        std::vector<EventField>& out) {
  out.clear();
  if (is_shrink_slab(event)) {
    parse_shrink_slab(fields, out);
    return;
  }
  for_each_key_value(fields, [&out](std::string_view key, std::string_view value) {
    add(out, key, value);
    return true;
  });
}

std::optional<std::string_view> event_field(std::string_view event, std::string_view fields,
                                            std::string_view key) {
  if (is_shrink_slab(event)) {
    std::vector<EventField> parsed;
    parse_shrink_slab(fields, parsed);
    for (const EventField& field : parsed)
      if (field.key == key)
        return field.value;
    return std::nullopt;
  }
  return key_value_field(fields, key);
}

std::optional<std::string_view> key_value_field(std::string_view fields, std::string_view key) {
  // One pass over the words up to the first "key=" at a word's start: the
  // report reads fields the kernel prints near the start ("nid=0
  // nr_scanned=32 ..."), for the LRU and reclaim lines of every slow call. A
  // '(' before the value (a value in parentheses may hold spaces and '=')
  // leaves it to the general walk.
  const auto walk = [&] {
    std::optional<std::string_view> found;
    for_each_key_value(fields, [&](std::string_view k, std::string_view value) {
      if (k != key)
        return true;
      found = value;
      return false;
    });
    return found;
  };
  const std::size_t size = fields.size();
  std::size_t at = 0; // at a word's start: 0, or after a space
  while (at < size) {
    const std::size_t equals = at + key.size();
    if (equals < size && fields[equals] == '=' && fields.compare(at, key.size(), key) == 0) {
      if (equals + 1 < size && fields[equals + 1] == '(')
        return walk();
      std::string_view value = word_at(fields, equals + 1);
      if (value.ends_with(','))
        value.remove_suffix(1);
      return value;
    }
    for (; at < size && fields[at] != ' '; ++at)
      if (fields[at] == '(')
        return walk();
    at = skip_spaces(fields, at);
  }
  return std::nullopt; // no key, and no '(' that could hide one
}

std::optional<std::int64_t> event_field_number(std::string_view event, std::string_view fields,
                                               std::string_view key) {
  const std::optional<std::string_view> value = event_field(event, fields, key);
  return value ? parse_integer(*value) : std::nullopt;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  const bool negative = text.starts_with('-');
  if (negative)
    text.remove_prefix(1);
  if (text.empty() || text.size() > 19)
    return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (value > kMax + (negative ? 1 : 0))
    return std::nullopt;
  if (negative)
    return value == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                             : -static_cast<std::int64_t>(value);
  return static_cast<std::int64_t>(value);
}

std::optional<std::int64_t> field_number(const std::vector<EventField>& fields,
                                         std::string_view key) {
  for (const EventField& field : fields)
    if (field.key == key)
      return field.number;
  return std::nullopt;
}

std::string_view field_value(const std::vector<EventField>& fields, std::string_view key) {
  for (const EventField& field : fields)
    if (field.key == key)
      return field.value;
  return {};
}

} // namespace allocwatch
