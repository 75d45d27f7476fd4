// The first look at a profile's text: its size, then its shape. yaml-cpp's parser events are walked
// before it builds a single node, and what a profile has no use for and
// yaml-cpp handles badly is refused there: an anchor or alias (`&a [*a]`
// builds a node that holds itself, which is never freed), a ',' outside a
// flow collection (yaml-cpp reads it as an empty document, again and again
// without end), a second document, more than kMaxProfileValues values.
#pragma once

#include "util/result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <yaml-cpp/yaml.h>

namespace allocwatch {

// A profile is a page of text (the shipped ones are under 5 KiB); anything
// larger is the wrong file (or /dev/zero). The bound also bounds yaml-cpp,
// whose scanner holds a token per '[' of "[[[[..." before it sees the end:
// 64 KiB of that costs it 15 MB and 0.1 s.
constexpr std::size_t kMaxProfileBytes = 64 * 1024;

// The file at `path`, if it is no larger than kMaxProfileBytes; errors are
// "PATH: why" ("PATH: cannot open: No such file or directory").
Result<std::string> read_profile_bytes(const std::string& path);

// Ok, or "NAME: larger than 64 KiB: not a profile" for a larger `text`.
Status check_profile_size(std::string_view text, const std::string& name);

// Far more values than any profile holds (the shipped ones have under 200).
constexpr std::size_t kMaxProfileValues = 10000;

// Where the text was refused, and why (the message without its location).
struct YamlRefusal {
  YAML::Mark mark;
  std::string message;
};

// The text's one YAML document (a null node when it holds none), or why it
// was refused: by the walk above, or as a syntax error ("syntax error: ...",
// naming a tab in the indentation, or nesting too deep, as such).
std::variant<YAML::Node, YamlRefusal> load_guarded_yaml(std::string_view text);

} // namespace allocwatch
