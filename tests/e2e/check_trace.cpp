// e2e-check: checks allocwatch's graph-mode output against the raw trace it
// saved, without any of allocwatch's code: its own parser, its own spans.
//
//   e2e-check THRESHOLD_US RAW            print what RAW holds
//   e2e-check [--carried F:BEGIN:END]... THRESHOLD_US RAW OUTPUT
//                                         check OUTPUT, print ok/FAIL lines
//   e2e-check --forms RAW                 count RAW's function_graph line forms
//
// Spans, as DESIGN.md defines them: a return `} /* f */` with duration d at
// time t is [t - d, t]; a complete mm_shrink_slab_start/end pair (same pid,
// same shrinker instance, at most one start open per pid) is [start, end].
// Checks:
//   - returns: OUTPUT holds every return line of RAW that is over threshold,
//     and none under it;
//   - shrink pairs: OUTPUT holds both lines of every over-threshold pair;
//   - binding: every tracepoint line of OUTPUT is a line of RAW (each used at
//     most once) whose pid has an over-threshold span that contains its
//     timestamp (1 us slack before the start) and closes at or after it;
//   - reclaim/compaction: some try_to_free_pages span in OUTPUT carries its
//     mm_vmscan_direct_reclaim_begin and _end, some compact_zone span its
//     mm_compaction_begin and _end, and each --carried function F some span
//     with its BEGIN and END events;
//   - shrinker totals: OUTPUT's totals per shrinker, and per instance of
//     those with several, equal the sums over RAW's complete pairs.
// Exit status 0 when every check passed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

using Nanos = std::int64_t;
constexpr Nanos kMicro = 1000;

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "123.456789" in units of 10^-frac_digits, exactly: fewer decimals are
// scaled up ("57988.55" us), more are refused.
std::optional<Nanos> parse_fixed(std::string_view s, int frac_digits) {
  const auto dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(frac)) ||
      static_cast<int>(frac.size()) > frac_digits)
    return std::nullopt;
  Nanos value = 0;
  for (char c : whole)
    value = value * 10 + (c - '0');
  for (int i = 0; i < frac_digits; ++i)
    value = value * 10 + (i < static_cast<int>(frac.size()) ? frac[i] - '0' : 0);
  return value;
}

enum class Kind { Return, Event };

// One function_graph line with funcgraph-abstime and funcgraph-proc:
//   "  16.180496 |   1)   kswapd0-44   | ! 220.928 us  |    } /* shrink_lruvec */"
//   "  16.180735 |   1)   kswapd0-44   |               |  /* mm_shrink_slab_end: ... */"
struct Line {
  Kind kind;
  Nanos ts;
  int cpu;
  int pid;
  Nanos duration = -1; // returns
  std::string name;    // function or event
  std::string fields;  // events
};

std::optional<Line> parse_line(std::string_view text) {
  // The body may contain '|' (gfp flags): split the three leading columns only.
  std::size_t bars[3];
  std::size_t from = 0;
  for (auto& bar : bars) {
    bar = text.find('|', from);
    if (bar == std::string_view::npos)
      return std::nullopt;
    from = bar + 1;
  }
  const auto ts = parse_fixed(trim(text.substr(0, bars[0])), 6);
  const std::string_view cpu_proc = trim(text.substr(bars[0] + 1, bars[1] - bars[0] - 1));
  const std::string_view dur = trim(text.substr(bars[1] + 1, bars[2] - bars[1] - 1));
  const std::string_view body = trim(text.substr(bars[2] + 1));
  const auto paren = cpu_proc.find(')');
  const auto dash = cpu_proc.rfind('-');
  if (!ts || paren == std::string_view::npos || dash == std::string_view::npos || dash < paren ||
      !all_digits(trim(cpu_proc.substr(0, paren))) || !all_digits(cpu_proc.substr(dash + 1)))
    return std::nullopt;
  Line line{};
  line.ts = *ts * kMicro;
  line.cpu = std::stoi(std::string(trim(cpu_proc.substr(0, paren))));
  line.pid = std::stoi(std::string(cpu_proc.substr(dash + 1)));
  if (body.starts_with("} /* ") && body.ends_with(" */")) {
    // Duration column: optional mark ("+ ! # * @ $"), number, "us".
    std::string_view d = dur;
    if (!d.empty() && std::string_view("+!#*@$").find(d.front()) != std::string_view::npos)
      d = trim(d.substr(1));
    if (!d.ends_with("us"))
      return std::nullopt;
    const auto us = parse_fixed(trim(d.substr(0, d.size() - 2)), 3);
    if (!us)
      return std::nullopt;
    line.kind = Kind::Return;
    line.duration = *us;
    line.name = std::string(body.substr(5, body.size() - 8));
    return line;
  }
  if (body.starts_with("/* ") && body.ends_with(" */") && dur.empty()) {
    const std::string_view inner = body.substr(3, body.size() - 6);
    const auto colon = inner.find(": ");
    if (colon == std::string_view::npos)
      return std::nullopt;
    line.kind = Kind::Event;
    line.name = std::string(inner.substr(0, colon));
    line.fields = std::string(inner.substr(colon + 2));
    return line;
  }
  return std::nullopt;
}

