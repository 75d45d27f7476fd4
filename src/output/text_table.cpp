#include "output/text_table.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace allocwatch {

std::string ms(Nanos ns) {
  const Nanos us = (ns + kMicro / 2) / kMicro; // rounded, half up
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(us / 1000),
                static_cast<long long>(us % 1000));
  return text;
}

namespace {

// `text` in pieces, each ending after one of `breaks` (or at the end).
std::vector<std::string_view> pieces(std::string_view text, std::string_view breaks) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (breaks.find(text[i]) != std::string_view::npos) {
      out.push_back(text.substr(from, i + 1 - from));
      from = i + 1;
    }
  if (from < text.size())
    out.push_back(text.substr(from));
  return out;
}

// Greedy: as many pieces on a line as fit; a piece too long for a line is
// cut finer (`finer` breaks, then anywhere).
void pack(std::string_view text, std::size_t width, std::string_view breaks, std::string_view finer,
          std::vector<std::string>& lines) {
  std::string line;
  for (std::string_view piece : pieces(text, breaks)) {
    if (line.size() + piece.size() <= width) {
      line += piece;
      continue;
    }
    if (!line.empty())
      lines.push_back(std::move(line));
    line.clear();
    if (piece.size() <= width) {
      line = piece;
    } else if (!finer.empty()) {
      pack(piece, width, finer, {}, lines);
      line = std::move(lines.back()); // the last part may take what follows
      lines.pop_back();
    } else {
      for (; piece.size() > width; piece.remove_prefix(width))
        lines.emplace_back(piece.substr(0, width));
      line = piece;
    }
  }
  if (!line.empty() || lines.empty())
    lines.push_back(std::move(line));
}

// The longest piece of a heading cut at its words.
std::size_t longest_word(std::string_view text) {
  std::size_t longest = 0;
  for (std::string_view piece : pieces(text, "_ "))
    longest = std::max(longest, piece.size());
  return longest;
}

} // namespace

std::vector<std::string> wrap_cell(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  if (text.size() <= width || width == 0) {
    lines.emplace_back(text);
    return lines;
  }
  pack(text, width, "| ", "_[", lines);
  return lines;
}

void write_wrapped(std::ostream& out, std::string_view text, std::size_t width) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    std::string indent;
    while (line.size() + indent.size() > width) {
      const std::size_t room = width - indent.size();
      std::size_t cut = line.rfind(' ', room);
      if (cut == std::string_view::npos || cut == 0)
        cut = room; // one word wider than the line
      out << indent << line.substr(0, cut) << '\n';
      line.remove_prefix(std::min(line.size(), cut + (line[cut] == ' ' ? 1 : 0)));
      indent = "    ";
    }
    out << indent << line << '\n';
  }
}

std::vector<std::size_t> Table::widths() const {
  std::vector<std::size_t> widths(rows_.front().size(), 0);
  for (const auto& row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
  return widths;
}

std::size_t Table::total(const std::vector<std::size_t>& widths, const std::vector<bool>& shown) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < widths.size(); ++i)
    if (shown[i])
      total += 2 + widths[i]; // the indent, or the space before the column
  return total;
}

std::vector<bool> Table::shown(std::size_t width) const {
  std::vector<bool> shown(rows_.front().size(), true);
  const std::vector<std::size_t> natural = widths();
  for (std::size_t column : droppable_)
    if (total(natural, shown) > width)
      shown[column] = false;
  return shown;
}

bool Table::drops(std::size_t width) const {
  const std::vector<bool> kept = shown(width);
  return std::find(kept.begin(), kept.end(), false) != kept.end();
}

void Table::write(std::ostream& out, std::size_t width) const {
  std::vector<std::size_t> widths = this->widths();
  const std::vector<bool> shown = this->shown(width);
  for (const Narrowed& n : narrowed_) {
    const std::size_t over = total(widths, shown);
    if (over <= width)
      break;
    // Not below its longest heading word, nor a right-aligned value.
    std::size_t min = std::max(n.min, longest_word(rows_.front()[n.column]));
    if (align_[n.column] == 'r')
      for (std::size_t r = 1; r < rows_.size(); ++r)
        min = std::max(min, rows_[r][n.column].size());
    widths[n.column] = std::max(min, widths[n.column] - std::min(widths[n.column], over - width));
  }
  for (const auto& row : rows_) {
    std::vector<std::vector<std::string>> cells(row.size());
    std::size_t lines = 1;
    for (std::size_t i = 0; i < row.size(); ++i)
      if (shown[i]) {
        cells[i] = wrap_cell(row[i], widths[i]);
        lines = std::max(lines, cells[i].size());
      }
    const std::size_t last = static_cast<std::size_t>(
        std::find(shown.rbegin(), shown.rend(), true).base() - shown.begin() - 1);
    for (std::size_t l = 0; l < lines; ++l) {
      std::string line = " ";
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (!shown[i])
          continue;
        const std::string cell = l < cells[i].size() ? cells[i][l] : std::string();
        const std::string pad(widths[i] - std::min(widths[i], cell.size()), ' ');
        line += ' ';
        if (align_[i] == 'l')
          line += i == last ? cell : cell + pad;
        else
          line += pad + cell;
        if (i != last)
          line += ' ';
      }
      if (l > 0) // a continuation: no trailing blanks
        line.erase(line.find_last_not_of(' ') + 1);
      out << line << '\n';
    }
  }
}

} // namespace allocwatch
