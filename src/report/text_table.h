// The report's text tables: cells in columns, indented by two, and
// durations in milliseconds. Every cell is already escaped for a terminal.
#pragma once

#include "util/duration.h"

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

// Milliseconds with three decimals, rounded to the nearest microsecond (half
// up), so that rows add up to their totals within rounding:
// 90,954,979 ns is "90.955".
std::string ms(Nanos ns);

// A table of text cells, indented by two, two spaces between columns; `align`
// has an 'l' (left) or 'r' (right) per column.
class Table {
public:
  Table(std::vector<std::string> headings, std::string_view align)
      : align_(align), rows_{std::move(headings)} {}
  void add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void write(std::ostream& out) const {
    std::vector<std::size_t> widths(rows_.front().size(), 0);
    for (const auto& row : rows_)
      for (std::size_t i = 0; i < row.size(); ++i)
        widths[i] = std::max(widths[i], row[i].size());
    for (const auto& row : rows_) {
      std::string line = " ";
      for (std::size_t i = 0; i < row.size(); ++i) {
        const std::string pad(widths[i] - row[i].size(), ' ');
        line += ' ';
        if (align_[i] == 'l')
          line += i + 1 == row.size() ? row[i] : row[i] + pad;
        else
          line += pad + row[i];
        if (i + 1 < row.size())
          line += ' ';
      }
      out << line << '\n';
    }
  }

private:
  std::string_view align_;
  std::vector<std::vector<std::string>> rows_;
};

// Writes the first `max_rows` of `rows` through `add`, then says how many
// were left out.
template <class Row, class Add>
void write_rows(std::ostream& out, const std::vector<Row>& rows, std::size_t max_rows, Table& table,
                Add add) {
  const std::size_t shown = std::min(rows.size(), max_rows);
  for (std::size_t i = 0; i < shown; ++i)
    add(*rows[i]);
  table.write(out);
  if (shown < rows.size())
    out << "  ... " << rows.size() - shown << " more rows (--report FILE has them all)\n";
}

} // namespace allocwatch
