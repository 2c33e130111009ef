// Serves a mount's statistics over HTTP while it is mounted (a mount spec's
// metrics=HOST:PORT), for Prometheus and for `hintfs top`:
//   GET /metrics      the Prometheus text format (MountMetrics: HELP and
//                     TYPE lines for every metric)
//   GET /stats.json   the same figures as JSON (MountStatsJson), the one
//                     source the FUSE mount's .hintfs files and the stats=
//                     file are made from too
// Anything else is 404. Serves from a thread of its own; each request takes
// a fresh snapshot of the counters.
#ifndef HINTFS_ADAPTERS_COMMON_METRICS_SERVER_H_
#define HINTFS_ADAPTERS_COMMON_METRICS_SERVER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "fs/status.h"

namespace httplib {
class Server;
}

namespace hintfs {

class MetricsServer {
 public:
  // Listens on address ("HOST:PORT"; port 0 picks a free one, port() says
  // which) and answers with what stats returns. InvalidArgument for an
  // address that is not HOST:PORT; IOError if it cannot listen there.
  static Status Start(const std::string& address, std::function<nlohmann::json()> stats,
                      std::unique_ptr<MetricsServer>* out);
  ~MetricsServer();  // stops serving and joins the thread

  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  const std::string& host() const { return host_; }
  int port() const { return port_; }

 private:
  MetricsServer() = default;

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> done_{false};  // the thread has stopped listening
  std::string host_;
  int port_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_COMMON_METRICS_SERVER_H_
