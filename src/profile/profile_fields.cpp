#include "profile/profile_fields.h"

#include "profile/nearest.h"
#include "util/escape.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace allocwatch {

std::string in_quotes(std::string_view text) {
  return quote(text);
}

std::string joined(std::span<const std::string_view> words) {
  std::string out;
  for (std::string_view word : words) {
    if (!out.empty())
      out += ", ";
    out += word;
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::optional<std::string> guess = nearest(word, candidates);
  return guess ? " (did you mean " + in_quotes(*guess) + "?)" : "";
}

const char* kind_of(const YAML::Node& node) {
  switch (node.Type()) {
  case YAML::NodeType::Map:
    return "a map";
  case YAML::NodeType::Sequence:
    return "a list";
  case YAML::NodeType::Scalar:
    return "a single value";
  default:
    return "nothing";
  }
}

SourcePos pos_of(const YAML::Mark& mark) {
  return SourcePos{mark.line + 1, mark.column + 1};
}

bool FieldReader::fail(const YAML::Mark& mark, const std::string& message) {
  error_ = located(mark) + message;
  return false;
}

std::string FieldReader::located(const YAML::Mark& mark) const {
  const int line = mark.line >= 0 ? mark.line + 1 : 1;
  const int column = mark.column >= 0 ? mark.column + 1 : 1;
  return escaped(file_) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
}

YAML::Mark FieldReader::mark_of_empty(const YAML::Node& node) const {
  YAML::Mark mark = node.Mark();
  if (mark.pos <= 0 || static_cast<std::size_t>(mark.pos) > text_.size())
    return mark;
  std::size_t dash = static_cast<std::size_t>(mark.pos);
  while (dash > 0 && std::isspace(static_cast<unsigned char>(text_[dash - 1])))
    --dash;
  if (dash == 0 || text_[dash - 1] != '-')
    return mark;
  --dash;
  const std::string_view before = text_.substr(0, dash);
  const std::size_t newline = before.rfind('\n');
  mark.pos = static_cast<int>(dash);
  mark.line = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  mark.column = static_cast<int>(newline == std::string_view::npos ? dash : dash - newline - 1);
  return mark;
}

bool FieldReader::reject_empty(const YAML::Node& item, std::string_view list) {
  if (item.IsNull())
    return fail(mark_of_empty(item), "an empty entry in " + in_quotes(list));
  return true;
}

bool FieldReader::read_entry_fields(const YAML::Node& item, std::string_view list,
                                    std::string_view shape, std::span<const std::string_view> known,
                                    Fields& fields) {
  if (!reject_empty(item, list))
    return false;
  if (!item.IsMap())
    return fail(item.Mark(), std::string(shape) + ", not " + kind_of(item));
  return read_fields(item, known, fields);
}

bool FieldReader::read_fields(const YAML::Node& map, std::span<const std::string_view> known,
                              Fields& fields) {
  const std::vector<std::string_view> candidates(known.begin(), known.end());
  for (const auto& item : map) {
    const YAML::Node key = item.first;
    if (!key.IsScalar())
      return fail(key.Mark(), std::string("a key is a name, not ") + kind_of(key));
    const std::string& name = key.Scalar();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const std::string guess = did_you_mean(name, candidates);
      return fail(key.Mark(), "unknown key " + in_quotes(name) +
                                  (guess.empty() ? "; known keys: " + joined(known) : guess));
    }
    const auto [slot, inserted] = fields.try_emplace(name, Entry{key, item.second});
    if (!inserted)
      return fail(key.Mark(), "duplicate key " + in_quotes(name) + " (first given at line " +
                                  std::to_string(slot->second.key.Mark().line + 1) + ")");
  }
  return true;
}

const FieldReader::Entry* FieldReader::find(const Fields& fields, std::string_view key) {
  const auto it = fields.find(key);
  return it == fields.end() ? nullptr : &it->second;
}

bool FieldReader::has_value(const Entry& entry) {
  if (entry.value.IsNull())
    return fail(entry.key.Mark(), in_quotes(entry.key.Scalar()) + " has no value");
  return true;
}

bool FieldReader::read_scalar(const Entry& entry, std::string& out) {
  if (!has_value(entry))
    return false;
  if (!entry.value.IsScalar())
    return fail(entry.value.Mark(), in_quotes(entry.key.Scalar()) +
                                        " must be a single value, not " + kind_of(entry.value));
  out = entry.value.Scalar();
  return true;
}

bool FieldReader::read_bool(const Entry& entry, bool& out) {
  std::string text;
  if (!read_scalar(entry, text))
    return false;
  if (text != "true" && text != "false")
    return fail(entry.value.Mark(),
                entry.key.Scalar() + " must be true or false, not " + in_quotes(text));
  out = text == "true";
  return true;
}

bool FieldReader::read_list(const Entry& entry) {
  if (!has_value(entry))
    return false;
  if (!entry.value.IsSequence())
    return fail(entry.value.Mark(),
                in_quotes(entry.key.Scalar()) + " must be a list, not " + kind_of(entry.value));
  if (entry.value.size() == 0)
    return fail(entry.value.Mark(),
                in_quotes(entry.key.Scalar()) + " is an empty list: leave the key out or fill it");
  return true;
}

bool FieldReader::read_names(const Entry& entry, std::vector<Named>& out) {
  if (!read_list(entry))
    return false;
  for (const YAML::Node& item : entry.value) {
    if (!reject_empty(item, entry.key.Scalar()))
      return false;
    if (!item.IsScalar() || item.Scalar().empty())
      return fail(item.Mark(), "each entry of " + in_quotes(entry.key.Scalar()) +
                                   " is a name, not " + kind_of(item));
    for (const Named& earlier : out)
      if (earlier.text == item.Scalar())
        return fail(item.Mark(), in_quotes(item.Scalar()) + " is listed twice in " +
                                     in_quotes(entry.key.Scalar()));
    out.push_back(Named{item.Scalar(), item.Mark()});
  }
  return true;
}

bool FieldReader::read_duration(const Fields& fields, std::string_view key, Nanos bare_unit,
                                Nanos& out, YAML::Mark& mark) {
  return read_value(fields, key, [&](const std::string& text, const YAML::Mark& at) {
    mark = at;
    const Result<Nanos> duration = parse_duration(text, bare_unit);
    if (!duration.ok())
      return fail(mark, std::string(key) + ": " + duration.error().message);
    out = duration.value();
    return true;
  });
}

bool FieldReader::read_count(const Fields& fields, std::string_view key, std::uint32_t& out) {
  return read_value(fields, key, [&](const std::string& text, const YAML::Mark& mark) {
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        }))
      return fail(mark, std::string(key) + " must be a whole number, not " + in_quotes(text));
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
    std::uint64_t value = 0;
    for (char c : text) {
      value = value * 10 + static_cast<std::uint64_t>(c - '0');
      if (value > kMax)
        return fail(mark,
                    std::string(key) + " is too large (at most " + std::to_string(kMax) + ")");
    }
    if (value == 0)
      return fail(mark, std::string(key) + " must be at least 1");
    out = static_cast<std::uint32_t>(value);
    return true;
  });
}

} // namespace allocwatch
