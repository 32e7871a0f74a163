// The cross-rank check (InitOptions::check_metadata): before a collective runs, the members
// exchange what each is about to do — which collective, its sequence number in the group, root,
// reduction, dtype, shape — and every rank raises the same typed error naming the ranks when they
// disagree, instead of MPI truncating, mixing up bytes of different dtypes, or waiting forever.
#pragma once

#include "state.hpp"

#include <cstdint>
#include <optional>

namespace xd::dist::detail {

enum class OpKind : int32_t {
  all_reduce = 1,
  broadcast,
  reduce,
  all_gather,
  all_gather_list,
  reduce_scatter,
  all_to_all,
  barrier,
  send_recv,
  new_group,
};
const char* op_kind_name(OpKind k) noexcept;

// What must agree across ranks for a collective. the shape is compared when `compare_shape`; for
// all_to_all only the trailing dims (a row) are compared.
struct CallInfo {
  explicit CallInfo(OpKind k, int root_ = -1, int reduce_op_ = -1, Tensor t = {}, bool compare_shape_ = true,
                    bool rows_only_ = false)
      : kind(k), root(root_), reduce_op(reduce_op_), tensor(std::move(t)), compare_shape(compare_shape_),
        rows_only(rows_only_) {}
  OpKind kind;
  int root;
  int reduce_op;
  Tensor tensor;  // the tensor whose dtype and shape must match (undefined: none)
  bool compare_shape;
  bool rows_only;
  bool local_error = false;  // this rank rejected its arguments and will throw its own error
};

// Exchanges and compares; throws on every member when they disagree. Collective over g.comm.
void check_across_ranks(ProcessGroup::State& g, const CallInfo& call, uint64_t chunk_bytes, uint64_t seq);

// Point to point: the sender sends a description ahead of the data; the receiver compares it with
// its tensor. Returns the mismatch message (ShapeError or DtypeError to throw after draining the
// data) or nothing.
struct PeerHeader {
  int32_t dtype = 0;
  int32_t ndim = 0;
  int64_t sizes[kMaxDims] = {};
  uint64_t chunk_bytes = 0;
};
PeerHeader describe_peer(const Tensor& t, uint64_t chunk_bytes);

}  // namespace xd::dist::detail
