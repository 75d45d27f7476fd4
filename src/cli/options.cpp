#include "cli/options.h"

#include "metrics/metrics_server.h"
#include "util/version.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <limits>

namespace allocwatch {

namespace {

// CLI11 validator and transform for durations: keeps parse_duration's message.
std::optional<Nanos> to_duration(const std::string& text, Nanos bare_unit, const char* what) {
  auto parsed = parse_duration(text, bare_unit);
  if (!parsed)
    throw CLI::ValidationError(what, parsed.error().message);
  if (*parsed <= 0)
    throw CLI::ValidationError(what, "must be greater than zero");
  return *parsed;
}

// --metrics-interval needs --metrics-file, --metrics-cgroups a metrics
// output; --listen must parse (its address is taken again, checked, when
// the server starts).
void check_metrics_options(const CLI::App& app, Options& o, const std::string& interval) {
  if (!interval.empty()) {
    if (!o.metrics_file)
      throw CLI::ValidationError("--metrics-interval", "is the period of --metrics-file");
    o.metrics_interval = *to_duration(interval, kSecond, "--metrics-interval");
  }
  if (app.count("--metrics-cgroups") > 0 && !o.metrics_file && !o.listen)
    throw CLI::ValidationError("--metrics-cgroups",
                               "bounds the series of --metrics-file and --listen");
  if (o.listen) {
    if (auto address = parse_listen_address(*o.listen); !address)
      throw CLI::ValidationError("--listen", address.error().message);
  }
  if (o.input && o.listen)
    throw CLI::ValidationError("--listen", "serves metrics while tracing live; a replay (-i) "
                                           "ends at once (--metrics-file keeps its result)");
}

// What --watch means unless the command line says otherwise: the watch
// profile, events mode (graph mode's cost is paid by every traced call, not
// only the slow ones: see allocwatch(8); main forces it unless --mode is
// given), and nothing that grows for weeks.
void apply_watch_defaults(const CLI::App& app, Options& o, bool format_given) {
  if (o.input)
    throw CLI::ValidationError("--watch", "watches the live kernel; it cannot replay (-i)");
  if (format_given)
    throw CLI::ValidationError("--watch", "writes each stall as a JSON record (a journal "
                                          "entry under systemd): --format is not for it");
  if (o.save)
    throw CLI::ValidationError("--watch", "runs for weeks: --save would grow without bound");
  if (app.count("--profile") == 0)
    o.profile = "watch";
  o.json = true;
}

} // namespace

ParsedOptions parse_options(int argc, const char* const* argv) {
  ParsedOptions result;
  Options& o = result.options;

  CLI::App app{"allocwatch: show what the kernel did during allocation stalls longer than a "
               "threshold\n(direct reclaim, compaction) and which shrinkers took the time.",
               "allocwatch"};
  app.get_formatter()->column_width(28);
  app.set_version_flag("-V,--version", std::string("allocwatch ") + kVersion);
  app.footer("Trace lines go to stdout, then the per-shrinker totals; the stall report and\n"
             "counts go to stderr (a live run on a terminal also shows a status line there).\n"
             "Ctrl-C (SIGINT), SIGTERM or SIGHUP end a live run: tracing is put back as it was.\n"
             "Exit status: 0 done (also after Ctrl-C), 1 error (also output that could not be\n"
             "written: stdout or any output file), 2 bad usage or profile. See allocwatch(8).");

  std::string threshold, duration, mode, source, format, metrics_interval;
  app.add_option("-t,--threshold", threshold,
                 "Report calls that took at least DUR (134us, 1.5ms, 500ns, 2s; bare number: us). "
                 "Default: the profile's")
      ->type_name("DUR");
  app.add_option("-p,--profile", o.profile,
                 "Profile NAME (see --list-profiles) or FILE.yaml (default: default)")
      ->type_name("NAME|FILE");
  app.add_option("-i,--input", o.input,
                 "Replay a saved trace instead of tracing: the text of trace_pipe or trace, a "
                 "--save file, or trace-cmd's trace.dat (- for stdin: text)")
      ->type_name("FILE");
  app.add_option("--buffer", o.buffer,
                 "Replay instance NAME's buffer of a trace.dat (default: the top-level buffer if "
                 "it holds records, else the one instance that does)")
      ->type_name("NAME");
  app.add_option("--mode", mode, "Force graph (function_graph) or events (tracepoint pairs) mode")
      ->type_name("graph|events")
      ->check(CLI::IsMember({"graph", "events"}).description(""));
  app.add_option("--source", source,
                 "Read the live trace as each CPU's binary trace_pipe_raw (default) or as the "
                 "text of trace_pipe")
      ->type_name("raw|text")
      ->check(CLI::IsMember({"raw", "text"}).description(""));
  app.add_option(
         "--format", format,
         "text: the kernel's lines, then shrinker totals (default); json: JSON Lines of the "
         "spans, shrinker totals and stall report")
      ->type_name("text|json")
      ->check(CLI::IsMember({"text", "json"}).description(""));
  app.add_option("--duration", duration, "Stop after DUR (bare number: seconds)")->type_name("DUR");
  app.add_option("-c,--command", o.command,
                 "Run CMD with sh -c while tracing; stop when it exits (its stdout goes to stderr)")
      ->type_name("CMD");
  app.add_option("--pid", o.pid, "Trace only PID and the children it forks from now on")
      ->type_name("PID")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()).description(""));
  app.add_option("--cgroup", o.cgroup,
                 "Trace only the tasks in cgroup PATH (and below it) at the start, and the "
                 "children they fork")
      ->type_name("PATH");
  app.add_option("--save", o.save,
                 "Also keep everything read in FILE (replay with -i): a trace.dat of the ring "
                 "buffer's pages (trace-cmd report opens it), or with --source text its lines")
      ->type_name("FILE");
  app.add_option("--report", o.report,
                 "Also write the stall report to FILE, every row of it (text, as on stderr)")
      ->type_name("FILE");
  app.add_option("--timeline", o.timeline,
                 "Write the slow calls to FILE as a timeline (Chrome trace-event JSON: Perfetto, "
                 "chrome://tracing)")
      ->type_name("FILE");
  app.add_option("--tracefs", o.tracefs_dir,
                 "Use the tracefs at DIR (default: found in /proc/mounts, mounted if missing)")
      ->type_name("DIR");
  app.add_flag("--watch", o.watch,
               "Run for weeks as a service: events mode and the watch profile unless given, "
               "each stall as a JSON record (a journal entry under systemd)");
  app.add_option("--metrics-file", o.metrics_file,
                 "Keep Prometheus metrics in FILE (node_exporter's textfile collector), "
                 "rewritten whole every --metrics-interval")
      ->type_name("FILE");
  app.add_option("--metrics-interval", metrics_interval,
                 "How often --metrics-file is rewritten (default: 15s; bare number: seconds)")
      ->type_name("DUR");
  app.add_option("--metrics-cgroups", o.metrics_cgroups,
                 "Give the N memory cgroups that stalled longest series of their own, per kind; "
                 "the rest are summed as cgroup=\"other\" (default: 10)")
      ->type_name("N")
      ->check(CLI::Range(0, 1000).description(""));
  app.add_option("--listen", o.listen,
                 "Serve Prometheus metrics at http://ADDR:PORT/metrics (a bare PORT: 127.0.0.1)")
      ->type_name("[ADDR:]PORT");
  app.add_flag("--check", o.check,
               "Validate the profile against this kernel, print the plan, change nothing");
  app.add_flag("--list-profiles", o.list_profiles, "List the profiles found and what each is for");
  app.add_flag("--restore", o.restore,
               "Put tracefs back from the journal of a run that was killed (kill -9)");
  app.add_flag("--force", o.force, "Start even if another tracer or another allocwatch is active");
  app.add_flag("-q,--quiet", o.quiet,
               "Do not print the plan, the stall report, the status line and counts on stderr");

  try {
    app.parse(argc, argv);
    if (!threshold.empty())
      o.threshold = to_duration(threshold, kMicro, "--threshold");
    if (!duration.empty())
      o.duration = to_duration(duration, kSecond, "--duration");
    o.json = format == "json";
    if (!mode.empty())
      o.mode = mode == "graph" ? Mode::Graph : Mode::Events;
    if (!source.empty())
      o.source = source == "raw" ? Source::Raw : Source::Text;
    check_metrics_options(app, o, metrics_interval);
    if (o.watch)
      apply_watch_defaults(app, o, !format.empty());
    if (o.input &&
        (o.command || o.pid || o.cgroup || o.save || o.duration || o.mode || o.source || o.check))
      throw CLI::ValidationError("--input",
                                 "a replay (-i) cannot take -c, --pid, --cgroup, --save, "
                                 "--duration, --mode, --source or --check: they are for live "
                                 "tracing");
    if (o.buffer && !o.input)
      throw CLI::ValidationError("--buffer", "picks a buffer of a trace.dat that -i replays");
    if (o.pid && o.cgroup)
      throw CLI::ValidationError("--cgroup", "--pid and --cgroup each pick the tasks: give one");
    if (o.restore && (o.input || o.check || o.list_profiles))
      throw CLI::ValidationError("--restore", "--restore runs alone");
    if ((o.report || o.timeline) && (o.check || o.list_profiles || o.restore))
      throw CLI::ValidationError("--report",
                                 "--report and --timeline are for a run that traces or replays");
  } catch (const CLI::ParseError& e) {
    result.exit_now = app.exit(e) == 0 ? 0 : 2;
  }
  return result;
}

} // namespace allocwatch
