// "Did you mean ...?" for misspelt keys, events, functions and profile names.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

// The candidate closest to `word` by edit distance, if it is close enough to
// be a plausible typo (two edits, or a third of the word's length if that is
// more); the first of equally close ones.
std::optional<std::string> nearest(std::string_view word,
                                   const std::vector<std::string_view>& candidates);

// Up to `count` candidates, closest to `word` first (ties in the candidates'
// order), however far: what there is instead of `word`, nearest first.
std::vector<std::string> nearest_few(std::string_view word,
                                     const std::vector<std::string_view>& candidates,
                                     std::size_t count);

} // namespace allocwatch
