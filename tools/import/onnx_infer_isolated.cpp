#include "tools/import/onnx_infer_isolated.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "core/fd_io.h"

namespace kp {
namespace {

// The child's exit statuses: 0 with the serialized model on the pipe, kThrew where inference
// threw (no payload), kNoSerialize where the inferred model could not be written back.
constexpr int kThrew = 3, kNoSerialize = 4;

[[noreturn]] void child(const onnx::ModelProto& model, int fd) {
  // The parent reports the outcome; a sanitizer's or the library's own words on the way down
  // would only come before the one located error.
  const int null_fd = ::open("/dev/null", O_WRONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDERR_FILENO);
  int status = 0;
  try {
    onnx::ModelProto inferred = model;
    // Data propagation resolves Reshape targets computed from Shape/Gather/Concat chains.
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
    std::string bytes;
    if (!inferred.SerializeToString(&bytes) || !write_all(fd, bytes.data(), bytes.size())) status = kNoSerialize;
  } catch (...) {
    status = kThrew;
  }
  ::close(fd);
  ::_exit(status);  // no atexit handlers, no second flush of the parent's buffers
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    const char* name = ::strsignal(WTERMSIG(status));
    return "signal " + std::to_string(WTERMSIG(status)) + (name ? std::string(" (") + name + ")" : std::string());
  }
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "an abnormal end";
}

}  // namespace

InferredModel infer_shapes_isolated(const onnx::ModelProto& model) {
  int p[2];
  if (::pipe(p) != 0) throw std::runtime_error(std::string("ONNX shape inference: pipe failed: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("ONNX shape inference: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(p[0]);
    child(model, p[1]);
  }
  ::close(p[1]);
  // Read to EOF before waiting: a child with more than a pipe's worth would block otherwise.
  const std::string bytes = read_to_end(p[0]);
  ::close(p[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  InferredModel out;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kThrew) return out;  // Failed
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.model.ParseFromString(bytes)) {
    out.outcome = InferredModel::Outcome::Inferred;
    return out;
  }
  out.outcome = InferredModel::Outcome::Crashed;
  out.how = how_it_ended(status);
  return out;
}

}  // namespace kp
