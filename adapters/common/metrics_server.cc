#include "adapters/common/metrics_server.h"

#include <httplib.h>

#include <chrono>
#include <cstdlib>

#include "adapters/common/mount_stats.h"

namespace hintfs {

Status MetricsServer::Start(const std::string& address, std::function<nlohmann::json()> stats,
                            std::unique_ptr<MetricsServer>* out) {
  size_t colon = address.rfind(':');
  std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
  std::string port_text = colon == std::string::npos ? "" : address.substr(colon + 1);
  char* end = nullptr;
  long port = port_text.empty() ? -1 : std::strtol(port_text.c_str(), &end, 10);
  if (host.empty() || port < 0 || port > 65535 || end == nullptr || *end != '\0') {
    return Status::InvalidArgument("metrics=" + address + ": expected HOST:PORT, e.g. 127.0.0.1:9187");
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->server_ = std::make_unique<httplib::Server>();
  server->host_ = host;
  server->server_->Get("/metrics", [stats](const httplib::Request&, httplib::Response& res) {
    res.set_content(MountMetrics(stats()), "text/plain; version=0.0.4");
  });
  server->server_->Get("/stats.json", [stats](const httplib::Request&, httplib::Response& res) {
    res.set_content(stats().dump(2) + "\n", "application/json");
  });
  if (port == 0) {
    server->port_ = server->server_->bind_to_any_port(host);
  } else {
    server->port_ = server->server_->bind_to_port(host, static_cast<int>(port)) ? static_cast<int>(port) : -1;
  }
  if (server->port_ < 0) return Status::IOError("metrics: cannot listen on " + address);
  httplib::Server* raw = server->server_.get();
  std::atomic<bool>* done = &server->done_;
  server->thread_ = std::thread([raw, done] {
    raw->listen_after_bind();
    *done = true;
  });
  *out = std::move(server);
  return Status::OK();
}

MetricsServer::~MetricsServer() {
  // httplib's stop() does nothing until the thread has begun to listen, and
  // the thread then listens for ever: stop until it has returned.
  while (thread_.joinable() && !done_) {
    server_->stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace hintfs
