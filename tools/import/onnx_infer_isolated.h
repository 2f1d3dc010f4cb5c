#pragma once
// ONNX shape inference run where a crash cannot take the importer down. libonnx 1.12's
// InferShapes trusts a model that passes its schema checks: some corrupted models (a mutated
// TransformerEncoder that onnx.checker accepts) still read out of bounds or abort inside it.
// Contract: infer_shapes_isolated() runs InferShapes (with data propagation) on a copy of `model`
// in a forked child and returns the inferred model. Where inference throws, the result is
// Outcome::Failed (the caller keeps the shapes it can find itself); where the child dies (a
// signal, an abort) it is Outcome::Crashed with `how` saying why. The parent never runs the call.
#include <onnx/onnx_pb.h>

#include <string>

namespace kp {

struct InferredModel {
  enum class Outcome { Inferred, Failed, Crashed } outcome = Outcome::Failed;
  onnx::ModelProto model;  // Inferred: the model with value_info filled in
  std::string how;         // Crashed: "signal 11 (Segmentation fault)" or the child's exit status
};

InferredModel infer_shapes_isolated(const onnx::ModelProto& model);

}  // namespace kp
