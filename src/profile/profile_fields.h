// Reading a profile's YAML nodes as typed fields: maps of known keys, single
// values, lists of names, durations and counts. Every error is one line
// "FILE:LINE:COL: message", lines and columns 1-based; only the first one is
// kept. The rules of a profile (which keys, what they mean) are the
// loader's, which reads through a FieldReader.
#pragma once

#include "profile/profile.h"
#include "util/duration.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace allocwatch {

// Profile text in messages: quoted and escaped, so that no byte of it
// drives the terminal.
std::string in_quotes(std::string_view text);
// "a, b, c".
std::string joined(std::span<const std::string_view> words);
// " (did you mean 'x'?)" for the candidate nearest to `word`, or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);
// "a map", "a list", "a single value" or "nothing".
const char* kind_of(const YAML::Node& node);
// The 1-based position of a yaml-cpp mark.
SourcePos pos_of(const YAML::Mark& mark);

// Each read_*() and check returns true, or records the error and returns
// false, so that every caller can end with `if (!read_...(...)) return false`.
class FieldReader {
public:
  // A key of a map and its value, as written.
  struct Entry {
    YAML::Node key;
    YAML::Node value;
  };
  using Fields = std::map<std::string, Entry, std::less<>>;
  // A name as written, with where it was written.
  struct Named {
    std::string text;
    YAML::Mark mark;
  };

  // `file` stands for FILE in errors; `text` is what the nodes were read
  // from, and must outlive the reader.
  FieldReader(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {}

  const std::string& file() const { return file_; }
  std::string_view text() const { return text_; }
  // The first error, in full.
  const std::string& error() const { return error_; }

  // Records "FILE:LINE:COL: message" as the error; returns false.
  bool fail(const YAML::Mark& mark, const std::string& message);
  // "FILE:LINE:COL: ", 1-based.
  std::string located(const YAML::Mark& mark) const;

  // Refuses an empty entry ("-" and nothing after it) of the list `list`.
  bool reject_empty(const YAML::Node& item, std::string_view list);
  // Fills `fields` from `map`, refusing keys that are not names, unknown
  // keys and keys given twice (yaml-cpp would silently keep the first).
  bool read_fields(const YAML::Node& map, std::span<const std::string_view> known, Fields& fields);
  // An entry of the list `list` that must be a map: refuses an empty entry,
  // then anything else but a map ("`shape`, not a sequence": `shape` is
  // e.g. "a pair is a map with 'name', 'begin' and 'end'"), then reads its
  // fields as read_fields does.
  bool read_entry_fields(const YAML::Node& item, std::string_view list, std::string_view shape,
                         std::span<const std::string_view> known, Fields& fields);
  static const Entry* find(const Fields& fields, std::string_view key);
  bool read_scalar(const Entry& entry, std::string& out);
  // "true" or "false".
  bool read_bool(const Entry& entry, bool& out);
  // A list with at least one entry.
  bool read_list(const Entry& entry);
  // A list of plain names, none given twice.
  bool read_names(const Entry& entry, std::vector<Named>& out);

  // The single value of `key`, if given, through `parse(text, mark)`, which
  // returns false once it has fail()ed.
  template <class Parse> bool read_value(const Fields& fields, std::string_view key, Parse parse) {
    const Entry* entry = find(fields, key);
    if (!entry)
      return true;
    std::string text;
    return read_scalar(*entry, text) && parse(text, entry->value.Mark());
  }

  // These leave `out` as it is when `key` is not in `fields`.
  // A duration; a bare number is in `bare_unit`. `mark`: where it was given.
  bool read_duration(const Fields& fields, std::string_view key, Nanos bare_unit, Nanos& out,
                     YAML::Mark& mark);
  // A whole number from 1 to 2^32-1.
  bool read_count(const Fields& fields, std::string_view key, std::uint32_t& out);

private:
  bool has_value(const Entry& entry);
  // yaml-cpp marks an empty list entry at the token that follows it; this
  // is the mark of its "-".
  YAML::Mark mark_of_empty(const YAML::Node& node) const;

  std::string file_;
  std::string_view text_;
  std::string error_;
};

} // namespace allocwatch
