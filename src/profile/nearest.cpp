#include "profile/nearest.h"

#include <algorithm>
#include <utility>

namespace allocwatch {

namespace {

// Levenshtein distance with one rolling row.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

} // namespace

std::optional<std::string> nearest(std::string_view word,
                                   const std::vector<std::string_view>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(candidate);
    }
  }
  return best;
}

std::vector<std::string> nearest_few(std::string_view word,
                                     const std::vector<std::string_view>& candidates,
                                     std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> ranked; // distance, index
  for (std::size_t i = 0; i < candidates.size(); ++i)
    ranked.emplace_back(edit_distance(word, candidates[i]), i);
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<std::string> few;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i)
    few.emplace_back(candidates[ranked[i].second]);
  return few;
}

} // namespace allocwatch