// Tasks: pid, except that pid 0 is one idle task per cpu.
using Task = std::pair<int, int>;
Task task_of(const Line& l) {
  return {l.pid, l.pid == 0 ? l.cpu : -1};
}

// "super_cache_scan+0x0/0x1f0 00000000ce7941b5: nid: 0 ..." -> name, instance.
// A shrinker in a module prints its module too (%pS):
// "ext4_es_scan+0x0/0x3b0 [ext4] 000000007988191a: nid: 0 ...".
std::optional<std::pair<std::string, std::string>> shrinker_of(const std::string& fields) {
  const auto colon = fields.find(':');
  const auto plus = fields.find('+');
  if (colon == std::string::npos || plus == std::string::npos || plus > colon)
    return std::nullopt;
  const auto space = fields.rfind(' ', colon);
  if (space == std::string::npos || space < plus)
    return std::nullopt;
  return std::pair{fields.substr(0, plus), fields.substr(space + 1, colon - space - 1)};
}

struct Span {
  std::string name;
  Nanos start;
  Nanos end;
  std::size_t close_index; // index in RAW of the line that closes it
  std::vector<std::size_t> own_lines;
};

struct Totals {
  Nanos total = 0;
  Nanos max = 0;
  std::uint64_t calls = 0;
  void add(Nanos d) {
    total += d;
    max = std::max(max, d);
    ++calls;
  }
};

struct Raw {
  std::vector<std::string> text;
  std::vector<std::optional<Line>> lines;
  std::map<Task, std::vector<Span>> spans; // over threshold only
  std::map<std::string, std::uint64_t> returns_over, pairs_over;
  std::map<std::string, Totals> per_shrinker;
  std::map<std::pair<std::string, std::string>, Totals> per_instance;
  std::uint64_t unmatched_ends = 0, replaced_starts = 0, unparsed = 0;
};

Raw read_raw(const char* path, Nanos threshold) {
  Raw raw;
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(std::string("cannot read ") + path);
  struct Open {
    Nanos ts;
    std::size_t index;
    std::string name, instance;
  };
  std::map<Task, Open> open_starts;
  for (std::string text; std::getline(in, text);) {
    const std::size_t index = raw.text.size();
    auto line = parse_line(text);
    raw.text.push_back(std::move(text));
    if (!line) {
      ++raw.unparsed;
      raw.lines.emplace_back();
      continue;
    }
    const Task task = task_of(*line);
    if (line->kind == Kind::Return && line->duration >= threshold) {
      raw.spans[task].push_back({line->name, line->ts - line->duration, line->ts, index, {index}});
      ++raw.returns_over[line->name];
    } else if (line->kind == Kind::Event && line->name == "mm_shrink_slab_start") {
      if (auto s = shrinker_of(line->fields)) {
        if (open_starts.erase(task))
          ++raw.replaced_starts;
        open_starts[task] = {line->ts, index, s->first, s->second};
      }
    } else if (line->kind == Kind::Event && line->name == "mm_shrink_slab_end") {
      const auto s = shrinker_of(line->fields);
      const auto it = open_starts.find(task);
      if (!s || it == open_starts.end() || it->second.instance != s->second) {
        ++raw.unmatched_ends;
      } else {
        const Nanos d = line->ts - it->second.ts;
        raw.per_shrinker[s->first].add(d);
        raw.per_instance[{s->first, s->second}].add(d);
        if (d >= threshold) {
          raw.spans[task].push_back(
              {"mm_shrink_slab", it->second.ts, line->ts, index, {it->second.index, index}});
          ++raw.pairs_over[s->first];
        }
        open_starts.erase(it);
      }
    }
    raw.lines.push_back(std::move(line));
  }
  return raw;
}

std::string format_ms(Nanos ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld.%06lld", static_cast<long long>(ns / 1000000),
                static_cast<long long>(ns % 1000000));
  return buf;
}

int failures = 0;
void report(bool ok, const std::string& what) {
  std::cout << (ok ? "ok " : "FAIL ") << what << "\n";
  failures += ok ? 0 : 1;
}

