#include "bind/shrinker_stats.h"
#include "output/fanout_sink.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {
class Recorder : public Sink {
public:
  Recorder(std::vector<std::string>& log, std::string name) : log_(log), name_(std::move(name)) {}
  void incident(const Incident& incident) override {
    log_.push_back(name_ + " incident " + std::string(incident.span));
  }
  void passthrough(std::string_view line, Nanos at) override {
    log_.push_back(name_ + " line " + std::string(line) + " at " + std::to_string(at));
  }
  void finish(const ShrinkerStats&) override { log_.push_back(name_ + " finish"); }

private:
  std::vector<std::string>& log_;
  std::string name_;
};
} // namespace

TEST_CASE("fanout sink: every sink sees every result, in the order the sinks were added") {
  std::vector<std::string> log;
  Recorder first(log, "a");
  Recorder second(log, "b");
  FanoutSink fanout;
  fanout.add(first);
  fanout.add(second);
  const std::string_view lines[] = {"} /* try_to_free_pages */"};
  fanout.incident(Incident{"try_to_free_pages", "direct reclaim", false, 1, "dd", 0, 1, lines});
  fanout.passthrough("CPU:0 [LOST 3 EVENTS]", 42);
  fanout.finish(ShrinkerStats{});
  CHECK(log ==
        std::vector<std::string>{"a incident try_to_free_pages", "b incident try_to_free_pages",
                                 "a line CPU:0 [LOST 3 EVENTS] at 42",
                                 "b line CPU:0 [LOST 3 EVENTS] at 42", "a finish", "b finish"});
}
