// A group's identity (members, rank, size) and new_group.
#include "metadata.hpp"
#include "mpi_types.hpp"
#include "watchdog.hpp"

#include <set>
#include <string>

namespace xd::dist {

ProcessGroup::State& ProcessGroup::checked(const char* what) const {
  if (!state_) {
    throw DistributedError(std::string("xd::dist: ") + what +
                           ": not a process group (a default-constructed ProcessGroup; use xd::dist::init())");
  }
  if (state_->comm == MPI_COMM_NULL) {
    if (detail::runtime() == nullptr) {
      throw DistributedError(std::string("xd::dist: ") + what + " on group " + state_->name +
                             ": the process group has been finalised");
    }
    throw DistributedError(std::string("xd::dist: ") + what + " on group " + state_->name + ": world rank " +
                           std::to_string(detail::runtime()->world_rank) + " is not a member of this group");
  }
  return *state_;
}

bool ProcessGroup::is_member() const { return state_ && state_->rank >= 0; }
int ProcessGroup::rank() const { return checked("rank").rank; }
int ProcessGroup::size() const { return checked("size").size; }
std::vector<int> ProcessGroup::world_ranks() const {
  if (!state_) checked("world_ranks");
  return state_->world_ranks;
}

ProcessGroup ProcessGroup::new_group(const std::vector<int>& ranks) const {
  State& g = checked("new_group");
  if (ranks.empty()) throw ValueError(detail::where(g, "new_group") + ": the list of ranks is empty");
  std::set<int> seen;
  for (int r : ranks) {
    if (r < 0 || r >= g.size) {
      throw ValueError(detail::where(g, "new_group") + ": rank " + std::to_string(r) +
                       " is out of range: the group has ranks 0 to " + std::to_string(g.size - 1));
    }
    if (!seen.insert(r).second) {
      throw ValueError(detail::where(g, "new_group") + ": rank " + std::to_string(r) + " is listed twice");
    }
  }
  auto sub = std::make_shared<State>();
  sub->name = "group{";
  for (size_t i = 0; i < ranks.size(); ++i) {
    sub->world_ranks.push_back(g.world_ranks[static_cast<size_t>(ranks[i])]);
    if (i > 0) sub->name += ",";
    sub->name += std::to_string(sub->world_ranks.back());
  }
  sub->name += "}";
  sub->size = static_cast<int>(ranks.size());
  int position = -1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == g.rank) position = static_cast<int>(i);
  }
  const bool check = detail::checked_runtime("new_group").options.check_metadata;
  const uint64_t chunk = detail::checked_runtime("new_group").options.chunk_bytes;
  detail::submit(
      g, g.collectives,
      [&g, sub, position, check, chunk](Work::State&) {
        const uint64_t seq = g.seq++;
        detail::WatchScope watch("new_group", seq, g.rank, g.name);
        if (check) detail::check_across_ranks(g, detail::CallInfo{detail::OpKind::new_group}, chunk, seq);
        MPI_Comm comm = MPI_COMM_NULL;
        detail::check_mpi(MPI_Comm_split(g.comm, position >= 0 ? 0 : MPI_UNDEFINED, position, &comm), "MPI_Comm_split");
        if (comm != MPI_COMM_NULL) {
          MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
          sub->comm = comm;
          sub->rank = position;
        }
      },
      false);
  detail::Runtime& rt = detail::checked_runtime("new_group");
  {
    std::lock_guard lock(rt.groups_mutex);
    rt.groups.push_back(sub);
  }
  return ProcessGroup(sub);
}

}  // namespace xd::dist