// "NAME : total time = 8.455000 ms, max latency = 0.466000 ms[, calls = N]"
// "NAME[INSTANCE] : total time = ..., max latency = ..., calls = N"
struct TotalsLine {
  std::string name, instance;
  Nanos total, max;
  std::optional<std::uint64_t> calls;
};

std::optional<TotalsLine> parse_totals(std::string_view s) {
  const auto sep = s.find(" : total time = ");
  if (sep == std::string_view::npos)
    return std::nullopt;
  TotalsLine t;
  std::string_view who = s.substr(0, sep);
  if (who.ends_with(']')) {
    const auto open = who.find('[');
    if (open == std::string_view::npos)
      return std::nullopt;
    t.instance = std::string(who.substr(open + 1, who.size() - open - 2));
    who = who.substr(0, open);
  }
  t.name = std::string(who);
  std::string_view rest = s.substr(sep + 16);
  const auto ms1 = rest.find(" ms, max latency = ");
  if (ms1 == std::string_view::npos)
    return std::nullopt;
  const auto total = parse_fixed(rest.substr(0, ms1), 6);
  rest = rest.substr(ms1 + 19);
  const auto ms2 = rest.find(" ms");
  if (ms2 == std::string_view::npos)
    return std::nullopt;
  const auto max = parse_fixed(rest.substr(0, ms2), 6);
  rest = rest.substr(ms2 + 3);
  if (!total || !max)
    return std::nullopt;
  t.total = *total;
  t.max = *max;
  if (rest.starts_with(", calls = ") && all_digits(rest.substr(10)))
    t.calls = std::stoull(std::string(rest.substr(10)));
  else if (!rest.empty())
    return std::nullopt;
  return t;
}

void describe_raw(const Raw& raw) {
  std::cout << "raw: " << raw.text.size() << " lines, " << raw.unparsed << " not trace lines, "
            << raw.unmatched_ends << " unmatched shrink ends, " << raw.replaced_starts
            << " replaced shrink starts\n";
  for (const auto& [name, n] : raw.returns_over)
    std::cout << "raw: " << n << " returns over threshold: " << name << "\n";
  for (const auto& [name, n] : raw.pairs_over)
    std::cout << "raw: " << n << " shrink pairs over threshold: " << name << "\n";
  for (const auto& [name, t] : raw.per_shrinker)
    std::cout << "raw: " << name << " : total time = " << format_ms(t.total)
              << " ms, max latency = " << format_ms(t.max) << " ms, calls = " << t.calls << "\n";
}

struct Carried {
  std::string function, begin, end;
};

