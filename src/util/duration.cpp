#include "util/duration.h"

#include "util/escape.h"

#include <cctype>
#include <cstdio>

namespace allocwatch {

Result<Nanos> parse_duration(std::string_view text, Nanos bare_unit) {
  auto fail = [&](const char* why) -> Error {
    return Error{"invalid duration " + quote(text) + ": " + why +
                 " (examples: 134us, 1.5ms, 500ns, 2s)"};
  };
  std::size_t i = 0;
  Nanos whole = 0;
  std::size_t whole_digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (whole > 1'000'000'000'000LL)
      return fail("too large");
    whole = whole * 10 + (text[i] - '0');
    ++i;
    ++whole_digits;
  }
  // Fraction kept as an exact numerator over 10^frac_digits.
  Nanos frac = 0;
  Nanos frac_scale = 1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (frac_scale >= 1'000'000'000)
        return fail("too many decimals");
      frac = frac * 10 + (text[i] - '0');
      frac_scale *= 10;
      ++i;
    }
    if (frac_scale == 1)
      return fail("no digits after the point");
  }
  if (whole_digits == 0 && frac_scale == 1)
    return fail("no number");
  while (i < text.size() && text[i] == ' ')
    ++i;
  const std::string_view unit = text.substr(i);
  Nanos scale;
  if (unit.empty())
    scale = bare_unit;
  else if (unit == "ns")
    scale = 1;
  else if (unit == "us" || unit == "µs")
    scale = kMicro;
  else if (unit == "ms")
    scale = kMilli;
  else if (unit == "s")
    scale = kSecond;
  else
    return fail("unknown unit");
  if (whole > INT64_MAX / scale / 2)
    return fail("too large");
  const Nanos frac_ns = frac * scale;
  if (frac_ns % frac_scale != 0)
    return fail("finer than a nanosecond");
  return whole * scale + frac_ns / frac_scale;
}

std::string format_ms(Nanos ns) {
  const bool negative = ns < 0;
  const Nanos a = negative ? -ns : ns;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%lld.%06lld", negative ? "-" : "",
                static_cast<long long>(a / kMilli), static_cast<long long>(a % kMilli));
  return buf;
}

std::string format_duration(Nanos ns) {
  struct Unit {
    Nanos scale;
    const char* name;
  };
  for (Unit u : {Unit{kSecond, "s"}, Unit{kMilli, "ms"}, Unit{kMicro, "us"}}) {
    if (ns >= u.scale) {
      Nanos whole = ns / u.scale;
      Nanos rest = ns % u.scale;
      if (rest == 0)
        return std::to_string(whole) + u.name;
      // Up to three decimals when exact, e.g. 1.5ms; otherwise a smaller unit.
      if (rest % (u.scale / 1000) == 0) {
        std::string decimals = std::to_string(rest / (u.scale / 1000) + 1000).substr(1);
        while (decimals.back() == '0')
          decimals.pop_back();
        return std::to_string(whole) + "." + decimals + u.name;
      }
    }
  }
  return std::to_string(ns) + "ns";
}

} // namespace allocwatch
