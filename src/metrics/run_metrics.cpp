#include "metrics/run_metrics.h"

#include "metrics/render.h"
#include "util/result.h"
#include "util/version.h"

namespace allocwatch {

void RunMetrics::start(const PublisherOptions& options, std::optional<Mode> mode,
                       std::ostream& messages, bool quiet) {
  mode_ = mode;
  publisher_ = value_or_throw(MetricsPublisher::start(
      options, [this](std::uint64_t file_errors) { return render(file_errors); }, messages, quiet));
  next_rebalance_ = Clock::now() + kRebalanceInterval;
}

void RunMetrics::tick() {
  if (!publisher_)
    return;
  const auto now = Clock::now();
  publisher_->tick(now);
  if (now >= next_rebalance_) {
    stalls_.rebalance();
    next_rebalance_ = now + kRebalanceInterval;
  }
}

void RunMetrics::finish() {
  if (publisher_)
    publisher_->finish();
}

std::string RunMetrics::render(std::uint64_t file_errors) const {
  return render_metrics(MetricsSources{kVersion, mode_ ? mode_name(*mode_) : "", profile_.name,
                                       profile_.threshold, stalls_, shrinkers_, stats_, file_errors,
                                       more_tables_ ? more_tables_() : Tables::result_type{}});
}

} // namespace allocwatch