int check(const Raw& raw, const char* output_path, Nanos threshold,
          const std::vector<Carried>& extra_carried) {
  std::ifstream in(output_path);
  if (!in)
    throw std::runtime_error(std::string("cannot read ") + output_path);
  // Where each RAW text occurs, so OUTPUT lines can be found and used once.
  std::unordered_map<std::string_view, std::vector<std::size_t>> where;
  for (std::size_t i = 0; i < raw.text.size(); ++i)
    if (raw.lines[i])
      where[raw.text[i]].push_back(i);
  std::vector<bool> used(raw.text.size());

  struct Bound {
    const Span* span;
    std::string event;
  };
  std::vector<Bound> bound;
  std::map<std::string, std::uint64_t> events_out, returns_out;
  std::vector<TotalsLine> totals;
  std::uint64_t foreign = 0, unbound = 0, under = 0, other = 0;
  std::string first_foreign, first_unbound, first_under;

  for (std::string text; std::getline(in, text);) {
    const auto line = parse_line(text);
    if (!line) {
      if (auto t = parse_totals(text))
        totals.push_back(*t);
      else
        ++other;
      continue;
    }
    const auto it = where.find(text);
    const std::vector<std::size_t> none;
    const auto& candidates = it == where.end() ? none : it->second;
    if (line->kind == Kind::Return) {
      ++returns_out[line->name];
      const auto free = std::find_if(candidates.begin(), candidates.end(),
                                     [&](std::size_t i) { return !used[i]; });
      if (free == candidates.end()) {
        if (!foreign++)
          first_foreign = text;
      } else {
        used[*free] = true;
      }
      if (line->duration < threshold && !under++)
        first_under = text;
      continue;
    }
    ++events_out[line->name];
    // The first unused occurrence in RAW that an over-threshold span of the
    // same task contains (1 us slack) and closes at or after.
    const auto task_spans = raw.spans.find(task_of(*line));
    const Span* host = nullptr;
    bool found = false;
    for (std::size_t i : candidates) {
      if (used[i])
        continue;
      found = true;
      if (task_spans == raw.spans.end())
        break;
      for (const Span& s : task_spans->second)
        if (s.start - kMicro <= line->ts && line->ts <= s.end && i <= s.close_index) {
          host = &s;
          break;
        }
      if (host) {
        used[i] = true;
        break;
      }
    }
    if (!found) {
      if (!foreign++)
        first_foreign = text;
    } else if (!host) {
      if (!unbound++)
        first_unbound = text;
    } else {
      bound.push_back({host, line->name});
    }
  }

  auto counts = [](const char* what, const std::map<std::string, std::uint64_t>& n) {
    std::cout << "output: " << what << ":";
    for (auto it = n.begin(); it != n.end(); ++it)
      std::cout << (it == n.begin() ? " " : ", ") << it->first << " " << it->second;
    std::cout << "\n";
  };
  counts("returns", returns_out);
  counts("tracepoint lines", events_out);
  std::cout << "output: " << totals.size() << " shrinker total lines, " << other
            << " other lines\n";

  report(foreign == 0, "every trace line of the output is a line of the raw trace, used once (" +
                           std::to_string(foreign) + " not" +
                           (foreign ? ", first: " + first_foreign : std::string()) + ")");
  report(under == 0, "no return under the threshold is printed (" + std::to_string(under) +
                         (under ? ", first: " + first_under : std::string()) + ")");
  report(unbound == 0, "every tracepoint line lies in an over-threshold span of its pid (" +
                           std::to_string(unbound) + " outside" +
                           (unbound ? ", first: " + first_unbound : std::string()) + ")");

  // Every over-threshold span of RAW prints its own line(s).
  std::uint64_t missing = 0, spans_total = 0;
  std::string first_missing;
  for (const auto& [task, spans] : raw.spans)
    for (const Span& s : spans) {
      ++spans_total;
      for (std::size_t i : s.own_lines)
        if (!used[i] && !missing++)
          first_missing = raw.text[i];
    }
  report(missing == 0, "all " + std::to_string(spans_total) +
                           " over-threshold spans of the raw trace print their own lines (" +
                           std::to_string(missing) + " lines missing" +
                           (missing ? ", first: " + first_missing : std::string()) + ")");

  // Slow reclaim and compaction with their own tracepoints inside.
  auto carried = [&](const std::string& fn, const std::string& begin, const std::string& end) {
    std::map<const Span*, std::set<std::string>> seen;
    for (const Bound& b : bound)
      if (b.span->name == fn)
        seen[b.span].insert(b.event);
    std::uint64_t with_both = 0;
    for (const auto& [span, events] : seen)
      with_both += events.count(begin) && events.count(end);
    const std::uint64_t n = returns_out.count(fn) ? returns_out.at(fn) : 0;
    report(n > 0 && with_both > 0, std::to_string(n) + " " + fn + " returns >= threshold, " +
                                       std::to_string(with_both) + " with " + begin + " and " +
                                       end + " bound");
  };
  carried("try_to_free_pages", "mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end");
  carried("compact_zone", "mm_compaction_begin", "mm_compaction_end");
  for (const Carried& c : extra_carried)
    carried(c.function, c.begin, c.end);

  // Shrinker totals, per shrinker and per instance, both ways.
  std::uint64_t wrong = 0;
  std::string first_wrong;
  auto mismatch = [&](const std::string& what) {
    if (!wrong++)
      first_wrong = what;
  };
  std::set<std::string> names_seen;
  std::set<std::pair<std::string, std::string>> instances_seen;
  for (const TotalsLine& t : totals) {
    const Totals* want = nullptr;
    if (t.instance.empty()) {
      names_seen.insert(t.name);
      const auto it = raw.per_shrinker.find(t.name);
      want = it == raw.per_shrinker.end() ? nullptr : &it->second;
    } else {
      instances_seen.insert({t.name, t.instance});
      const auto it = raw.per_instance.find({t.name, t.instance});
      want = it == raw.per_instance.end() ? nullptr : &it->second;
    }
    const std::string who = t.name + (t.instance.empty() ? "" : "[" + t.instance + "]");
    if (!want)
      mismatch(who + " has no complete pair in the raw trace");
    else if (want->total != t.total || want->max != t.max || (t.calls && *t.calls != want->calls))
      mismatch(who + ": printed " + format_ms(t.total) + "/" + format_ms(t.max) + " ms, raw " +
               format_ms(want->total) + "/" + format_ms(want->max) + " ms, " +
               std::to_string(want->calls) + " calls");
  }
  for (const auto& [name, t] : raw.per_shrinker)
    if (!names_seen.count(name))
      mismatch(name + " has no total line");
  // Instances are told apart where a function has several (every superblock
  // has its own super_cache_scan); a lone instance may go unnamed.
  std::map<std::string, int> instances_of;
  for (const auto& [key, t] : raw.per_instance)
    ++instances_of[key.first];
  for (const auto& [key, t] : raw.per_instance)
    if (instances_of[key.first] > 1 && !instances_seen.count(key))
      mismatch(key.first + "[" + key.second + "] has no total line");
  report(!totals.empty() && wrong == 0,
         std::to_string(raw.per_shrinker.size()) + " shrinkers and " +
             std::to_string(raw.per_instance.size()) +
             " instances: printed totals equal the raw trace's pairs (" + std::to_string(wrong) +
             " wrong" + (wrong ? ", first: " + first_wrong : std::string()) + ")");
  return failures == 0 ? 0 : 1;
}

} // namespace

