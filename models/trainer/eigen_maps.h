#pragma once
// Eigen views of the trainer's column-major buffers (layers.h), shared by the reference layers.
// Internal to kp_trainer.
#include <Eigen/Core>

#include <cstdint>

namespace kp::trainer_detail {

template <class T>
using MatX = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using VecX = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using MatMap = Eigen::Map<MatX<T>>;
template <class T>
using ConstMatMap = Eigen::Map<const MatX<T>>;
template <class T>
using VecMap = Eigen::Map<VecX<T>>;
template <class T>
using ConstVecMap = Eigen::Map<const VecX<T>>;

}  // namespace kp::trainer_detail
