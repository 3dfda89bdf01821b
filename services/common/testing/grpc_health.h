#ifndef PARLOR_SERVICES_COMMON_TESTING_GRPC_HEALTH_H_
#define PARLOR_SERVICES_COMMON_TESTING_GRPC_HEALTH_H_

#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"

namespace parlor::testing {

// Calls grpc.health.v1.Health/Check without the health proto (Debian ships none): the request is
// `service` as field 1, the answer's field 1 is the status enum. Returns 1 SERVING,
// 2 NOT_SERVING, -1 for an RPC error (e.g. NOT_FOUND for an unknown service).
inline int HealthCheck(const std::shared_ptr<grpc::Channel>& channel, const std::string& service) {
  std::string request;
  if (!service.empty()) {
    request.push_back(0x0a);  // field 1, length-delimited
    request.push_back(static_cast<char>(service.size()));
    request += service;
  }
  grpc::Slice slice(request);
  grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::GenericStub stub(channel);
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request_buffer,
                 &response_buffer, [&done](grpc::Status status) { done.set_value(status); });
  grpc::Status status = done.get_future().get();
  if (!status.ok()) return -1;
  std::vector<grpc::Slice> slices;
  if (!response_buffer.Dump(&slices).ok()) return -1;
  std::string response;
  for (const grpc::Slice& s : slices)
    response.append(reinterpret_cast<const char*>(s.begin()), s.size());
  if (response.size() == 2 && response[0] == 0x08) return response[1];
  return response.empty() ? 0 : -1;  // UNKNOWN (0) is encoded as nothing
}

}  // namespace parlor::testing

#endif  // PARLOR_SERVICES_COMMON_TESTING_GRPC_HEALTH_H_