// The form of each function_graph line of a trace taken with any threshold
// (tracing_thresh 0 prints entries and leaves too), by its body: what the
// kernel's options (funcgraph-args, funcgraph-retval) change.
int count_forms(const char* path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(std::string("cannot read ") + path);
  std::map<std::string, std::uint64_t> forms;
  std::string first_other;
  for (std::string text; std::getline(in, text);) {
    std::size_t bar = 0, bars = 0;
    for (std::size_t from = 0; bars < 3; ++bars, from = bar + 1)
      if ((bar = text.find('|', from)) == std::string::npos)
        break;
    const std::string_view body =
        bars == 3 ? trim(std::string_view(text).substr(bar + 1)) : std::string_view{};
    std::string form;
    if (bars < 3) {
      form = "no columns (banners, markers)";
    } else if (body == "}") {
      form = "return }";
    } else if (body.starts_with("} /* ") && body.ends_with(" */")) {
      const std::string_view inner = body.substr(5, body.size() - 8);
      form = inner.find(' ') == std::string_view::npos ? "return } /* f */"
                                                       : "return with a value } /* f ... */";
    } else if (body.starts_with("/* ")) {
      form = "event";
    } else if (const auto open = body.find('('); open != std::string_view::npos && open > 0) {
      const bool args = open + 1 < body.size() && body[open + 1] != ')';
      const auto close = body.rfind(')');
      const std::string_view after =
          close == std::string_view::npos ? std::string_view{} : body.substr(close + 1);
      const char* kind = after.starts_with(" {") ? "entry" : after.starts_with(";") ? "leaf" : "";
      if (*kind == 0) {
        form = "other";
      } else {
        form = std::string(kind) + (args ? " with arguments f(a=1) " : " f() ") +
               (after.find("/*") != std::string_view::npos ? "with a comment" : "");
      }
    } else {
      form = "other";
    }
    if (form == "other" && first_other.empty())
      first_other = text;
    ++forms[form];
  }
  for (const auto& [form, n] : forms)
    std::cout << "forms: " << n << " " << trim(form) << "\n";
  if (!first_other.empty())
    std::cout << "forms: first other: " << first_other << "\n";
  return 0;
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* usage = "usage: e2e-check [--carried F:BEGIN:END]... THRESHOLD_US RAW [OUTPUT]\n"
                      "       e2e-check --forms RAW\n";
  try {
    if (args.size() == 2 && args[0] == "--forms")
      return count_forms(args[1].c_str());
    std::vector<Carried> carried;
    while (args.size() >= 2 && args[0] == "--carried") {
      const auto colon1 = args[1].find(':');
      const auto colon2 = args[1].find(':', colon1 == std::string::npos ? 0 : colon1 + 1);
      if (colon2 == std::string::npos)
        throw std::runtime_error("--carried wants FUNCTION:BEGIN:END, not " + args[1]);
      carried.push_back({args[1].substr(0, colon1), args[1].substr(colon1 + 1, colon2 - colon1 - 1),
                         args[1].substr(colon2 + 1)});
      args.erase(args.begin(), args.begin() + 2);
    }
    if (args.size() != 2 && args.size() != 3) {
      std::cerr << usage;
      return 2;
    }
    const auto us = parse_fixed(args[0], 3);
    if (!us)
      throw std::runtime_error("bad threshold " + args[0]);
    const Raw raw = read_raw(args[1].c_str(), *us);
    describe_raw(raw);
    return args.size() == 3 ? check(raw, args[2].c_str(), *us, carried) : 0;
  } catch (const std::exception& e) {
    std::cerr << "e2e-check: " << e.what() << "\n";
    return 2;
  }
}
