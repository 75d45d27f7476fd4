#include "report/journal_fields.h"

#include <algorithm>
#include <array>

namespace allocwatch {

namespace {

// journald's own fields, and those sd_journal_send callers give meaning to.
constexpr std::array<std::string_view, 14> kReserved = {
    "MESSAGE",    "MESSAGE_ID",       "PRIORITY",
    "CODE_FILE",  "CODE_LINE",        "CODE_FUNC",
    "ERRNO",      "SYSLOG_FACILITY",  "SYSLOG_IDENTIFIER",
    "SYSLOG_PID", "SYSLOG_TIMESTAMP", "DOCUMENTATION",
    "TID",        "INVOCATION_ID"};

// A reader of the JSON that JsonSink writes: objects, arrays, strings,
// numbers, true/false/null. Strings may hold raw bytes that are not UTF-8
// (a comm is any bytes): they are kept, not refused.
class Reader {
public:
  explicit Reader(std::string_view text) : text_(text) {}

  Status object(const std::string& prefix, std::vector<JournalField>& out) {
    if (!take('{'))
      return fail("expected '{'");
    skip_space();
    if (take('}'))
      return Ok{};
    for (;;) {
      std::string key;
      if (Status s = string(key); !s)
        return s;
      if (!take(':'))
        return fail("expected ':'");
      const std::string name =
          prefix.empty() ? journal_field_name(key) : journal_field_name(prefix + "_" + key);
      if (Status s = value(name, out); !s)
        return s;
      if (take('}'))
        return Ok{};
      if (!take(','))
        return fail("expected ',' or '}'");
    }
  }

  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }

private:
  Status value(const std::string& name, std::vector<JournalField>& out) {
    skip_space();
    if (pos_ >= text_.size())
      return fail("a value is missing");
    if (text_[pos_] == '{')
      return object(name, out);
    if (text_[pos_] == '[') {
      ++pos_;
      skip_space();
      if (take(']'))
        return Ok{};
      for (;;) {
        if (Status s = value(name, out); !s)
          return s;
        if (take(']'))
          return Ok{};
        if (!take(','))
          return fail("expected ',' or ']'");
      }
    }
    std::string scalar;
    if (text_[pos_] == '"') {
      if (Status s = string(scalar); !s)
        return s;
    } else {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             std::string_view(",}] \t\n").find(text_[pos_]) == std::string_view::npos)
        ++pos_;
      scalar = text_.substr(start, pos_ - start);
      if (scalar.empty())
        return fail("a value is missing");
    }
    out.push_back({name, std::move(scalar)});
    return Ok{};
  }

  Status string(std::string& out) {
    skip_space();
    if (!take('"'))
      return fail("expected a string");
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"')
        return Ok{};
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size())
        break;
      const char e = text_[pos_++];
      switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u':
        if (Status s = unicode(out); !s)
          return s;
        break;
      default:
        out += e; // '"', '\\', '/'
      }
    }
    return fail("a string is not closed");
  }

  // \uXXXX: JsonSink writes \u00XX for control bytes; any other code point
  // is written back as UTF-8.
  Status unicode(std::string& out) {
    if (pos_ + 4 > text_.size())
      return fail("a \\u escape is cut short");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        code |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        code |= static_cast<unsigned>(h - 'A' + 10);
      else
        return fail("a \\u escape is not hexadecimal");
    }
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | code >> 6);
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | code >> 12);
      out += static_cast<char>(0x80 | (code >> 6 & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
    return Ok{};
  }

  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  Status fail(const std::string& what) const {
    return Error{"not a JSON record at byte " + std::to_string(pos_) + ": " + what};
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

} // namespace

std::string journal_field_name(std::string_view key) {
  std::string name;
  for (char c : key.substr(0, 64)) {
    if (c >= 'a' && c <= 'z')
      name += static_cast<char>(c - 'a' + 'A');
    else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
      name += c;
    else
      name += '_';
  }
  // Not empty, not starting with '_' (journald's trusted fields) or a digit.
  if (name.empty() || name[0] == '_' || (name[0] >= '0' && name[0] <= '9'))
    name.insert(0, "F");
  if (std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end())
    name.insert(0, "ALLOCWATCH_");
  return name.substr(0, 64);
}

Result<std::vector<JournalField>> journal_fields(std::string_view json_object) {
  Reader reader(json_object);
  std::vector<JournalField> fields;
  if (Status s = reader.object("", fields); !s)
    return s.error();
  if (!reader.at_end())
    return Error{"not a JSON record: text after the object"};
  return fields;
}

} // namespace allocwatch
