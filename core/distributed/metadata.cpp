#include "metadata.hpp"

#include "mpi_types.hpp"

#include <algorithm>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace xd::dist::detail {
namespace {

struct Record {
  int32_t kind = 0;
  int32_t root = 0;
  int32_t reduce_op = 0;
  int32_t dtype = -1;
  int32_t ndim = -1;
  int32_t local_error = 0;
  int64_t sizes[kMaxDims] = {};
  uint64_t seq = 0;
  uint64_t chunk_bytes = 0;
};

std::string shape_text(const Record& r, bool rows_only) {
  std::ostringstream os;
  os << (r.dtype >= 0 && r.dtype < kNumDtypes ? dtype_name(static_cast<Dtype>(r.dtype)) : "?") << '[';
  for (int i = rows_only ? 1 : 0; i < r.ndim; ++i) os << (i > (rows_only ? 1 : 0) ? ", " : "") << r.sizes[i];
  os << ']';
  return os.str();
}

// "ranks 0, 2: A; rank 1: B" — members grouped by the value `text` gives them.
template <class F>
std::string by_value(std::span<const Record> all, F text) {
  std::map<std::string, std::vector<int>> groups;
  std::vector<std::string> order;
  for (size_t r = 0; r < all.size(); ++r) {
    const std::string t = text(all[r]);
    if (groups.find(t) == groups.end()) order.push_back(t);
    groups[t].push_back(static_cast<int>(r));
  }
  std::string out;
  for (const std::string& t : order) {
    const auto& ranks = groups[t];
    if (!out.empty()) out += "; ";
    out += ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
    out += ": " + t;
  }
  return out;
}

}  // namespace

const char* op_kind_name(OpKind k) noexcept {
  switch (k) {
    case OpKind::all_reduce: return "all_reduce";
    case OpKind::broadcast: return "broadcast";
    case OpKind::reduce: return "reduce";
    case OpKind::all_gather: return "all_gather";
    case OpKind::all_gather_list: return "all_gather (list)";
    case OpKind::reduce_scatter: return "reduce_scatter";
    case OpKind::all_to_all: return "all_to_all";
    case OpKind::barrier: return "barrier";
    case OpKind::send_recv: return "send/recv";
    case OpKind::new_group: return "new_group";
  }
  return "?";
}

void check_across_ranks(ProcessGroup::State& g, const CallInfo& call, uint64_t chunk_bytes, uint64_t seq) {
  Record mine;
  mine.kind = static_cast<int32_t>(call.kind);
  mine.root = call.root;
  mine.reduce_op = call.reduce_op;
  mine.local_error = call.local_error ? 1 : 0;
  mine.seq = seq;
  mine.chunk_bytes = chunk_bytes;
  if (call.tensor.defined() && !call.local_error) {
    mine.dtype = static_cast<int32_t>(call.tensor.dtype());
    mine.ndim = call.tensor.dim();
    for (int i = 0; i < mine.ndim; ++i) mine.sizes[i] = call.tensor.size(i);
  }
  // Small groups (the usual case) exchange into the stack: this runs before every collective.
  Record few[8];
  std::vector<Record> many;
  if (g.size > 8) many.resize(static_cast<size_t>(g.size));
  Record* gathered = g.size > 8 ? many.data() : few;
  check_mpi(MPI_Allgather(&mine, sizeof(Record), MPI_BYTE, gathered, sizeof(Record), MPI_BYTE, g.comm),
            "MPI_Allgather (metadata check)");
  const std::span<const Record> all(gathered, static_cast<size_t>(g.size));
  const bool rows = call.rows_only;
  auto same_as_first = [&](const Record& r) {
    const Record& f = all[0];
    if (r.kind != f.kind || r.seq != f.seq || r.local_error != f.local_error || r.root != f.root ||
        r.reduce_op != f.reduce_op || r.chunk_bytes != f.chunk_bytes || r.dtype != f.dtype) {
      return false;
    }
    if (!call.compare_shape) return true;
    if (r.ndim != f.ndim) return false;
    for (int i = rows ? 1 : 0; i < r.ndim; ++i) {
      if (r.sizes[i] != f.sizes[i]) return false;
    }
    return true;
  };
  if (std::all_of(all.begin(), all.end(), same_as_first)) return;  // the common case: all agree

  // They disagree: find what, and say it.
  const std::string head = std::string("xd::dist: ") + op_kind_name(call.kind) + " #" + std::to_string(seq) +
                           " on group " + g.name + ": ";
  auto differs = [&](auto field) {
    for (const Record& r : all) {
      if (field(r) != field(all[0])) return true;
    }
    return false;
  };
  if (differs([](const Record& r) { return std::make_pair(r.kind, r.seq); })) {
    throw DistributedError(head + "the ranks issued different collectives: " + by_value(all, [](const Record& r) {
                             return std::string(op_kind_name(static_cast<OpKind>(r.kind))) + " #" +
                                    std::to_string(r.seq);
                           }) + " (every member must issue the group's collectives in the same order)");
  }
  if (call.local_error) return;  // this rank raises its own error
  if (differs([](const Record& r) { return r.local_error; })) {
    std::string bad;
    for (size_t r = 0; r < all.size(); ++r) {
      if (all[r].local_error) bad += (bad.empty() ? "" : ", ") + std::to_string(r);
    }
    throw DistributedError(head + "rank(s) " + bad + " rejected their arguments (the error is raised there)");
  }
  if (differs([](const Record& r) { return r.root; })) {
    throw DistributedError(head + "the ranks named different roots: " +
                           by_value(all, [](const Record& r) { return "root " + std::to_string(r.root); }));
  }
  if (differs([](const Record& r) { return r.reduce_op; })) {
    throw DistributedError(head + "the ranks asked for different reductions: " + by_value(all, [](const Record& r) {
                             return std::string(reduce_op_name(static_cast<ReduceOp>(r.reduce_op)));
                           }));
  }
  if (differs([](const Record& r) { return r.chunk_bytes; })) {
    throw DistributedError(head + "the ranks stage in chunks of different sizes (XD_DIST_CHUNK_BYTES): " +
                           by_value(all, [](const Record& r) { return std::to_string(r.chunk_bytes) + " bytes"; }));
  }
  if (!call.tensor.defined()) return;
  if (differs([](const Record& r) { return r.dtype; })) {
    throw DtypeError(head + "tensors of different dtypes: " +
                     by_value(all, [&](const Record& r) { return shape_text(r, rows); }));
  }
  if (!call.compare_shape) return;
  const bool shape_differs = differs([&](const Record& r) {
    std::vector<int64_t> s;
    for (int i = rows ? 1 : 0; i < r.ndim; ++i) s.push_back(r.sizes[i]);
    return s;
  });
  if (shape_differs) {
    throw ShapeError(head + "tensors of different shapes" + (rows ? " (after dim 0)" : "") + ": " +
                     by_value(all, [&](const Record& r) { return shape_text(r, rows); }));
  }
}

PeerHeader describe_peer(const Tensor& t, uint64_t chunk_bytes) {
  PeerHeader h;
  h.dtype = static_cast<int32_t>(t.dtype());
  h.ndim = t.dim();
  for (int i = 0; i < h.ndim; ++i) h.sizes[i] = t.size(i);
  h.chunk_bytes = chunk_bytes;
  return h;
}

}  // namespace xd::dist::detail
