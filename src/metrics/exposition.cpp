#include "metrics/exposition.h"

#include <algorithm>

namespace allocwatch {

namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd"; // U+FFFD

// The length of the valid UTF-8 sequence at the start of `s`, or 0.
std::size_t utf8_sequence(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80)
    return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf; // the second byte's range
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0)
      low = 0xa0; // no overlong forms
    if (lead == 0xed)
      high = 0x9f; // no surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0)
      low = 0x90;
    if (lead == 0xf4)
      high = 0x8f; // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < length || byte(1) < low || byte(1) > high)
    return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xbf)
      return 0;
  return length;
}

void append_label_value(std::string& out, std::string_view value) {
  for (char c : valid_utf8(value)) {
    if (c == '\\' || c == '"')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
}

const char* type_name(Exposition::Type type) {
  switch (type) {
  case Exposition::Type::Counter:
    return "counter";
  case Exposition::Type::Gauge:
    return "gauge";
  case Exposition::Type::Histogram:
    return "histogram";
  }
  return "untyped";
}

} // namespace

void DurationHistogram::add(Nanos duration) {
  const auto bucket = std::lower_bound(kUpperBounds.begin(), kUpperBounds.end(), duration);
  if (bucket != kUpperBounds.end())
    ++in_bucket_[static_cast<std::size_t>(bucket - kUpperBounds.begin())];
  ++count_;
  sum_ += duration;
}

std::uint64_t DurationHistogram::cumulative(std::size_t i) const {
  std::uint64_t total = 0;
  for (std::size_t b = 0; b <= i && b < in_bucket_.size(); ++b)
    total += in_bucket_[b];
  return total;
}

std::string seconds_text(Nanos ns) {
  const bool negative = ns < 0;
  // As unsigned: the magnitude of the most negative value fits.
  const std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  std::string text = (negative ? "-" : "") + std::to_string(magnitude / kSecond);
  std::string fraction = std::to_string(magnitude % kSecond);
  fraction.insert(0, 9 - fraction.size(), '0');
  fraction.erase(fraction.find_last_not_of('0') + 1);
  if (!fraction.empty())
    text += '.' + fraction;
  return text;
}

std::string valid_utf8(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  while (!value.empty()) {
    const std::size_t length = utf8_sequence(value);
    if (length == 0) {
      out += kReplacement;
      value.remove_prefix(1);
    } else {
      out += value.substr(0, length);
      value.remove_prefix(length);
    }
  }
  return out;
}

void Exposition::family(std::string_view name, Type type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  for (char c : help) {
    if (c == '\\')
      text_ += "\\\\";
    else if (c == '\n')
      text_ += "\\n";
    else
      text_ += c;
  }
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type_name(type);
  text_ += '\n';
}

void Exposition::head(std::string_view name, std::string_view suffix,
                      std::initializer_list<Label> labels, const Label* extra) {
  text_ += name;
  text_ += suffix;
  if (labels.size() > 0 || extra) {
    char separator = '{';
    auto add = [&](const Label& label) {
      text_ += separator;
      text_ += label.name;
      text_ += "=\"";
      append_label_value(text_, label.value);
      text_ += '"';
      separator = ',';
    };
    for (const Label& label : labels)
      add(label);
    if (extra)
      add(*extra);
    text_ += '}';
  }
  text_ += ' ';
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels,
                        std::uint64_t value) {
  head(name, "", labels);
  text_ += std::to_string(value);
  text_ += '\n';
}

void Exposition::sample_seconds(std::string_view name, std::initializer_list<Label> labels,
                                Nanos value) {
  head(name, "", labels);
  text_ += seconds_text(value);
  text_ += '\n';
}

void Exposition::histogram(std::string_view name, std::initializer_list<Label> labels,
                           const DurationHistogram& histogram) {
  for (std::size_t i = 0; i < DurationHistogram::kUpperBounds.size(); ++i) {
    const std::string bound = seconds_text(DurationHistogram::kUpperBounds[i]);
    const Label le{"le", bound};
    head(name, "_bucket", labels, &le);
    text_ += std::to_string(histogram.cumulative(i));
    text_ += '\n';
  }
  const Label inf{"le", "+Inf"};
  head(name, "_bucket", labels, &inf);
  text_ += std::to_string(histogram.count());
  text_ += '\n';
  head(name, "_sum", labels);
  text_ += seconds_text(histogram.sum());
  text_ += '\n';
  head(name, "_count", labels);
  text_ += std::to_string(histogram.count());
  text_ += '\n';
}

} // namespace allocwatch
