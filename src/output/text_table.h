// The report's text tables: cells in columns, indented by two, and
// durations in milliseconds. Every cell is already escaped for a terminal.
// A table written for a terminal fits its width: columns the caller names
// give way (a column dropped, text wrapped onto continuation lines); written
// whole otherwise (a file, --report).
#pragma once

#include "util/duration.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

// No width to fit: a file, or --report.
inline constexpr std::size_t kWhole = std::numeric_limits<std::size_t>::max();

// Milliseconds with three decimals, rounded to the nearest microsecond (half
// up), so that rows add up to their totals within rounding:
// 90,954,979 ns is "90.955".
std::string ms(Nanos ns);

// `text` cut into lines of at most `width` bytes: at '|' or ' ' (kept at the
// end of a line) where it can, else at '_' or '[', else anywhere.
std::vector<std::string> wrap_cell(std::string_view text, std::size_t width);

// Each line of `text` longer than `width`, cut at its spaces; the lines it
// continues on are indented by four.
void write_wrapped(std::ostream& out, std::string_view text, std::size_t width);

// A table of text cells, indented by two, two spaces between columns; `align`
// has an 'l' (left) or 'r' (right) per column.
class Table {
public:
  Table(std::vector<std::string> headings, std::string_view align)
      : align_(align), rows_{std::move(headings)} {}
  void add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  // To fit a width, `column` is left out, before any column is narrowed (a
  // whole column is clearer than cells cut into pieces).
  void drop_to_fit(std::size_t column) { droppable_.push_back(column); }
  // To fit a width, `column` is narrowed, its cells wrapped (wrap_cell), in
  // the order of these calls, each down to its longest heading word (and, a
  // right-aligned column, its widest value) or `min`.
  void narrow_to_fit(std::size_t column, std::size_t min = 0) {
    narrowed_.push_back({column, min});
  }

  // Whether write() at `width` leaves a column out.
  bool drops(std::size_t width) const;
  void write(std::ostream& out, std::size_t width = kWhole) const;

private:
  struct Narrowed {
    std::size_t column;
    std::size_t min;
  };
  std::vector<std::size_t> widths() const;
  static std::size_t total(const std::vector<std::size_t>& widths, const std::vector<bool>& shown);
  std::vector<bool> shown(std::size_t width) const;

  std::string_view align_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> droppable_;
  std::vector<Narrowed> narrowed_;
};

// Writes the first `max_rows` of `rows` through `add`, then says how many
// were left out.
template <class Row, class Add>
void write_rows(std::ostream& out, const std::vector<Row>& rows, std::size_t max_rows, Table& table,
                Add add, std::size_t width = kWhole) {
  const std::size_t shown = std::min(rows.size(), max_rows);
  for (std::size_t i = 0; i < shown; ++i)
    add(*rows[i]);
  table.write(out, width);
  if (shown < rows.size())
    out << "  ... " << rows.size() - shown << " more rows (--report FILE has them all)\n";
}

} // namespace allocwatch
